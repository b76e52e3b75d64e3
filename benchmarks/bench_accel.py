"""CPU speed of our decode paths against the reference (omnivoice 0.2.1), in one run.

One 10 s voice clone at 16 steps on a full-size random checkpoint, greedy
(``position_temperature=0``, ``class_temperature=0``) so that every path does
the same work and the fp32 paths must give the reference's tokens. Timed per
utterance (the whole ``generate`` / ``synthesize`` call: decode loop and codec),
each path after a one-step warm-up:

- reference: ``OmniVoice.generate`` in fp32 (its default CPU path);
- padded fp32: our reference-equal path (``decode_mode="padded"``);
- packed fp32: one row, per-document attention (``decode_mode="packed"``);
- packed bf16: the same in bf16 with the standard ``F.linear`` projections;
- packed bf16 prepacked: bf16 with oneDNN-prepacked weights
  (studio.engine.cpu_layers), the default on a CPU with native bf16;
- packed int8: W8A8 projections (studio.engine.int8), quantised at load;
- packed int8 gate/up: only the MLP's gate and up projections int8, not in the first
  and last two layers, the rest ``--gateup-rest`` (fp32 where bf16 is not native).

Paths run one model at a time (the reference, then our fp32 engine, then our
bf16 engine) so that at most one full-size model is resident. Printed and
written as JSON: wall seconds, process CPU seconds, load average, and ratios
against the reference; token equality of the fp32 paths with the reference,
and bf16 token agreement, SNR and log-mel cosine against padded fp32
(benchmarks/bench_precision.py has the measures).

To stand in for an AVX2-only CPU on a newer one, cap every library's ISA:
``ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2``
(recorded in the JSON's machine.isa_caps; clocks and caches stay this CPU's).

Usage (from the repository root)::

    python benchmarks/bench_accel.py [--checkpoint DIR] [--steps 16] [--seconds 10]
        [--repeats 1] [--paths reference,padded-fp32,...] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import torch

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from bench_engine import (  # noqa: E402
    GREEDY,
    LANGUAGE,
    REF_CLIP_SECONDS,
    REF_TEXT,
    log,
    machine_info,
    peak_rss_gib,
    run_reference,
    same_tokens,
    speech_like,
    text_for,
)
from bench_precision import similarity  # noqa: E402

FRAME_RATE = 25  # the codec's frames per second
PATHS = ("reference", "padded-fp32", "packed-fp32", "packed-bf16", "packed-bf16-prepacked",
         "packed-int8", "packed-int8-gateup")
EDGE = 2  # packed-int8-gateup: layers at each end kept out of int8 (int8.gate_up_plan)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, help="reuse this checkpoint folder (built there "
                   "and kept if it holds no config.json yet)")
    p.add_argument("--size", choices=("full", "tiny"), default="full",
                   help="checkpoint size to build (tiny: a smoke test of this script)")
    p.add_argument("--steps", type=int, default=16)
    p.add_argument("--seconds", type=float, default=10.0, help="target audio length (default 10)")
    p.add_argument("--repeats", type=int, default=1, help="timed runs per path (default 1)")
    p.add_argument("--threads", type=int, help="torch threads (default: os.cpu_count())")
    p.add_argument("--paths", default=",".join(PATHS), help="comma list of " + ", ".join(PATHS))
    p.add_argument("--gateup-rest", choices=("fp32", "bf16"),
                   help="what packed-int8-gateup makes of the other projections (default: bf16 "
                        "where this CPU has native bf16, else fp32)")
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    args.paths = [x.strip() for x in args.paths.split(",") if x.strip()]
    unknown = set(args.paths) - set(PATHS)
    if unknown:
        p.error(f"unknown path(s): {', '.join(sorted(unknown))}")
    return args


def time_runs(name: str, call, repeats: int) -> dict:
    """One warm-up-free series of timed runs (the caller warmed up)."""
    walls, cpus, loads, outputs = [], [], [], []
    for r in range(repeats):
        gc.collect()
        load_before = os.getloadavg()[0]
        cpu0, t0 = time.process_time(), time.perf_counter()
        outputs.append(call())
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        walls.append(wall)
        cpus.append(cpu)
        loads.append(round(max(load_before, os.getloadavg()[0]), 2))
        log(f"{name}: run {r + 1}/{repeats} {wall:.1f} s wall, {cpu:.1f} s CPU, load {loads[-1]}")
    return {"runs_s": [round(w, 2) for w in walls], "median_s": round(statistics.median(walls), 2),
            "cpu_s": [round(c, 2) for c in cpus], "median_cpu_s": round(statistics.median(cpus), 2),
            "loadavg": loads, "_out": outputs[0]}


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    import omnivoice

    from studio.engine.decode import DecodeOptions
    from studio.engine.duration import DurationEstimator
    from studio.engine.engine import GenerationOptions, SynthesisItem
    from studio.engine.prompt import VoicePrompt
    from studio.engine.random_checkpoint import build_random_checkpoint

    machine = machine_info()
    log(f"machine: {machine}")
    temp = None
    if args.checkpoint is not None and (args.checkpoint / "config.json").is_file():
        folder = args.checkpoint
    else:
        if args.checkpoint is not None:
            folder = args.checkpoint
        else:
            temp = Path(tempfile.mkdtemp(prefix="omnivoice-accel-"))
            folder = temp / "OmniVoice"
        log(f"building a {args.size} random checkpoint in {folder}")
        build_random_checkpoint(folder, args.size)
    steps, results = args.steps, {}
    settings = {"steps": steps, "target_seconds": args.seconds, "repeats": args.repeats,
                "size": args.size, **GREEDY}
    try:
        # ---- the reference: makes the voice prompt both sides use, then is timed
        log("loading the reference (fp32)")
        reference = omnivoice.OmniVoice.from_pretrained(str(folder), dtype=torch.float32,
                                                        device_map="cpu").eval()
        sr = 24000
        clip = speech_like(REF_CLIP_SECONDS, sr, seed=3)
        theirs = reference.create_voice_clone_prompt((torch.from_numpy(clip), sr), ref_text=REF_TEXT)
        prompt = VoicePrompt(theirs.ref_audio_tokens.cpu(), theirs.ref_text, theirs.ref_rms)

        def ref_call(num_step):
            audio, tokens = run_reference(reference, text=text, language=LANGUAGE,
                                          voice_clone_prompt=theirs, num_step=num_step, **GREEDY)
            return tokens, audio

        # The duration estimate needs no model: the text is fixed before anything runs.
        estimator = SimpleNamespace(durations=DurationEstimator())
        text, frames = text_for(estimator, int(args.seconds * FRAME_RATE), prompt)
        settings.update(target_frames=frames, text_chars=len(text),
                        prompt_frames=int(prompt.tokens.shape[-1]))
        log(f"clone: prompt {prompt.tokens.shape[-1]} frames, target {frames} frames")
        engine, loaded = None, None
        for name in PATHS:
            if name not in args.paths:
                continue
            precision = next((p for p in ("bf16", "int8") if p in name), "fp32")
            plan = gateup_plan(folder, args) if name == "packed-int8-gateup" else ()
            if name != "reference" and (engine is None or loaded != (precision, plan)):
                engine = None
                gc.collect()
                log(f"loading ours ({precision}{', plan ' + str(dict(plan)) if plan else ''})")
                engine = load_planned(folder, precision, plan)
                loaded = (precision, plan)
            if name == "reference":
                ref_call(1)  # warm-up
                results[name] = time_runs(name, lambda: ref_call(steps), args.repeats)
                reference = None
                gc.collect()
                continue
            mode = "padded" if name.startswith("padded") else "packed"
            engine.cpu_prepack = name.endswith(("prepacked", "int8", "gateup"))  # int8 packs at load
            item = SynthesisItem(text=text, language=LANGUAGE, prompt=prompt, seed=0)

            def ours(num_step, mode=mode, item=item, engine=engine):
                # Reference chunking: the reference's work (quick-start, the default since,
                # renders this text as two chunks, so neither tokens nor times compare).
                options = GenerationOptions(decode=DecodeOptions(num_step=num_step, **GREEDY),
                                            decode_mode=mode, chunking="reference")
                r = engine.synthesize([item], options)[0]
                return r.tokens, r.audio

            ours(1)  # warm-up (and the one-time weight prepacking)
            results[name] = time_runs(name, lambda: ours(steps), args.repeats)
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)

    print(report(results, settings, machine, sr))
    if args.json_out:
        clean = {k: {kk: vv for kk, vv in v.items() if kk != "_out"} for k, v in results.items()}
        payload = {"machine": machine, "settings": settings, "paths": clean,
                   "comparisons": comparisons(results, sr), "peak_rss_gib": round(peak_rss_gib(), 2),
                   "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}
        args.json_out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.json_out}")
    return 0


def gateup_plan(folder: Path, args) -> tuple:
    from studio.engine.int8 import gate_up_plan
    from studio.engine.precision import cpu_bf16_feature

    config = json.loads((folder / "config.json").read_text())
    rest = args.gateup_rest or ("bf16" if cpu_bf16_feature() else "fp32")
    return gate_up_plan(config["llm_config"]["num_hidden_layers"], EDGE, rest)


def load_planned(folder: Path, precision: str, plan: tuple):
    """Engine.load, with int8's plan replaced for this one load."""
    import studio.engine.int8 as int8
    from studio.engine.engine import Engine

    default = int8.DEFAULT_PLAN
    int8.DEFAULT_PLAN = {**default, **dict(plan)}
    try:
        return Engine.load(folder, device="cpu", precision=precision)
    finally:
        int8.DEFAULT_PLAN = default


