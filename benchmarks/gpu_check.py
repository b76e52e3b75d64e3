"""The GPU check: token agreement and speed of every decode mode on one CUDA GPU.

Run by benchmarks/gpu_check.sh (which installs the wheels it is handed and the
project first). On a full-size random checkpoint (studio.engine.random_checkpoint
"full"; speed depends on the shapes, not the values), greedy settings
(position_temperature=0, class_temperature=0, so every path does the same work),
voice design at ``--steps`` steps, batch 1 and batch 4:

- reference: omnivoice 0.2.1 ``OmniVoice.generate`` (its eager path);
- padded: our reference-equal layout, standard layers;
- padded-graph: the same with CUDA graphs ("graph" acceleration: the standard
  step captured once per render shape and replayed);
- packed: one row, per-document attention, standard layers;
- flashinfer / flashinfer-graph: the packed layout on the FlashInfer runner,
  without and with CUDA graphs, through the Accelerator's fallback contract
  (a refused or failed mode is reported with its reason, never hidden).

Per mode and batch: median wall seconds of the whole call (decode and codec)
after one warm-up, RTF, speed-up against the reference, token agreement with the
reference (the fraction of equal tokens; 1.0 is identical), peak CUDA memory,
and the extra memory over the resident weights. Printed as one table and
written as JSON. Everything is timed in one process, one mode after the other.

Quality against fp32 truth (the "quality" section; ``--quality-seeds none`` skips
it): agreement with the reference in bf16 mixes our kernels' rounding with bf16's
own, so every mode is also measured against an fp32 render: per checkpoint (the
full-size random one, then the same with realistic audio-head margins, built by
bench_int8.margin_checkpoint), per conformance case and seed (``g`` greedy, a
number samples from that seed), one item per render, the mode's render is
compared with the padded path's fp32 render of the same case and seed (the
reference's layout and kernels: tests/engine/test_conformance.py holds it to the
reference's tokens in fp32) by bench_int8.compare: token agreement, first
divergence step, log-mel distance. The bar, "reference", is the padded path in
bf16, which gives the reference bf16's tokens (the speed rows' "tokens = ref"
column for padded says whether it did on this machine, as ``bar_is_reference``).
A mode is "as accurate as bf16" when its agreement is no lower than the bar on
every checkpoint (studio.engine.accel.evidence decides ``auto`` by this JSON).

Time on an H200 (docs/performance.md, 2026-12-04): the speed part took 72 s
besides FlashInfer's first JIT compile (81 to 172 s, once per machine); the
quality part renders 3 cases x 3 seeds per mode and checkpoint at 32 steps (the
padded path about 1 s a render, the graph modes well under, the fp32 truth about
1.5 s), about 2 x (9 x 5 s + 40 s building and loading) = 170 s, so one run is
about 250 s warm, 420 s with the JIT compile: inside gpu_check.sh's 470 s. The
``--budget`` (default 420 s) skips what is left past it, noted in its row.

``--device cpu --size tiny`` is a dry run of the whole script on a CPU
(tests/test_gpu_check.py runs it): CUDA-only modes are refused with their reason.

Usage: python benchmarks/gpu_check.py [--checkpoint DIR] [--steps 32] [--out FILE]
       [--quality-seeds g,0,1] [--quality-cases a,b,c] [--device cuda|cpu] [--size full|tiny]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks"):  # studio, and bench_engine beside this file
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

MODES = ("reference", "padded", "padded-graph", "packed", "flashinfer", "flashinfer-graph")
# mode -> (acceleration mode, decode layout)
RUNS = {"padded": ("off", "padded"), "padded-graph": ("graph", "padded"),
        "packed": ("off", "packed"), "flashinfer": ("flashinfer", "packed"),
        "flashinfer-graph": ("flashinfer-graph", "packed")}
QUALITY_CASES = "design_english,nonverbal_tags,speed"
BATCHES = (1, 4)
GREEDY = {"position_temperature": 0.0, "class_temperature": 0.0}
INSTRUCT = "female, low pitch, british accent"
LANGUAGE = "en"
TEXTS = (
    "The studio turns written text into natural sounding speech on your own computer, "
    "and every take can be rendered again exactly from its seed.",
    "Pick a reference clip, type what the voice should say, and press render; the first "
    "take arrives before you have finished reading this sentence.",
    "The weather is lovely this morning, so we are going for a walk in the park along the "
    "river, and we will be back in time for a late breakfast.",
    "Please speak slowly and clearly, keep the microphone away from the fan, and leave a "
    "short pause at the end of every sentence you record today.",
)
T0 = time.perf_counter()


def log(message: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f} s] {message}", file=sys.stderr, flush=True)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, help="reuse (or build into) this checkpoint folder")
    p.add_argument("--steps", type=int, default=32, help="decoding steps (default 32)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per mode and batch (default 3)")
    p.add_argument("--precision", choices=("bf16", "fp16"), default="bf16",
                   help="precision of both the reference and ours (default bf16)")
    p.add_argument("--modes", default=",".join(MODES), help="comma list of " + ", ".join(MODES))
    p.add_argument("--batches", default=",".join(map(str, BATCHES)),
                   help="batch sizes of the speed rows (default 1,4)")
    p.add_argument("--budget", type=float, default=420.0,
                   help="seconds after which remaining runs are skipped (default 420)")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "gpu_check.json",
                   help="where the JSON goes (default benchmarks/gpu_check.json)")
    p.add_argument("--quality-seeds", default="g,0,1",
                   help="seeds of the fp32-truth comparison: g (greedy) or numbers; none skips it")
    p.add_argument("--quality-cases", default=QUALITY_CASES,
                   help=f"conformance cases of the fp32-truth comparison (default {QUALITY_CASES})")
    p.add_argument("--margin", type=float, default=2.0,
                   help="median top-1/top-2 gap of the realistic-margins checkpoint (nats)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="cpu: a dry run of the script (no timings worth reading)")
    p.add_argument("--size", choices=("full", "tiny"), default="full",
                   help="the random checkpoint built when --checkpoint has none (default full)")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(args.modes) - set(MODES))
    if unknown:
        p.error(f"unknown mode(s): {', '.join(unknown)}")
    if "reference" not in args.modes:
        args.modes.insert(0, "reference")  # speed-ups and agreement are measured against it
    if args.steps < 1 or args.repeats < 1:
        p.error("--steps and --repeats must be at least 1")
    try:
        args.batches = [int(b) for b in args.batches.split(",") if b.strip()]
    except ValueError:
        p.error("--batches takes whole numbers, comma separated")
    if not args.batches or any(not 1 <= b <= len(TEXTS) for b in args.batches):
        p.error(f"--batches must be between 1 and {len(TEXTS)}")
    seeds = args.quality_seeds.strip().lower()
    args.quality_seeds = [] if seeds in ("", "none") else [x.strip() for x in seeds.split(",")]
    if any(x != "g" and not x.isdigit() for x in args.quality_seeds):
        p.error("--quality-seeds takes g (greedy) or whole numbers, comma separated")
    args.quality_cases = [c.strip() for c in args.quality_cases.split(",") if c.strip()]
    return args


COLUMNS = (
    ("mode", "mode", "{}"), ("batch", "batch", "{}"), ("median_s", "seconds", "{:.3f}"),
    ("rtf", "RTF", "{:.4f}"), ("speedup", "x ref eager", "{:.2f}"),
    ("agreement", "tokens = ref", "{:.4f}"), ("peak_gib", "peak GiB", "{:.2f}"),
    ("extra_gib", "extra GiB", "{:.2f}"), ("note", "note", "{}"),
)


def format_table(rows: list[dict]) -> str:
    """The results as one Markdown table (missing values shown as "-")."""
    def cell(row, key, fmt):
        value = row.get(key)
        return "-" if value is None or value == "" else fmt.format(value)

    lines = ["| " + " | ".join(title for _, title, _ in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(row, key, fmt) for key, _, fmt in COLUMNS) + " |"
              for row in rows]
    return "\n".join(lines)


def agreement(ours, reference) -> float | None:
    """Fraction of equal tokens over all items (None when lengths differ)."""
    import torch

    equal = total = 0
    for a, b in zip(ours, reference):
        a, b = torch.cat([t.cpu() for t in a], -1), torch.cat([t.cpu() for t in b], -1)
        if a.shape != b.shape:
            return None
        equal += int((a == b).sum())
        total += a.numel()
    return equal / total if total else None


def reference_call(reference, batch: int, steps: int, sample_rate: int):
    """The reference's ``generate`` on the first ``batch`` texts: the tokens it decodes
    (per item, a list of chunks) and the seconds of audio it returns."""
    from bench_engine import reference_tokens

    audios, seen = reference_tokens(reference, text=list(TEXTS[:batch]),
                                    language=[LANGUAGE] * batch, instruct=[INSTRUCT] * batch,
                                    num_step=steps, **GREEDY)
    return seen, sum(a.shape[-1] for a in audios) / sample_rate


def our_request(batch: int, steps: int, decode_mode: str):
    """Our items and options for the same work as ``reference_call``. Reference chunking:
    the studio's default (quick-start) splits each text into a short first chunk and
    the rest, two passes where the reference makes one, so neither its speed nor its
    tokens would compare."""
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import GenerationOptions, SynthesisItem

    options = GenerationOptions(decode=DecodeOptions(num_step=steps, **GREEDY),
                                decode_mode=decode_mode, chunking="reference")
    items = [SynthesisItem(text, language=LANGUAGE, instruct=INSTRUCT, seed=i)
             for i, text in enumerate(TEXTS[:batch])]
    return items, options


class Device:
    """The few CUDA calls the check makes, as no-ops on the CPU (the dry run)."""

    def __init__(self, torch, kind: str):
        self.torch, self.kind = torch, kind
        self.cuda = kind == "cuda"

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()

    def allocated(self) -> int:
        return self.torch.cuda.memory_allocated() if self.cuda else 0

    def reset_peak(self) -> None:
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats()

    def peak(self) -> int | None:
        return self.torch.cuda.max_memory_allocated() if self.cuda else None

    def empty_cache(self) -> None:
        import gc

        gc.collect()
        if self.cuda:
            self.torch.cuda.empty_cache()


def main(argv=None, platform=None) -> int:
    """``platform``: the Accelerator's view of the machine (tests hand in a fake CUDA one)."""
    args = parse_args(argv)
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("error: no CUDA GPU is visible; this check runs on a GPU machine "
              "(--device cpu is a dry run of the script).", file=sys.stderr)
        return 2
    import bench_int8
    import omnivoice

    from studio.engine.accel.accelerator import Accelerator
    from studio.engine.engine import Engine
    from studio.engine.random_checkpoint import build_random_checkpoint

    unknown = sorted(set(args.quality_cases) - set(bench_int8.CASES))
    if unknown:
        print(f"error: unknown conformance case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    device = Device(torch, args.device)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.precision]
    results: dict = {"settings": {"steps": args.steps, "repeats": args.repeats,
                                  "precision": args.precision, "instruct": INSTRUCT, **GREEDY,
                                  "device": args.device, "quality_seeds": args.quality_seeds,
                                  "quality_cases": args.quality_cases, "margin": args.margin},
                     "machine": machine(torch) if device.cuda else {"device": "cpu"}, "rows": []}
    log(f"machine: {results['machine']}")

    work = Path(tempfile.mkdtemp(prefix="omnivoice-gpu-"))
    folder = args.checkpoint or work / "OmniVoice"
    if not (folder / "config.json").is_file():
        log(f"building a {args.size} random checkpoint in {folder}")
        build_random_checkpoint(folder, args.size)
    log("loading ours and the reference")
    engine = Engine.load(folder, device=args.device, precision=args.precision)
    reference = omnivoice.OmniVoice.from_pretrained(str(folder), dtype=dtype,
                                                    device_map=args.device).eval()
    accel = Accelerator("off", platform=platform, on_stage=lambda s: log(f"accelerator: {s}"))
    sample_rate = engine.sample_rate

    def ref_call(batch):
        return reference_call(reference, batch, args.steps, sample_rate)

    def our_call(batch, decode_mode):
        items, options = our_request(batch, args.steps, decode_mode)
        renders = accel.run(lambda: engine.synthesize(items, options))
        return [r.tokens for r in renders], sum(r.audio.shape[-1] for r in renders) / sample_rate

    def measure(call, base: int) -> tuple[list[float], object, float, float | None, float | None]:
        tokens, audio_s = call()  # warm-up (and graph capture, compile)
        times = []
        for _ in range(args.repeats):
            device.sync()
            start = time.perf_counter()
            tokens, audio_s = call()
            device.sync()
            times.append(time.perf_counter() - start)
        peak = device.peak()
        if peak is None:
            return times, tokens, audio_s, None, None
        return times, tokens, audio_s, peak / 2**30, (peak - base) / 2**30

    reference_runs: dict[int, tuple[float, list]] = {}
    for batch in args.batches:
        for mode in args.modes:
            row = {"mode": mode, "batch": batch}
            results["rows"].append(row)
            if time.perf_counter() - T0 > args.budget:
                row["note"] = "skipped: time budget"
                continue
            # Memory before prepare(): a runner's workspace counts as its extra memory.
            device.sync()
            base = device.allocated()
            device.reset_peak()
            if mode == "reference":
                call = lambda b=batch: ref_call(b)  # noqa: E731
            else:
                accel_mode, layout = RUNS[mode]
                accel.request(accel_mode)
                report = accel.prepare(engine)
                row["accel_active"] = report.active
                if report.reason:
                    row["note"] = report.reason
                call = lambda b=batch, d=layout: our_call(b, d)  # noqa: E731
            log(f"{mode}, batch {batch}")
            try:
                times, tokens, audio_s, peak, extra = measure(call, base)
            except Exception as exc:  # a broken mode is a row, not the end of the check
                row["note"] = f"failed: {type(exc).__name__}: {exc}"[:200]
                log(row["note"])
                continue
            if accel.report.reason and mode != "reference":
                row["note"] = accel.report.reason
                row["accel_active"] = accel.report.active
            median = statistics.median(times)
            row.update(runs_s=[round(t, 4) for t in times], median_s=median,
                       audio_seconds=round(audio_s, 3), rtf=median / audio_s if audio_s else None,
                       peak_gib=peak, extra_gib=extra)
            if mode == "reference":
                reference_runs[batch] = (median, tokens)
                row.update(speedup=1.0, agreement=1.0)
            elif batch in reference_runs:
                ref_median, ref_tokens = reference_runs[batch]
                row.update(speedup=ref_median / median, agreement=agreement(tokens, ref_tokens))
            log(f"{mode}, batch {batch}: {median:.3f} s, RTF {row['rtf']:.4f}")
    accel.release()
    reference = None  # the reference model is done with: its memory goes
    device.empty_cache()

    if args.quality_seeds:
        padded = [r.get("agreement") for r in results["rows"] if r["mode"] == "padded"]
        quality: dict = {"truth": "padded, fp32", "bar": "padded, " + args.precision,
                         "bar_is_reference": bool(padded) and all(a == 1.0 for a in padded)}
        modes = ["padded", *(m for m in args.modes if m not in ("reference", "padded"))]
        checkpoints = quality["checkpoints"] = {}
        checkpoints["random"] = truth_comparison(folder, engine, modes, args, device, platform)
        margins = work / "margins"
        if time.perf_counter() - T0 > args.budget:
            checkpoints["realistic_margins"] = {"note": "skipped: time budget"}
        else:
            log(f"building the realistic-margins checkpoint (median gap {args.margin} nats)")
            quality["margins"] = bench_int8.margin_checkpoint(folder, margins, args.margin,
                                                              args.quality_cases[0])
            del engine
            device.empty_cache()
            engine = Engine.load(margins, device=args.device, precision=args.precision)
            checkpoints["realistic_margins"] = truth_comparison(margins, engine, modes, args,
                                                                device, platform)
        results["quality"] = quality
        log("quality, mean token agreement with fp32: " + json.dumps(
            {name: {m: v.get("mean_token_agreement") for m, v in per_mode.items()
                    if isinstance(v, dict)} for name, per_mode in checkpoints.items()}))
    from studio.engine.accel.evidence import choose, distill

    evidence = distill(results)
    results["auto"] = {"evidence": [vars(m) for m in evidence],
                       "would_choose": choose(lambda mode: True, evidence)}
    log(f"auto would choose: {results['auto']['would_choose']}")

    table = format_table(results["rows"])
    print(table)
    results["table"] = table
    results["total_s"] = round(time.perf_counter() - T0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str))
    log(f"wrote {args.out}")
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    return 0


