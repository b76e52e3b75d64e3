"""Peak resident memory per precision, at load and during a render (issue 30).

Each row is ONE fresh child process (so no peak is inherited from an earlier model):
it loads the checkpoint, reads its peak resident set (VmHWM: the whole process,
torch, tokenizer, codec and network), then clones a voice from a 4.2 s clip and
renders ~10 s of speech with it (greedy, ``--steps`` steps, the default packed path;
bf16 prepacks its weights during this first render) and reads the peak again.
Rows: the reference (omnivoice 0.2.1, fp32, ``OmniVoice.from_pretrained``) and ours
in fp32, bf16 and int8. Memory, not speed: the seconds are printed with the load
average only so that a run can be told apart from a stalled one.

Usage (from the repository root)::

    python benchmarks/bench_memory.py --checkpoint DIR [--steps 8] [--seconds 10]
        [--rows reference,fp32,bf16,int8] [--json-out F]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

ROWS = ("reference", "fp32", "bf16", "int8")
FRAME_RATE = 25


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--seconds", type=float, default=10.0, help="target audio length")
    p.add_argument("--rows", default=",".join(ROWS))
    p.add_argument("--threads", type=int)
    p.add_argument("--json-out", type=Path)
    p.add_argument("--child", help=argparse.SUPPRESS)  # one row, printed as a JSON line
    return p.parse_args(argv)


def run_child(args) -> dict:
    import torch
    from bench_engine import (
        GREEDY,
        LANGUAGE,
        REF_CLIP_SECONDS,
        REF_TEXT,
        peak_rss_gib,
        speech_like,
        text_for,
    )

    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    row, sr = args.child, 24000
    clip = speech_like(REF_CLIP_SECONDS, sr, seed=3)
    t0 = time.perf_counter()
    if row == "reference":
        import omnivoice
        from bench_engine import run_reference

        from studio.engine.duration import DurationEstimator
        from studio.engine.prompt import VoicePrompt

        model = omnivoice.OmniVoice.from_pretrained(str(args.checkpoint), dtype=torch.float32,
                                                    device_map="cpu").eval()
        load_gib, load_s = peak_rss_gib(), time.perf_counter() - t0
        theirs = model.create_voice_clone_prompt((torch.from_numpy(clip), sr), ref_text=REF_TEXT)
        prompt = VoicePrompt(theirs.ref_audio_tokens.cpu(), theirs.ref_text, theirs.ref_rms)
        estimator = type("E", (), {"durations": DurationEstimator()})()
        text, frames = text_for(estimator, int(args.seconds * FRAME_RATE), prompt)
        t1 = time.perf_counter()
        audio, _ = run_reference(model, text=text, language=LANGUAGE, voice_clone_prompt=theirs,
                                 num_step=args.steps, **GREEDY)
        seconds_out = len(audio) / sr
    else:
        from studio.engine.decode import DecodeOptions
        from studio.engine.engine import Engine, GenerationOptions, SynthesisItem

        engine = Engine.load(args.checkpoint, device="cpu", precision=row)
        load_gib, load_s = peak_rss_gib(), time.perf_counter() - t0
        prompt = engine.create_prompt((clip, sr), ref_text=REF_TEXT)
        text, frames = text_for(engine, int(args.seconds * FRAME_RATE), prompt)
        t1 = time.perf_counter()
        [result] = engine.synthesize(
            [SynthesisItem(text=text, language=LANGUAGE, prompt=prompt, seed=0)],
            GenerationOptions(decode=DecodeOptions(num_step=args.steps, **GREEDY)))
        seconds_out = len(result.audio) / result.sample_rate
    return {"row": row, "peak_load_gib": round(load_gib, 2), "peak_render_gib": round(peak_rss_gib(), 2),
            "load_s": round(load_s, 1), "render_s": round(time.perf_counter() - t1, 1),
            "frames": frames, "audio_s": round(seconds_out, 2),
            "loadavg_end": round(os.getloadavg()[0], 2)}


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        print(json.dumps(run_child(args)), flush=True)
        return 0
    from bench_engine import log, machine_info

    machine = machine_info()
    log(f"machine: {machine}")
    rows = []
    for row in args.rows.split(","):
        cmd = [sys.executable, __file__, "--checkpoint", str(args.checkpoint), "--steps", str(args.steps),
               "--seconds", str(args.seconds), "--child", row]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        before = round(os.getloadavg()[0], 2)
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            log(f"{row} failed:\n{out.stderr[-2000:]}")
            continue
        rows.append({**json.loads(out.stdout.strip().splitlines()[-1]), "loadavg_start": before})
        log(json.dumps(rows[-1]))
    print("| row | peak at load (GiB) | peak after render (GiB) | load s | render s | load average |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['row']} | {r['peak_load_gib']:.2f} | {r['peak_render_gib']:.2f} | {r['load_s']} | "
              f"{r['render_s']} | {r['loadavg_start']} / {r['loadavg_end']} |")
    if args.json_out:
        payload = {"machine": machine, "steps": args.steps, "seconds": args.seconds, "rows": rows}
        args.json_out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
