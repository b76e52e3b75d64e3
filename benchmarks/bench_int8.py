"""int8 and bf16 against fp32 truth, with speed and peak memory per precision (issue 30).

For each checkpoint (the ordinary random one, then the same with realistic audio-head
margins, see below) and each precision, ONE child process loads the engine and renders
every conformance case for every seed on the default (packed) path; it reports the
tokens, the audio, the seconds per utterance (the whole ``synthesize`` call, after a
one-step warm-up) and its peak resident memory (VmHWM) after loading and after
rendering. The parent compares every precision with the fp32 render of the same case
and seed:

- token agreement: the share of equal (codebook, frame) tokens;
- first divergence: the first commit (decoding step, counted over the item's passes)
  whose tokens differ from fp32's, or none;
- log-mel distance: the mean absolute difference of the two log-mel spectrograms
  (80 bands, natural log), and their cosine (bench_precision.py).

Seeds: ``g`` is greedy (both temperatures 0); a number samples with the default
temperatures from that seed, so both precisions draw the same noise and differ only
by their arithmetic.

Realistic margins: random audio heads give logits whose top-1/top-2 gaps are tiny
(near-ties), so any rounding flips an argmax. The logits are linear in the head
weight (no bias, the norm comes before), so multiplying ``audio_heads.weight`` by s
multiplies every gap by s exactly. s is chosen so that the median top-1/top-2 gap over
the target positions of a fully masked first step (the least certain step) of the
first case equals ``--margin`` nats (2.0 by default: top-1 about 7x as likely as top-2,
an assumption about a trained model's typical confidence, stated in docs/performance.md).

Usage (from the repository root)::

    python benchmarks/bench_int8.py [--size tiny|full] [--checkpoint DIR] [--cases a,b]
        [--seeds g,0,1] [--steps 8] [--margin 2.0] [--precisions fp32,bf16,int8,int8@2] [--int8-plan o_proj:bf16/... ...]
        [--only random|realistic_margins] [--json-out F]

``--cases`` takes the conformance cases' names and ``clone`` (a clone of a 3.2 s
speech-like clip, each precision encoding the clip itself).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE), str(ROOT / "tests" / "engine")):
    if path not in sys.path:
        sys.path.insert(0, path)

from bench_engine import REF_TEXT, peak_rss_gib, speech_like  # noqa: E402
from bench_precision import log_mel_cosine, token_agreement  # noqa: E402
from conformance_cases import CASES, GREEDY  # noqa: E402

PRECISIONS = ("fp32", "bf16", "int8")
# A case beside the conformance ones: a clone of a 3.2 s speech-like clip (bench_precision's).
CLONE = "clone"
CLONE_REQUEST = dict(text="Now say something new in the same voice.")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, help="a random checkpoint folder (default: build one)")
    p.add_argument("--size", choices=("tiny", "full"), default="tiny")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--seeds", default="g,0,1")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--margin", type=float, default=2.0, help="median top-1/top-2 gap (nats)")
    p.add_argument("--precisions", default=",".join(PRECISIONS))
    p.add_argument("--threads", type=int)
    p.add_argument("--margins-dir", type=Path, help="build the margins checkpoint here, or reuse "
                   "the one there (with its margins.json)")
    p.add_argument("--only", choices=("random", "realistic_margins"), help="one checkpoint only")
    p.add_argument("--int8-plan", action="append", default=[], help="projection kinds (or one "
                   "layer's, 0.gate_proj) the int8 load treats otherwise, e.g. o_proj:bf16/down_proj:int8x2 "
                   "(studio.engine.int8.DEFAULT_PLAN); repeated, the precision int8@2 renders the second")
    p.add_argument("--json-out", type=Path)
    p.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # write one precision's renders here
    p.add_argument("--precision", help=argparse.SUPPRESS)
    return p.parse_args(argv)


# --------------------------------------------------------------------------- child


def _decode(steps: int, seed: str, overrides: dict):
    from studio.engine.decode import DecodeOptions

    sampling = GREEDY if seed == "g" else {}
    return DecodeOptions(**{"num_step": steps, **sampling, **overrides})


def run_child(args) -> int:
    """Load one precision, render every case and seed, save what the parent compares."""
    import studio.engine.packed as packed
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem

    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    if args.int8_plan:  # this child only: the plan its int8 load follows
        plan = args.int8_plan[-1]
        import studio.engine.int8 as int8

        int8.DEFAULT_PLAN = {**int8.DEFAULT_PLAN, **dict(p.split(":") for p in plan.split("/"))}
    started = time.perf_counter()
    engine = Engine.load(args.checkpoint, device="cpu", precision=args.precision)
    load_s, load_peak = time.perf_counter() - started, peak_rss_gib()
    snapshots: list[torch.Tensor] = []
    commit = packed.commit

    def recording_commit(current, *rest):  # every step's committed tokens, in order
        commit(current, *rest)
        snapshots.append(current.clone())

    packed.commit = recording_commit
    warm = SynthesisItem(text="Warm up.", seed=0)
    engine.synthesize([warm], GenerationOptions(decode=_decode(1, "g", {})))
    renders, prompt = {}, None
    if CLONE in args.cases.split(","):  # every precision clones the same clip
        clip = speech_like(3.2, engine.sample_rate, seed=3)
        prompt = engine.create_prompt((clip, engine.sample_rate), REF_TEXT)
    for name in args.cases.split(","):
        request, overrides = CASES[name] if name != CLONE else (CLONE_REQUEST, {})
        if name == CLONE:
            request = {**request, "prompt": prompt}
        for seed in args.seeds.split(","):
            snapshots.clear()
            item = SynthesisItem(**request, seed=0 if seed == "g" else int(seed))
            t0 = time.perf_counter()
            [r] = engine.synthesize([item], GenerationOptions(decode=_decode(args.steps, seed, overrides)))
            renders[f"{name}/{seed}"] = {"seconds": time.perf_counter() - t0, "tokens": r.tokens,
                                         "audio": torch.from_numpy(r.audio), "steps": list(snapshots)}
    torch.save({"precision": engine.precision, "reason": engine.precision_reason, "load_s": load_s,
                "prompt_tokens": None if prompt is None else prompt.tokens,
                "peak_load_gib": load_peak, "peak_render_gib": peak_rss_gib(),
                "sample_rate": engine.sample_rate, "renders": renders}, args.child)
    return 0


# --------------------------------------------------------------------------- margins


def first_step_gaps(folder: Path, case: str) -> torch.Tensor:
    """Top-1 minus top-2 logit of every conditional target token at a fully masked first step."""
    import studio.engine.packed as packed
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem

    engine = Engine.load(folder, device="cpu", precision="fp32")
    seen: list[torch.Tensor] = []
    commit = packed.commit

    def grab(current, cond, *rest):
        if not seen:
            seen.append(cond[0].detach().float())  # (C, T, V)
        commit(current, cond, *rest)

    packed.commit = grab
    try:
        request, overrides = CASES[case]
        engine.synthesize([SynthesisItem(**request, seed=0)],
                          GenerationOptions(decode=_decode(1, "g", overrides)))
    finally:
        packed.commit = commit
    top = seen[0].topk(2, dim=-1).values
    return (top[..., 0] - top[..., 1]).flatten()


def margin_checkpoint(folder: Path, target: Path, margin: float, case: str) -> dict:
    """``folder`` with its audio heads scaled so the median first-step gap is ``margin``."""
    from safetensors.torch import load_file, save_file

    gaps = first_step_gaps(folder, case)
    scale = margin / float(gaps.median())
    target.mkdir(parents=True, exist_ok=True)
    for entry in folder.iterdir():
        if entry.name != "model.safetensors" and not (target / entry.name).exists():
            (target / entry.name).symlink_to(entry.resolve())
    state = load_file(str(folder / "model.safetensors"))
    state["audio_heads.weight"] = state["audio_heads.weight"] * scale
    save_file(state, str(target / "model.safetensors"), metadata={"format": "pt"})
    del state
    after = first_step_gaps(target, case)
    return {"scale": round(scale, 3), "median_gap_before": round(float(gaps.median()), 4),
            "median_gap_after": round(float(after.median()), 4),
            "gap_quartiles_after": [round(float(q), 3) for q in after.quantile(torch.tensor([.25, .75]))]}


# --------------------------------------------------------------------------- compare


def log_mel_distance(a: np.ndarray, b: np.ndarray, sample_rate: int) -> float | None:
    import torchaudio

    length = min(a.shape[-1], b.shape[-1])
    if length < 1024:
        return None
    mel = torchaudio.transforms.MelSpectrogram(sample_rate, n_fft=1024, hop_length=256, n_mels=80)
    la = torch.log(mel(torch.from_numpy(a[:length]).float()) + 1e-5)
    lb = torch.log(mel(torch.from_numpy(b[:length]).float()) + 1e-5)
    return float((la - lb).abs().mean())


def first_divergence(truth: list[torch.Tensor], other: list[torch.Tensor]) -> int | None:
    for i, (a, b) in enumerate(zip(truth, other)):
        if a.shape != b.shape or not torch.equal(a, b):
            return i + 1
    return None if len(truth) == len(other) else min(len(truth), len(other)) + 1


def compare(truth: dict, other: dict) -> dict:
    rows = {}
    sr = truth["sample_rate"]
    for key, t in truth["renders"].items():
        o = other["renders"][key]
        a, b = t["audio"].numpy(), o["audio"].numpy()
        rows[key] = {"token_agreement": token_agreement(t["tokens"], o["tokens"]),
                     "first_divergence": first_divergence(t["steps"], o["steps"]),
                     "log_mel_l1": log_mel_distance(a, b, sr), "log_mel_cosine": log_mel_cosine(a, b, sr)}
    agreements = [r["token_agreement"] for r in rows.values() if r["token_agreement"] is not None]
    divs = [r["first_divergence"] for r in rows.values()]
    dists = [r["log_mel_l1"] for r in rows.values() if r["log_mel_l1"] is not None]
    return {"mean_token_agreement": round(float(np.mean(agreements)), 4) if agreements else None,
            "min_token_agreement": round(float(np.min(agreements)), 4) if agreements else None,
            "identical_renders": sum(d is None for d in divs), "renders": len(divs),
            "median_first_divergence": float(np.median([d for d in divs if d is not None]))
            if any(d is not None for d in divs) else None,
            "mean_log_mel_l1": round(float(np.mean(dists)), 4) if dists else None,
            # a clone's prompt is each precision's own encoding of the same clip
            "clone_prompt_equal": None if truth.get("prompt_tokens") is None
            else bool(torch.equal(truth["prompt_tokens"], other["prompt_tokens"])),
            "cases": rows}


def run_checkpoint(folder: Path, args, work: Path) -> dict:
    results, out = {}, {}
    for precision in args.precisions.split(","):
        dump = work / f"{folder.name}-{precision}.pt"
        name, _, nth = precision.partition("@")  # int8@2: the int8 load with the second plan
        plan = args.int8_plan[int(nth or 1) - 1] if args.int8_plan else ""
        cmd = [sys.executable, __file__, "--child", str(dump), "--precision", name,
               "--checkpoint", str(folder), "--cases", args.cases, "--seeds", args.seeds,
               "--steps", str(args.steps)] + (["--int8-plan", plan] if plan and name == "int8" else []) + (
                   ["--threads", str(args.threads)] if args.threads else [])
        subprocess.run(cmd, check=True)
        out[precision] = torch.load(dump, weights_only=False)
        seconds = [r["seconds"] for r in out[precision]["renders"].values()]
        results[precision] = {"load_s": round(out[precision]["load_s"], 2),
                              "peak_load_gib": round(out[precision]["peak_load_gib"], 3),
                              "peak_render_gib": round(out[precision]["peak_render_gib"], 3),
                              "total_render_s": round(sum(seconds), 2),
                              "median_render_s": round(float(np.median(seconds)), 3)}
        print(f"{folder.name} {precision}: {results[precision]}", flush=True)
    truth = out.get("fp32")
    if truth is not None:
        for precision, dump in out.items():
            if precision != "fp32":
                summary = compare(truth, dump)
                results[precision]["vs_fp32"] = summary
                results[precision]["speedup_vs_fp32"] = round(
                    results["fp32"]["total_render_s"] / results[precision]["total_render_s"], 2)
                print(f"{folder.name} {precision} vs fp32: agreement {summary['mean_token_agreement']} "
                      f"(min {summary['min_token_agreement']}), identical {summary['identical_renders']}"
                      f"/{summary['renders']}, median first divergence "
                      f"{summary['median_first_divergence']}, log-mel L1 {summary['mean_log_mel_l1']}",
                      flush=True)
    return results


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        return run_child(args)
    from studio.engine.precision import _linux_cpu_flags, cpu_bf16_feature, cpu_int8_feature
    from studio.engine.random_checkpoint import build_random_checkpoint

    work = Path(tempfile.mkdtemp(prefix="omnivoice-int8-"))
    try:
        folder = args.checkpoint
        if folder is None:
            folder = build_random_checkpoint(work / "random", args.size)
        margins_dir = args.margins_dir or work / "margins"
        stats = margins_dir / "margins.json"
        if stats.exists():
            margins = json.loads(stats.read_text())
        else:
            margins = margin_checkpoint(folder, margins_dir, args.margin, args.cases.split(",")[0])
            stats.write_text(json.dumps(margins))
        print(f"margins checkpoint: {margins}", flush=True)
        report = {"cpu_flags": sorted(f for f in _linux_cpu_flags() if f.startswith(("avx", "amx"))),
                  "bf16_feature": cpu_bf16_feature(), "int8_feature": cpu_int8_feature(),
                  "torch": torch.__version__, "threads": args.threads or os.cpu_count(),
                  "size": args.size if args.checkpoint is None else str(args.checkpoint),
                  "steps": args.steps, "seeds": args.seeds, "int8_plan": args.int8_plan, "cases": args.cases, "margins": margins,
                  "loadavg_start": [round(x, 2) for x in os.getloadavg()]}
        for name, where in (("random", folder), ("realistic_margins", margins_dir)):
            if args.only in (None, name):
                report[name] = run_checkpoint(where, args, work)
        report["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        if args.json_out:
            args.json_out.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