def comparisons(results: dict, sample_rate: int) -> dict:
    """Speed ratios against the reference and output agreement with fp32: padded fp32, or
    packed fp32 where padded did not run (both give the reference's tokens)."""
    out = {}
    ref = results.get("reference")
    truth = next((n for n in ("padded-fp32", "packed-fp32") if n in results), None)
    base = results.get(truth) if truth else None
    for name, r in results.items():
        row = {}
        if ref is not None:
            row["speedup_wall"] = round(ref["median_s"] / r["median_s"], 2)
            row["speedup_cpu"] = round(ref["median_cpu_s"] / r["median_cpu_s"], 2)
            row["tokens_equal_reference"] = same_tokens(r["_out"][0], ref["_out"][0])
        if base is not None and name != truth:
            (tokens, audio), (btokens, baudio) = r["_out"], base["_out"]
            row.update(similarity(btokens, baudio, tokens, audio, sample_rate))
        out[name] = row
    return out


def report(results: dict, settings: dict, machine: dict, sample_rate: int) -> str:
    comp = comparisons(results, sample_rate)
    lines = [
        f"machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gib']} GiB, "
        f"torch {machine['torch']} ({machine['torch_threads']} threads), omnivoice {machine['omnivoice']}",
        f"flags: {' '.join(machine['cpu_flags'])}; ATen {machine['aten_cpu_capability']}"
        + (f"; capped to stand in for an older CPU: {machine['isa_caps']}" if machine["isa_caps"] else ""),
        f"10 s clone: {settings.get('target_frames')} frames, prompt {settings.get('prompt_frames')} "
        f"frames, {settings['steps']} steps, greedy; per utterance (decode + codec)",
        f"{'path':<24}{'wall s':>8}{'CPU s':>8}{'load':>6}{'x ref':>7}{'x ref CPU':>10}"
        f"{'= ref':>7}{'agree':>7}{'SNR dB':>8}{'mel cos':>8}",
    ]
    for name, r in results.items():
        c = comp[name]
        equal = c.get("tokens_equal_reference")
        lines.append(
            f"{name:<24}{r['median_s']:>8.1f}{r['median_cpu_s']:>8.1f}{max(r['loadavg']):>6.2f}"
            f"{c.get('speedup_wall', float('nan')):>7.2f}{c.get('speedup_cpu', float('nan')):>10.2f}"
            f"{('yes' if equal else 'no') if equal is not None else '-':>7}"
            f"{_fmt(c.get('token_agreement'), '.3f'):>7}{_fmt(c.get('snr_db'), '.1f'):>8}"
            f"{_fmt(c.get('log_mel_cosine'), '.3f'):>8}")
    lines.append(f"load average at end {[round(x, 2) for x in os.getloadavg()]}; "
                 f"peak RSS {peak_rss_gib():.2f} GiB")
    return "\n".join(lines)


def _fmt(value, spec: str) -> str:
    if value is None:
        return "-"
    return format(value, spec) if isinstance(value, float) else str(value)


if __name__ == "__main__":
    sys.exit(main())