class StepRecorder:
    """Every commit's tokens, grouped by decoding step, for bench_int8.first_divergence:
    one flat tensor per step (every item's state after that step's commit)."""

    def __init__(self):
        self.steps: list[list] = [[]]

    def __enter__(self):
        import studio.engine.decode as decode
        import studio.engine.packed as packed

        self._modules = (decode, packed)
        original = self._original = decode.commit

        def recording(current, *rest):
            original(current, *rest)
            self.steps[-1].append(current.detach().flatten().cpu())

        for module in self._modules:
            module.commit = recording
        return self

    def __exit__(self, *exc):
        for module in self._modules:
            module.commit = self._original

    def reset(self) -> None:
        self.steps = [[]]

    def on_progress(self, _progress) -> None:
        self.steps.append([])

    def flat(self) -> list:
        import torch

        return [torch.cat(step) for step in self.steps if step]


def quality_renders(engine, accel, layout: str, args) -> dict:
    """Each case and seed rendered alone: bench_int8.compare's input."""
    import torch
    from bench_int8 import CASES, _decode

    from studio.engine.engine import GenerationOptions, SynthesisItem

    renders = {}
    with StepRecorder() as recorder:
        for case in args.quality_cases:
            request, overrides = CASES[case]
            for seed in args.quality_seeds:
                item = SynthesisItem(**request, seed=0 if seed == "g" else int(seed))
                options = GenerationOptions(decode=_decode(args.steps, seed, overrides),
                                            decode_mode=layout, chunking="reference")

                def render(item=item, options=options):
                    recorder.reset()  # a fallback renders again from the start
                    return engine.synthesize([item], options, on_progress=recorder.on_progress)

                out = (accel.run(render) if accel is not None else render())[0]
                renders[f"{case}/{seed}"] = {"tokens": [t.cpu() for t in out.tokens],
                                             "steps": recorder.flat(),
                                             "audio": torch.from_numpy(out.audio)}
    return {"sample_rate": engine.sample_rate, "renders": renders}


