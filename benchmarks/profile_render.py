"""Where a render's CPU time goes: torch.profiler over one whole render (issue 30).

Loads the checkpoint in ``--precision`` (bf16 by default, prepacked on a CPU with
native bf16), warms up with a one-step render, then profiles ONE render of a ~10 s
voice clone (greedy, ``--steps`` steps, the default packed path: decode loop and
codec) and prints the top operators by self CPU time, with their share of the total.

Usage (from the repository root)::

    python benchmarks/profile_render.py --checkpoint DIR [--precision bf16] [--steps 8]
        [--seconds 10] [--top 25] [--json-out F]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import torch  # noqa: E402
from bench_engine import (  # noqa: E402
    GREEDY,
    LANGUAGE,
    REF_CLIP_SECONDS,
    REF_TEXT,
    log,
    machine_info,
    speech_like,
    text_for,
)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True)
    p.add_argument("--precision", default="bf16")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--threads", type=int)
    p.add_argument("--json-out", type=Path)
    return p.parse_args(argv)


def main(argv=None) -> int:
    from torch.profiler import ProfilerActivity, profile

    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem

    args = parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    machine = machine_info()
    engine = Engine.load(args.checkpoint, device="cpu", precision=args.precision)
    sr = 24000
    prompt = engine.create_prompt((speech_like(REF_CLIP_SECONDS, sr, seed=3), sr), ref_text=REF_TEXT)
    text, frames = text_for(engine, int(args.seconds * 25), prompt)
    item = SynthesisItem(text=text, language=LANGUAGE, prompt=prompt, seed=0)

    def render(steps):
        return engine.synthesize([item], GenerationOptions(decode=DecodeOptions(num_step=steps, **GREEDY)))

    render(1)  # warm-up (and bf16's one-time prepacking)
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        render(args.steps)
    wall = time.perf_counter() - t0
    events = [e for e in prof.key_averages() if e.self_cpu_time_total > 0]
    total = sum(e.self_cpu_time_total for e in events)
    events.sort(key=lambda e: e.self_cpu_time_total, reverse=True)
    rows = [{"op": e.key, "self_cpu_s": round(e.self_cpu_time_total / 1e6, 2),
             "share": round(e.self_cpu_time_total / total, 4), "calls": e.count} for e in events[: args.top]]
    print(f"{args.precision}, {args.steps} steps, {frames} frames: {wall:.1f} s wall under the profiler, "
          f"load average {load_before:.2f} / {os.getloadavg()[0]:.2f}")
    print("| op | self CPU s | share | calls |\n|---|---:|---:|---:|")
    for r in rows:
        print(f"| `{r['op']}` | {r['self_cpu_s']} | {100 * r['share']:.1f} % | {r['calls']} |")
    if args.json_out:
        args.json_out.write_text(json.dumps({
            "machine": machine, "precision": args.precision, "steps": args.steps, "frames": frames,
            "wall_s": round(wall, 1), "loadavg": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "total_self_cpu_s": round(total / 1e6, 1), "top": rows}, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
