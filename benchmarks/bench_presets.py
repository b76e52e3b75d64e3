"""What each quality preset (decoding step count) costs in time on this CPU, per precision.

ONE process loads the checkpoint once per precision (bf16 and int8 by default) and
renders the same ~10 s design utterance (``--duration`` fixes the output length, so
every render decodes the same number of frames) at each step count, interleaved: for
each round and step count, every precision renders once, the precision order
alternating by round, so load from other work on a shared machine falls on all of them
alike. Each number is the whole ``synthesize`` call, after a one-step warm-up per
engine; the load average is printed beside each one.

Usage (from the repository root)::

    python benchmarks/bench_presets.py --checkpoint DIR [--steps 8,12,16,32]
        [--precisions bf16,int8,int8@o_proj:bf16] [--rounds 1] [--duration 10] [--json-out F]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TEXT = ("The harbour was quiet this morning; a few boats drifted out past the lighthouse "
        "while the gulls argued over the nets.")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True)
    p.add_argument("--steps", default="8,12,16,32")
    p.add_argument("--precisions", default="bf16,int8")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--duration", type=float, default=10.0, help="output seconds")
    p.add_argument("--threads", type=int)
    p.add_argument("--json-out", type=Path)
    return p.parse_args(argv)


def load(checkpoint: Path, precision: str):
    """``int8@o_proj:bf16/down_proj:int8x2`` loads int8 with that plan (int8.DEFAULT_PLAN)."""
    import studio.engine.int8 as int8
    from studio.engine.engine import Engine

    name, _, plan = precision.partition("@")
    default = int8.DEFAULT_PLAN
    if plan:
        int8.DEFAULT_PLAN = {**default, **dict(part.split(":") for part in plan.split("/"))}
    try:
        return Engine.load(checkpoint, device="cpu", precision=name)
    finally:
        int8.DEFAULT_PLAN = default


def main(argv=None) -> int:
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import GenerationOptions, SynthesisItem

    args = parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    precisions = args.precisions.split(",")
    steps = [int(s) for s in args.steps.split(",")]
    engines = {p: load(args.checkpoint, p) for p in precisions}
    item = SynthesisItem(text=TEXT, instruct="female, low pitch", duration=args.duration, seed=0)

    def render(engine, n: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        [r] = engine.synthesize([item], GenerationOptions(decode=DecodeOptions(num_step=n)))
        return time.perf_counter() - t0, len(r.audio) / r.sample_rate

    for engine in engines.values():
        render(engine, 1)
    rows = []
    for rnd in range(args.rounds):
        order = precisions if rnd % 2 == 0 else precisions[::-1]
        for n in steps:
            for p in order:
                before = os.getloadavg()[0]
                seconds, audio_s = render(engines[p], n)
                row = {"round": rnd, "steps": n, "precision": p, "seconds": round(seconds, 2),
                       "audio_s": round(audio_s, 2), "loadavg_1m_before": round(before, 2),
                       "loadavg_1m_after": round(os.getloadavg()[0], 2)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    summary = {}
    for p in precisions:
        for n in steps:
            times = [r["seconds"] for r in rows if r["precision"] == p and r["steps"] == n]
            summary[f"{p}/{n}"] = round(sorted(times)[len(times) // 2], 2)
    print(json.dumps({"median_seconds": summary}), flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps({
            "checkpoint": str(args.checkpoint), "torch": torch.__version__,
            "threads": torch.get_num_threads(), "duration": args.duration, "text": TEXT,
            "precision_reasons": {p: e.precision_reason for p, e in engines.items()},
            "rows": rows, "median_seconds": summary}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
