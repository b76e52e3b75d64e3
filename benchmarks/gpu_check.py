"""The GPU check: token agreement and speed of every decode mode on one CUDA GPU.

Run by benchmarks/gpu_check.sh (which installs the wheels it is handed and the
project first). On a full-size random checkpoint (studio.engine.random_checkpoint
"full"; speed depends on the shapes, not the values), greedy settings
(position_temperature=0, class_temperature=0, so every path does the same work),
voice design at ``--steps`` steps, batch 1 and batch 4:

- reference: omnivoice 0.2.1 ``OmniVoice.generate`` (its eager path);
- padded: our reference-equal layout, standard layers;
- packed: one row, per-document attention, standard layers;
- flashinfer / flashinfer-graph: the packed layout on the FlashInfer runner,
  without and with CUDA graphs, through the Accelerator's fallback contract
  (a refused or failed mode is reported with its reason, never hidden).

Per mode and batch: median wall seconds of the whole call (decode and codec)
after one warm-up, RTF, speed-up against the reference, token agreement with the
reference (the fraction of equal tokens; 1.0 is identical), peak CUDA memory,
and the extra memory over the resident weights. Printed as one table and
written as JSON. Everything is timed in one process, one mode after the other.

Usage: python benchmarks/gpu_check.py [--checkpoint DIR] [--steps 32] [--out FILE]
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

MODES = ("reference", "padded", "packed", "flashinfer", "flashinfer-graph")
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
    p.add_argument("--budget", type=float, default=420.0,
                   help="seconds after which remaining runs are skipped (default 420)")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "gpu_check.json",
                   help="where the JSON goes (default benchmarks/gpu_check.json)")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(args.modes) - set(MODES))
    if unknown:
        p.error(f"unknown mode(s): {', '.join(unknown)}")
    if "reference" not in args.modes:
        args.modes.insert(0, "reference")  # speed-ups and agreement are measured against it
    if args.steps < 1 or args.repeats < 1:
        p.error("--steps and --repeats must be at least 1")
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


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("error: no CUDA GPU is visible; this check runs on a GPU machine.", file=sys.stderr)
        return 2
    import omnivoice

    from studio.engine.accel.accelerator import Accelerator
    from studio.engine.engine import Engine
    from studio.engine.random_checkpoint import build_random_checkpoint

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.precision]
    results: dict = {"settings": {"steps": args.steps, "repeats": args.repeats,
                                  "precision": args.precision, "instruct": INSTRUCT, **GREEDY},
                     "machine": machine(torch), "rows": []}
    log(f"machine: {results['machine']}")

    folder = args.checkpoint or Path(tempfile.mkdtemp(prefix="omnivoice-gpu-")) / "OmniVoice"
    if not (folder / "config.json").is_file():
        log(f"building a full-size random checkpoint in {folder}")
        build_random_checkpoint(folder, "full")
    log("loading ours and the reference")
    engine = Engine.load(folder, device="cuda", precision=args.precision)
    reference = omnivoice.OmniVoice.from_pretrained(str(folder), dtype=dtype, device_map="cuda").eval()
    accel = Accelerator("off", on_stage=lambda s: log(f"accelerator: {s}"))
    sample_rate = engine.sample_rate

    def ref_call(batch):
        return reference_call(reference, batch, args.steps, sample_rate)

    def our_call(batch, decode_mode):
        items, options = our_request(batch, args.steps, decode_mode)
        renders = accel.run(lambda: engine.synthesize(items, options))
        return [r.tokens for r in renders], sum(r.audio.shape[-1] for r in renders) / sample_rate

    def measure(call, base: int) -> tuple[list[float], object, float, float, float]:
        tokens, audio_s = call()  # warm-up (and graph capture, compile)
        times = []
        for _ in range(args.repeats):
            torch.cuda.synchronize()
            start = time.perf_counter()
            tokens, audio_s = call()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
        peak = torch.cuda.max_memory_allocated()
        return times, tokens, audio_s, peak / 2**30, (peak - base) / 2**30

    reference_runs: dict[int, tuple[float, list]] = {}
    for batch in BATCHES:
        for mode in args.modes:
            row = {"mode": mode, "batch": batch}
            results["rows"].append(row)
            if time.perf_counter() - T0 > args.budget:
                row["note"] = "skipped: time budget"
                continue
            # Memory before prepare(): a runner's workspace counts as its extra memory.
            torch.cuda.synchronize()
            base = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            if mode == "reference":
                call = lambda b=batch: ref_call(b)  # noqa: E731
            else:
                accel.request(mode if mode.startswith("flashinfer") else "off")
                report = accel.prepare(engine)
                row["accel_active"] = report.active
                if report.reason:
                    row["note"] = report.reason
                call = lambda b=batch, m=mode: our_call(b, "padded" if m == "padded" else "packed")  # noqa: E731
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

    table = format_table(results["rows"])
    print(table)
    results["table"] = table
    results["total_s"] = round(time.perf_counter() - T0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str))
    log(f"wrote {args.out}")
    return 0


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