def truth_comparison(folder: Path, engine, modes: list[str], args, device, platform) -> dict:
    """Every mode against the fp32 truth on one checkpoint; "reference" is the bar."""
    from bench_int8 import compare

    from studio.engine.accel.accelerator import Accelerator
    from studio.engine.engine import Engine

    log(f"{folder.name}: the fp32 truth")
    truth_engine = Engine.load(folder, device=args.device, precision="fp32")
    truth = quality_renders(truth_engine, None, "padded", args)
    del truth_engine
    device.empty_cache()
    accel = Accelerator("off", platform=platform)
    out: dict = {}
    for mode in modes:
        if time.perf_counter() - T0 > args.budget:
            out[mode] = {"note": "skipped: time budget"}
            continue
        accel_mode, layout = RUNS[mode]
        accel.request(accel_mode)
        accel.prepare(engine)
        log(f"{folder.name}: {mode} against fp32")
        try:
            summary = compare(truth, quality_renders(engine, accel, layout, args))
        except Exception as exc:  # a broken mode is an entry, not the end of the check
            out[mode] = {"note": f"failed: {type(exc).__name__}: {exc}"[:200]}
            continue
        summary.pop("cases")
        summary["accel_active"] = accel.report.active
        if accel.report.reason:
            summary["note"] = accel.report.reason
        out[mode] = summary
        if mode == "padded":
            out["reference"] = summary
    accel.release()
    return out


def machine(torch) -> dict:
    import platform

    import transformers

    props = torch.cuda.get_device_properties(0)
    try:
        from importlib.metadata import version

        flashinfer = version("flashinfer-python")
    except Exception:
        flashinfer = None
    return {"gpu": props.name, "gpu_memory_gib": round(props.total_memory / 2**30, 1),
            "capability": "sm_{}{}".format(*torch.cuda.get_device_capability(0)),
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "transformers": transformers.__version__, "flashinfer": flashinfer,
            "python": platform.python_version()}


if __name__ == "__main__":
    sys.exit(main())
