"""N takes in one batched engine call against N single calls, as a speed-up ratio.

The studio's "Takes: N" renders N seeds of one line in one ``Engine.synthesize``
call. This measures what that saves against rendering the same N takes one call
at a time, on whatever device this is, and checks that batching does not change
a take: each seed's audio must be identical either way (``same audio``).

Usage (from the repository root)::

    python benchmarks/bench_takes.py                      # full-size random checkpoint, built in a temp folder
    python benchmarks/bench_takes.py --size tiny --steps 4 --takes 1,2,4   # a quick check
    python benchmarks/bench_takes.py --checkpoint ~/models/OmniVoice --device cuda --json-out takes.json

Options: ``--takes 1,2,4,8`` (the N values), ``--steps 16`` (Standard preset),
``--repeats 3`` (median of these timed runs, after one warm-up), ``--threads N``,
``--decode auto|padded|packed`` (auto: the studio's default), ``--precision``. A full-size build needs about 3 GB
of memory and a few minutes; the timings are medians, nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: make ``studio`` importable
    sys.path.insert(0, str(ROOT))

from studio.engine.engine import Engine, SynthesisItem  # noqa: E402
from studio.engine.options import DECODE_MODES, DecodeOptions, GenerationOptions  # noqa: E402
from studio.engine.random_checkpoint import build_random_checkpoint  # noqa: E402

TEXT = "Pick a reference clip, type what the voice should say, and press render."
INSTRUCT = "female, low pitch, british accent"
FIRST_SEED = 1000


def _sync(engine: Engine) -> None:
    if engine.device.type == "cuda":
        torch.cuda.synchronize(engine.device)


def _render(engine: Engine, seeds: list[int], options: GenerationOptions) -> tuple[float, list]:
    items = [SynthesisItem(TEXT, language="en", instruct=INSTRUCT, seed=s) for s in seeds]
    _sync(engine)
    start = time.perf_counter()
    out = engine.synthesize(items, options)
    _sync(engine)
    return time.perf_counter() - start, out


def measure(engine: Engine, n: int, options: GenerationOptions, repeats: int) -> dict:
    seeds = list(range(FIRST_SEED, FIRST_SEED + n))
    _render(engine, seeds, options)  # warm-up: allocator, kernels, caches
    batched, singles, same = [], [], True
    for repeat in range(repeats):
        total, alone = 0.0, []
        if repeat % 2:  # alternate which goes first, so warm caches favour neither
            seconds, together = _render(engine, seeds, options)
            batched.append(seconds)
        for seed in seeds:
            seconds, [take] = _render(engine, [seed], options)
            total += seconds
            alone.append(take)
        singles.append(total)
        if not repeat % 2:
            seconds, together = _render(engine, seeds, options)
            batched.append(seconds)
        same = same and all(np.array_equal(a.audio, b.audio) for a, b in zip(alone, together))
    audio_s = sum(t.audio.size / t.sample_rate for t in together)
    b, s = statistics.median(batched), statistics.median(singles)
    return {"takes": n, "batched_s": b, "singles_s": s, "speedup": s / b,
            "rtf_batched": b / audio_s, "rtf_singles": s / audio_s, "same_audio": same}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="a checkpoint folder (default: build one)")
    parser.add_argument("--size", default="full", choices=("tiny", "full"),
                        help="the random checkpoint to build when --checkpoint is not given")
    parser.add_argument("--takes", default="1,2,4,8", help="comma-separated N values")
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--decode", default="auto", choices=DECODE_MODES)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    ns = [int(n) for n in args.takes.split(",")]
    options = GenerationOptions(decode=DecodeOptions(num_step=args.steps), decode_mode=args.decode)

    with tempfile.TemporaryDirectory(prefix="bench-takes-") as tmp:
        checkpoint = args.checkpoint
        if checkpoint is None:
            print(f"building a {args.size} random checkpoint ...", file=sys.stderr, flush=True)
            checkpoint = build_random_checkpoint(Path(tmp) / "OmniVoice", args.size)
        engine = Engine.load(checkpoint, device=args.device, precision=args.precision)
        rows = [measure(engine, n, options, args.repeats) for n in ns]

    where = f"{engine.device} {str(engine.dtype).removeprefix('torch.')}"
    if engine.device.type == "cuda":
        where += f" ({torch.cuda.get_device_name(engine.device)})"
    else:
        where += f" ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"
    print(f"\nN takes in one call vs N calls: {checkpoint.name if args.checkpoint else args.size}"
          f" checkpoint, {args.steps} steps, {args.decode} decode, {where}, median of {args.repeats}")
    print(f"{'N':>3} {'batched s':>10} {'N singles s':>12} {'speed-up':>9} "
          f"{'RTF batched':>12} {'RTF singles':>12}  same audio")
    for r in rows:
        print(f"{r['takes']:>3} {r['batched_s']:>10.3f} {r['singles_s']:>12.3f} {r['speedup']:>8.2f}x "
              f"{r['rtf_batched']:>12.4f} {r['rtf_singles']:>12.4f}  {'yes' if r['same_audio'] else 'NO'}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"device": where, "steps": args.steps,
                                             "decode": args.decode, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
