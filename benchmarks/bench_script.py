"""A script rendered batched by voice against one reference ``generate`` call per line.

A 40-line dialogue of three speakers (two designed voices, one cloned from a synthetic
clip), full-size random checkpoint (or ``--checkpoint``), 12 steps, on this device:

* ours: ``studio.scripts.render.render_script``, the lines of each voice in batches
  (what ``omnivoice-desktop script render`` does), mixed with pauses and normalised;
* the reference (omnivoice 0.2.1, fp32 as it runs on a CPU): 40 ``generate`` calls in
  turn, one per line, the same voices (the clone from the same prompt tokens).

The ratio of the two wall times, in one run. Nothing here asserts on time.

Usage (from the repository root)::

    python benchmarks/bench_script.py [--lines 40] [--steps 12] [--checkpoint DIR]
        [--precision auto] [--json-out script.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import GREEDY, machine_info, speech_like  # noqa: E402
from bench_stream import cpu_flags  # noqa: E402

from studio.engine.engine import Engine  # noqa: E402
from studio.engine.options import DecodeOptions, GenerationOptions  # noqa: E402
from studio.engine.random_checkpoint import build_random_checkpoint  # noqa: E402
from studio.scripts.parse import parse_text  # noqa: E402
from studio.scripts.render import VoiceSpec, render_script  # noqa: E402

SAYINGS = ["Did you hear the storm last night?", "The river rose past the old bridge.",
           "We should check on the farm today.", "I will bring the boots and the coats.",
           "Nobody remembers a flood like this one.", "Let us go before the rain returns."]
VOICES = {"Alice": "female, young adult", "Bob": "male, low pitch"}
REF_TEXT = "This short clip gives the voice that the benchmark clones today."


def dialogue(lines: int) -> str:
    names = ["Alice", "Bob", "Carol"]
    return "\n".join(f"{names[n % 3]}: {SAYINGS[n % len(SAYINGS)]}" for n in range(lines))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path)
    parser.add_argument("--size", default="full", choices=("tiny", "full"))
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--precision", default="auto", help="ours (the reference runs fp32)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    import omnivoice

    script = parse_text(dialogue(args.lines))
    with tempfile.TemporaryDirectory(prefix="bench-script-") as tmp:
        folder = args.checkpoint
        if folder is None:
            print(f"building a {args.size} random checkpoint ...", file=sys.stderr, flush=True)
            folder = build_random_checkpoint(Path(tmp) / "OmniVoice", args.size)
        engine = Engine.load(folder, device="cpu", precision=args.precision)
        model = omnivoice.OmniVoice.from_pretrained(str(folder), dtype=torch.float32,
                                                    device_map="cpu").eval()
        clip = speech_like(4.2)
        theirs_prompt = model.create_voice_clone_prompt(
            ref_audio=(torch.from_numpy(clip).unsqueeze(0), 24000), ref_text=REF_TEXT)
        from studio.engine.prompt import VoicePrompt

        ours_prompt = VoicePrompt(theirs_prompt.ref_audio_tokens.cpu(), theirs_prompt.ref_text,
                                  theirs_prompt.ref_rms)
        voices = {name: VoiceSpec(instruct=text, seed=n) for n, (name, text)
                  in enumerate(VOICES.items())}
        voices["Carol"] = VoiceSpec(prompt=ours_prompt)
        options = GenerationOptions(decode=DecodeOptions(num_step=args.steps, **GREEDY))
        render_script(engine, parse_text(dialogue(3)), voices, options, seed=1)  # warm-up
        start = time.perf_counter()
        rendered = render_script(engine, script, voices, options, seed=1)
        ours = time.perf_counter() - start

        def reference_line(line):
            if line.speaker == "Carol":
                return model.generate(text=line.text, voice_clone_prompt=theirs_prompt,
                                      num_step=args.steps, **GREEDY)
            return model.generate(text=line.text, instruct=VOICES[line.speaker],
                                  num_step=args.steps, **GREEDY)

        reference_line(script.lines[0])  # warm-up
        start = time.perf_counter()
        audio_s = sum(reference_line(line)[0].shape[-1] / 24000 for line in script.lines)
        reference = time.perf_counter() - start

    result = {"machine": {**machine_info(), "cpu_flags": cpu_flags()},
              "lines": len(script.lines), "speakers": script.speakers, "steps": args.steps,
              "ours_precision": str(engine.dtype).removeprefix("torch."),
              "ours_s": round(ours, 2), "reference_s": round(reference, 2),
              "ratio": round(reference / ours, 2), "mix_s": round(rendered.seconds, 2),
              "reference_audio_s": round(audio_s, 2)}
    m = result["machine"]
    print(f"\n{len(script.lines)}-line, {len(script.speakers)}-speaker script, {args.steps} steps, "
          f"{result['ours_precision']} ours, fp32 reference; {m['cpu']} ({m['cpu_flags']}), "
          f"{m['torch_threads']} threads")
    print(f"  ours, batched by voice: {ours:.1f} s ({rendered.seconds:.1f} s mix)")
    print(f"  reference, {len(script.lines)} generate calls: {reference:.1f} s "
          f"({audio_s:.1f} s of audio)")
    print(f"  reference / ours: {reference / ours:.2f}x")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
