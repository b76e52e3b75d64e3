"""Time to first audio: our streamed render against our whole render and the reference's.

One run, on whatever device this is, on a full-size random checkpoint (or ``--checkpoint``):
a four-sentence paragraph in a designed voice, 16 steps, rendered

* by us, streamed (quick-start chunking, the studio's and the CLI's default): the time
  from the call to the first chunk's audio, and to the whole take;
* by the reference (omnivoice 0.2.1, ``generate``, fp32 as it runs on a CPU): the whole
  render, which is when its first audio exists.

Ratios in one run: reference whole / our first audio (the issue's goal: 4x or more),
our whole / our first audio, reference whole / our whole. One warm-up each, then
alternating runs; medians. Nothing here asserts on time.

Usage (from the repository root)::

    python benchmarks/bench_stream.py [--checkpoint DIR] [--steps 16] [--repeats 2]
        [--precision auto] [--threads N] [--json-out stream.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):  # run as a script from anywhere
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import GREEDY, machine_info, timed  # noqa: E402

from studio.engine.engine import Engine, SynthesisItem  # noqa: E402
from studio.engine.options import DecodeOptions, GenerationOptions  # noqa: E402
from studio.engine.random_checkpoint import build_random_checkpoint  # noqa: E402

PARAGRAPH = ("The storm rolled in over the hills just after noon. Farmers hurried to bring "
             "their animals inside before the rain. By evening the river had risen past the "
             "old stone bridge. Nobody in the village could remember a flood like it.")
INSTRUCT = "female, low pitch, british accent"
SEED = 7


def cpu_flags() -> str:
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return "unknown"
    wanted = ("avx2", "avx512f", "avx512_bf16", "amx_bf16")
    return " ".join(f for f in wanted if f in flags) or "none of avx2/avx512"


def ours(engine: Engine, steps: int) -> dict:
    options = GenerationOptions(decode=DecodeOptions(num_step=steps, **GREEDY))
    item = SynthesisItem(PARAGRAPH, language="en", instruct=INSTRUCT, seed=SEED)
    marks: list[tuple[float, int]] = []
    start = time.perf_counter()
    [render] = engine.synthesize(
        [item], options, on_chunk=lambda c: marks.append((time.perf_counter() - start, c.total)))
    whole = time.perf_counter() - start
    return {"first_audio_s": marks[0][0], "whole_s": whole, "chunks": len(marks),
            "first_chunk_audio_s": marks[0][1] / render.sample_rate,
            "audio_s": render.audio.size / render.sample_rate}


def reference(model, steps: int) -> dict:
    wall, audios = timed(lambda: model.generate(
        text=PARAGRAPH, language="en", instruct=INSTRUCT, num_step=steps, **GREEDY))
    return {"whole_s": wall, "audio_s": audios[0].shape[-1] / 24000}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="a checkpoint folder (default: build one)")
    parser.add_argument("--size", default="full", choices=("tiny", "full"))
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--precision", default="auto", help="ours (the reference runs fp32)")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    import omnivoice

    with tempfile.TemporaryDirectory(prefix="bench-stream-") as tmp:
        folder = args.checkpoint
        if folder is None:
            print(f"building a {args.size} random checkpoint ...", file=sys.stderr, flush=True)
            folder = build_random_checkpoint(Path(tmp) / "OmniVoice", args.size)
        engine = Engine.load(folder, device="cpu", precision=args.precision)
        model = omnivoice.OmniVoice.from_pretrained(str(folder), dtype=torch.float32,
                                                    device_map="cpu").eval()
        ours(engine, args.steps), reference(model, args.steps)  # warm-up
        mine, theirs = [], []
        for _ in range(args.repeats):
            mine.append(ours(engine, args.steps))
            theirs.append(reference(model, args.steps))

    def median(rows, key):
        return statistics.median(r[key] for r in rows)

    first, whole, ref = median(mine, "first_audio_s"), median(mine, "whole_s"), median(theirs, "whole_s")
    result = {
        "machine": {**machine_info(), "cpu_flags": cpu_flags()},
        "checkpoint": str(args.checkpoint) if args.checkpoint else f"random {args.size}",
        "steps": args.steps, "repeats": args.repeats,
        "ours_precision": str(engine.dtype).removeprefix("torch."),
        "ours": {"first_audio_s": round(first, 3), "whole_s": round(whole, 3),
                 "chunks": mine[0]["chunks"], "first_chunk_audio_s": round(mine[0]["first_chunk_audio_s"], 2),
                 "audio_s": round(mine[0]["audio_s"], 2)},
        "reference": {"whole_s": round(ref, 3), "audio_s": round(theirs[0]["audio_s"], 2)},
        "reference_whole_over_our_first_audio": round(ref / first, 2),
        "our_whole_over_our_first_audio": round(whole / first, 2),
        "reference_whole_over_our_whole": round(ref / whole, 2),
    }
    m = result["machine"]
    print(f"\nTime to first audio, {result['checkpoint']} checkpoint, {args.steps} steps, "
          f"ours {result['ours_precision']}, reference fp32; {m['cpu']} ({m['cpu_flags']}), "
          f"{m['torch_threads']} threads; median of {args.repeats}")
    print(f"  ours: first audio {first:.2f} s (chunk 1 of {mine[0]['chunks']}, "
          f"{mine[0]['first_chunk_audio_s']:.1f} s of audio), whole {whole:.2f} s "
          f"({mine[0]['audio_s']:.1f} s of audio)")
    print(f"  reference: whole {ref:.2f} s ({theirs[0]['audio_s']:.1f} s of audio)")
    print(f"  reference whole / our first audio: {ref / first:.2f}x;  our whole / our first "
          f"audio: {whole / first:.2f}x;  reference whole / our whole: {ref / whole:.2f}x")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
