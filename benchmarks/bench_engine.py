"""Benchmark our engine against the reference (omnivoice 0.2.1) on a full-size random checkpoint.

One run, on whatever CPU this is:

1. builds a random checkpoint with the real model's shapes (Qwen3 1024 x 28,
   8 x 1025-row audio heads, the real HiggsAudioV2 codec shape) into a temp
   folder, or reuses one given with ``--checkpoint``;
2. loads it through ``Engine.load`` and ``omnivoice.OmniVoice.from_pretrained``
   (load seconds, process RSS);
3. renders one short voice-design line through our engine with ``num_step=1``,
   to prove the full-size model decodes end to end;
4. times the reference's ``generate`` against our ``synthesize`` on identical
   inputs (a voice clone from a synthetic ~4 s clip, whose reference-made
   prompt tokens both sides use, and a voice design), greedy
   (``position_temperature=0``, ``class_temperature=0``) so both do the same
   work and must give the same tokens; one warm-up each, then alternating
   ref/ours runs;
5. prints a table, and the same numbers as JSON with ``--json-out``.

This is a measurement, not a test: nothing here asserts on time.

Usage (from the repository root)::

    python benchmarks/bench_engine.py [--checkpoint DIR] [--keep] [--steps 16]
        [--repeats 2] [--threads N] [--seconds 10] [--cases clone,design]
        [--json-out results.json]

Peak memory is about both models at fp32 (~3.3 GB each) plus activations.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
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

T0 = time.perf_counter()

GREEDY = {"position_temperature": 0.0, "class_temperature": 0.0}
REF_CLIP_SECONDS = 4.2
REF_TEXT = "This short clip gives the voice that the benchmark clones today."
INSTRUCT = "female, low pitch, british accent"
LANGUAGE = "en"
SENTENCES = (
    "The studio turns written text into natural sounding speech on your own computer.",
    "Pick a reference clip, type what the voice should say, and press render.",
    "The weather is lovely this morning, so we are going for a walk in the park.",
    "She sells sea shells by the sea shore, and the shells she sells are surely seashells.",
    "The quick brown fox jumps over the lazy dog while the cat watches from the window.",
    "Thank you for listening, and see you again tomorrow at the same time.",
    "What time is it? It is half past seven, and dinner is almost ready.",
    "Please speak slowly and clearly, and keep the microphone away from the fan.",
)


def log(message: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f}s] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- machine / memory


def _proc_status(key: str) -> float:
    """A /proc/self/status field in GiB (VmRSS: now, VmHWM: peak)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return float("nan")


def rss_gib() -> float:
    return _proc_status("VmRSS")


def memory() -> dict:
    """RSS now, split into private (anon) and file-backed pages (mmapped safetensors)."""
    return {"rss_gib": round(_proc_status("VmRSS"), 2),
            "anon_gib": round(_proc_status("RssAnon"), 2),
            "file_gib": round(_proc_status("RssFile"), 2)}


def peak_rss_gib() -> float:
    return _proc_status("VmHWM")


def machine_info() -> dict:
    cpu = platform.processor() or "unknown"
    mem_gib = float("nan")
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = int(line.split()[1]) / 2**20
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    import transformers

    try:
        from importlib.metadata import version

        omnivoice_version = version("omnivoice")
    except Exception:
        omnivoice_version = "unknown"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": round(mem_gib, 1),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "omnivoice": omnivoice_version,
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "cpu_flags": sorted(_cpu_flags() & SPEED_FLAGS),
        # An ISA cap makes this CPU stand in for an older class (e.g. AVX2 only): say so.
        "isa_caps": {k: os.environ[k] for k in ISA_CAPS if os.environ.get(k)},
        "aten_cpu_capability": torch.backends.cpu.get_cpu_capability(),
    }


# The /proc/cpuinfo flags that pick a CPU class's kernels, and the variables that cap them.
SPEED_FLAGS = frozenset({"avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni",
                         "amx_tile", "amx_bf16", "amx_int8"})
ISA_CAPS = ("ONEDNN_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS")


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {f for line in text.splitlines() if line.startswith("flags") for f in line.split(":", 1)[1].split()}


# --------------------------------------------------------------------------- inputs


def speech_like(seconds: float, sample_rate: int = 24000, seed: int = 0) -> np.ndarray:
    """Voiced bursts with pauses (as in tests/conftest.py): real work for the codec."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    voiced = np.sin(2 * np.pi * np.cumsum(pitch) / sample_rate) + 0.3 * rng.standard_normal(t.size)
    gate = (np.sin(2 * np.pi * 1.3 * t) > -0.3).astype(np.float64)
    return (0.2 * voiced * gate).astype(np.float32)


def text_for(engine, frames_wanted: int, prompt) -> tuple[str, int]:
    """Add words until the duration estimate reaches ``frames_wanted`` frames."""
    words = " ".join(SENTENCES * 20).split()
    text, frames = "", 0
    for n in range(1, len(words) + 1):
        text = " ".join(words[:n])
        if text[-1] not in ".?!":
            text = text.rstrip(",;") + "."
        if prompt is None:
            frames = engine.durations.target_frames(text, None, None, 1.0)
        else:
            frames = engine.durations.target_frames(text, prompt.text, prompt.tokens.shape[-1], 1.0)
        if frames >= frames_wanted:
            break
    return text, frames


# --------------------------------------------------------------------------- running


def run_reference(model, **kwargs):
    """The reference's audio of one item, plus the tokens it decoded (a list of chunks)."""
    audios, seen = reference_tokens(model, **kwargs)
    return audios[0], seen[0]


def reference_tokens(model, **kwargs):
    """The reference's ``generate(**kwargs)``: its audios, and the tokens it decoded for
    each item (a list of chunks per item)."""
    seen = []
    original = model._decode_and_post_process

    def spy(tokens, rms, config):
        seen.append([t.cpu() for t in tokens] if isinstance(tokens, list) else [tokens.cpu()])
        return original(tokens, rms, config)

    model._decode_and_post_process = spy
    try:
        audios = model.generate(**kwargs)
    finally:
        del model._decode_and_post_process
    return audios, seen


def timed(fn, cpu: list | None = None):
    """Wall seconds of ``fn()`` and its result; appends the CPU seconds used to ``cpu``."""
    gc.collect()
    cpu_start = time.process_time()
    start = time.perf_counter()
    result = fn()
    wall = time.perf_counter() - start
    if cpu is not None:
        cpu.append(time.process_time() - cpu_start)
    return wall, result


def same_tokens(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(torch.equal(x.cpu(), y.cpu()) for x, y in zip(a, b))


def bench_case(name, ref_call, our_call, repeats: int, sample_rate: int, frame_rate: int) -> dict:
    """Warm up each side once, then alternate ref, ours, ref, ours, ..."""
    times = {"reference": [], "ours": []}
    cpu = {"reference": [], "ours": []}  # process CPU seconds per timed run
    outputs = {"reference": [], "ours": []}  # (tokens, audio seconds) per run
    calls = {"reference": ref_call, "ours": our_call}
    for side in ("reference", "ours"):
        log(f"{name}: warm-up {side}")
        seconds, out = timed(calls[side])
        log(f"{name}: warm-up {side} took {seconds:.1f} s")
        outputs[side].append(out)
    for r in range(repeats):
        for side in ("reference", "ours"):
            seconds, out = timed(calls[side], cpu[side])
            log(f"{name}: run {r + 1}/{repeats} {side} took {seconds:.1f} s "
                f"(CPU {cpu[side][-1] / seconds:.2f} x wall, load {os.getloadavg()[0]:.2f})")
            times[side].append(seconds)
            outputs[side].append(out)

    ref_tokens, ref_audio = outputs["reference"][0]
    our_tokens, our_audio = outputs["ours"][0]
    equal = all(same_tokens(t, ref_tokens) for t, _ in outputs["reference"] + outputs["ours"])
    frames = sum(t.shape[-1] for t in our_tokens)
    audio_s = our_audio.shape[-1] / sample_rate
    result = {"frames": frames, "token_seconds": frames / frame_rate, "audio_seconds": audio_s,
              "reference_audio_seconds": ref_audio.shape[-1] / sample_rate,
              "chunks": len(our_tokens), "tokens_equal": equal,
              "audio_max_abs_diff": (float(np.abs(our_audio - ref_audio).max())
                                     if our_audio.shape == ref_audio.shape else None)}
    for side in ("reference", "ours"):
        median = statistics.median(times[side])
        result[side] = {"runs_s": [round(t, 3) for t in times[side]], "median_s": round(median, 3),
                        "rtf": round(median / audio_s, 3) if audio_s else None,
                        # CPU seconds / wall seconds; near the thread count when nothing competes
                        "cpu_per_wall": [round(c / t, 2) for c, t in zip(cpu[side], times[side])],
                        "median_cpu_s": round(statistics.median(cpu[side]), 3),
                        "min_s": round(min(times[side]), 3)}
    result["ratio_ref_over_ours"] = round(
        result["reference"]["median_s"] / result["ours"]["median_s"], 3)
    # The fastest run is the one least disturbed by anything else on the machine.
    result["min_ratio_ref_over_ours"] = round(
        result["reference"]["min_s"] / result["ours"]["min_s"], 3)
    # Less sensitive to other processes competing for the cores than wall time.
    result["cpu_ratio_ref_over_ours"] = round(
        result["reference"]["median_cpu_s"] / result["ours"]["median_cpu_s"], 3)
    return result


# --------------------------------------------------------------------------- main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, help="reuse this checkpoint folder (built there "
                   "and kept if it holds no config.json yet)")
    p.add_argument("--keep", action="store_true", help="keep the temp checkpoint folder")
    p.add_argument("--size", choices=("full", "tiny"), default="full",
                   help="checkpoint size to build (tiny: a smoke test of this script)")
    p.add_argument("--steps", type=int, default=16, help="decoding steps (default 16)")
    p.add_argument("--repeats", type=int, default=2, help="timed runs per side (default 2)")
    p.add_argument("--threads", type=int, help="torch threads (default: os.cpu_count())")
    p.add_argument("--seconds", type=float, default=10.0,
                   help="approximate target audio length (default 10)")
    p.add_argument("--cases", default="clone,design", help="comma list of clone, design")
    p.add_argument("--json-out", type=Path, help="also write the results here as JSON")
    args = p.parse_args(argv)
    args.cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = set(args.cases) - {"clone", "design"}
    if unknown:
        p.error(f"unknown case(s): {', '.join(sorted(unknown))}")
    if args.steps < 1 or args.repeats < 1:
        p.error("--steps and --repeats must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    results: dict = {"settings": {"steps": args.steps, "repeats": args.repeats,
                                  "target_seconds": args.seconds, "size": args.size,
                                  "cases": args.cases, **GREEDY}}

    t = time.perf_counter()
    import omnivoice
    import transformers  # noqa: F401
    from transformers import AutoTokenizer, HiggsAudioV2TokenizerModel  # noqa: F401

    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
    from studio.engine.prompt import VoicePrompt
    from studio.engine.random_checkpoint import build_random_checkpoint

    results["import_s"] = round(time.perf_counter() - t, 2)
    results["machine"] = machine_info()
    m = results["machine"]
    machine_line = (f"{m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
                    f"{m['memory_gib']} GiB RAM, Python {m['python']}, torch {m['torch']} "
                    f"({m['torch_threads']} threads), transformers {m['transformers']}, "
                    f"omnivoice {m['omnivoice']}")
    log(f"machine: {machine_line}")

    temp_dir = None
    try:
        # ---- 1. checkpoint
        if args.checkpoint is not None:
            folder = args.checkpoint
            reused = (folder / "config.json").is_file()
        else:
            temp_dir = Path(tempfile.mkdtemp(prefix="omnivoice-bench-"))
            folder = temp_dir / "OmniVoice"
            reused = False
        if reused:
            log(f"reusing checkpoint {folder}")
            build_s = None
        else:
            log(f"building a {args.size} random checkpoint in {folder}")
            build_s, _ = timed(lambda: build_random_checkpoint(folder, args.size))
            log(f"built in {build_s:.1f} s")
        size_bytes = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        # Read every file once so that neither load pays for a cold page cache.
        cache_s, _ = timed(lambda: [f.read_bytes() and None for f in folder.rglob("*")
                                    if f.is_file()])
        results["checkpoint"] = {"path": str(folder), "reused": reused,
                                 "build_s": round(build_s, 2) if build_s is not None else None,
                                 "size_gb": round(size_bytes / 1e9, 3),
                                 "cache_warm_read_s": round(cache_s, 2)}

        # ---- 2. loads, one after the other
        rss0 = rss_gib()
        log("loading ours: Engine.load(device=cpu, precision=fp32)")
        ours_load_s, engine = timed(lambda: Engine.load(folder, device="cpu", precision="fp32"))
        rss1 = rss_gib()
        log(f"ours loaded in {ours_load_s:.1f} s, RSS {rss1:.2f} GiB")
        log("loading reference: OmniVoice.from_pretrained(dtype=float32, device_map=cpu)")
        ref_load_s, reference = timed(lambda: omnivoice.OmniVoice.from_pretrained(
            str(folder), dtype=torch.float32, device_map="cpu").eval())
        rss2 = rss_gib()
        log(f"reference loaded in {ref_load_s:.1f} s, RSS {rss2:.2f} GiB")
        mem_loaded = memory()
        n_params = sum(p.numel() for p in engine.net.parameters())
        n_codec = sum(p.numel() for p in engine.codec.parameters())
        results["load"] = {
            "rss_before_gib": round(rss0, 2),
            "ours": {"seconds": round(ours_load_s, 2), "rss_after_gib": round(rss1, 2),
                     "rss_added_gib": round(rss1 - rss0, 2)},
            "reference": {"seconds": round(ref_load_s, 2), "rss_after_gib": round(rss2, 2),
                          "rss_added_gib": round(rss2 - rss1, 2)},
            "net_params_m": round(n_params / 1e6, 1), "codec_params_m": round(n_codec / 1e6, 1),
            "memory_after_both_loads": mem_loaded,
        }
        sr, fps = engine.sample_rate, engine.info.frame_rate

        def our_options(steps):
            return GenerationOptions(decode=DecodeOptions(num_step=steps, **GREEDY),
                                     chunking="reference")  # the reference's work

        # ---- 3. smoke render: the full-size model decodes through our code
        log("smoke render: ours, voice design, num_step=1")
        smoke_item = SynthesisItem(text="Hello world, this is the full-size model speaking.",
                                   language=LANGUAGE, instruct=INSTRUCT, seed=0)
        smoke_s, smoke = timed(lambda: engine.synthesize([smoke_item], our_options(1))[0])
        results["smoke"] = {"seconds": round(smoke_s, 2),
                            "frames": int(sum(t.shape[-1] for t in smoke.tokens)),
                            "audio_seconds": round(smoke.audio.shape[-1] / sr, 2),
                            "finite": bool(np.isfinite(smoke.audio).all())}
        log(f"smoke render took {smoke_s:.1f} s: {results['smoke']}")

        # ---- 4. timed cases
        steps = args.steps
        results["cases"] = {}
        if "clone" in args.cases:
            clip = speech_like(REF_CLIP_SECONDS, sr, seed=3)
            theirs = reference.create_voice_clone_prompt((torch.from_numpy(clip), sr),
                                                         ref_text=REF_TEXT)
            prompt = VoicePrompt(theirs.ref_audio_tokens.cpu(), theirs.ref_text, theirs.ref_rms)
            text, frames = text_for(engine, int(args.seconds * fps), prompt)
            log(f"clone: prompt {prompt.tokens.shape[-1]} frames, target {frames} frames "
                f"({len(text)} chars)")

            def ref_clone():
                audio, tokens = run_reference(reference, text=text, language=LANGUAGE,
                                              voice_clone_prompt=theirs, num_step=steps, **GREEDY)
                return tokens, audio

            def our_clone():
                item = SynthesisItem(text=text, language=LANGUAGE, prompt=prompt, seed=0)
                r = engine.synthesize([item], our_options(steps))[0]
                return r.tokens, r.audio

            case = bench_case("clone", ref_clone, our_clone, args.repeats, sr, fps)
            case.update(prompt_frames=int(prompt.tokens.shape[-1]), text_chars=len(text),
                        clip_seconds=REF_CLIP_SECONDS)
            results["cases"]["clone"] = case

        if "design" in args.cases:
            text, frames = text_for(engine, int(args.seconds * fps), None)
            log(f"design: target {frames} frames ({len(text)} chars)")

            def ref_design():
                audio, tokens = run_reference(reference, text=text, language=LANGUAGE,
                                              instruct=INSTRUCT, num_step=steps, **GREEDY)
                return tokens, audio

            def our_design():
                item = SynthesisItem(text=text, language=LANGUAGE, instruct=INSTRUCT, seed=0)
                r = engine.synthesize([item], our_options(steps))[0]
                return r.tokens, r.audio

            case = bench_case("design", ref_design, our_design, args.repeats, sr, fps)
            case.update(text_chars=len(text))
            results["cases"]["design"] = case

        results["memory_at_end"] = memory()
        results["peak_rss_gib"] = round(peak_rss_gib(), 2)
        results["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        if temp_dir is not None:
            if args.keep:
                log(f"kept the checkpoint in {folder}")
            else:
                shutil.rmtree(temp_dir, ignore_errors=True)
    results["total_s"] = round(time.perf_counter() - T0, 1)

    print(report(results, machine_line))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {args.json_out}")
    return 0


def report(r: dict, machine_line: str) -> str:
    s = r["settings"]
    c = r["checkpoint"]
    ld = r["load"]
    ours, ref = ld["ours"], ld["reference"]
    smoke = r["smoke"]
    built = f"built in {c['build_s']} s" if c["build_s"] is not None else "reused"
    lines = [
        f"machine: {machine_line}",
        (f"checkpoint: {s['size']}, {c['size_gb']} GB, {built}; "
         f"net {ld['net_params_m']} M params, codec {ld['codec_params_m']} M params"),
        "",
        f"{'load':<12}{'seconds':>9}{'RSS after':>14}{'RSS added':>14}",
        (f"{'ours':<12}{ours['seconds']:>9.2f}{ours['rss_after_gib']:>10.2f} GiB"
         f"{ours['rss_added_gib']:>10.2f} GiB"),
        (f"{'reference':<12}{ref['seconds']:>9.2f}{ref['rss_after_gib']:>10.2f} GiB"
         f"{ref['rss_added_gib']:>10.2f} GiB"),
        "",
        (f"smoke (ours, design, num_step=1): {smoke['seconds']:.2f} s, {smoke['frames']} frames, "
         f"{smoke['audio_seconds']:.2f} s audio, finite: {'yes' if smoke['finite'] else 'no'}"),
        "",
        (f"steps={s['steps']}, repeats={s['repeats']} (after 1 warm-up each, alternating), "
         "position_temperature=0, class_temperature=0"),
        (f"{'case':<8}{'frames':>7}{'audio s':>9}{'ref med s':>11}{'ours med s':>12}"
         f"{'ref RTF':>9}{'ours RTF':>10}{'ref/ours':>10}  tokens equal"),
    ]
    for name, case in r.get("cases", {}).items():
        lines.append(
            f"{name:<8}{case['frames']:>7}{case['audio_seconds']:>9.2f}"
            f"{case['reference']['median_s']:>11.2f}{case['ours']['median_s']:>12.2f}"
            f"{case['reference']['rtf']:>9.2f}{case['ours']['rtf']:>10.2f}"
            f"{case['ratio_ref_over_ours']:>10.3f}  {'yes' if case['tokens_equal'] else 'no'}")
    for name, case in r.get("cases", {}).items():
        lines.append(f"  {name}: ref runs {case['reference']['runs_s']} s "
                     f"(CPU/wall {case['reference']['cpu_per_wall']}), ours runs "
                     f"{case['ours']['runs_s']} s (CPU/wall {case['ours']['cpu_per_wall']}); "
                     f"median CPU s ref {case['reference']['median_cpu_s']:.1f} / ours "
                     f"{case['ours']['median_cpu_s']:.1f} = {case['cpu_ratio_ref_over_ours']:.3f}; "
                     f"fastest run ref {case['reference']['min_s']:.2f} s / ours "
                     f"{case['ours']['min_s']:.2f} s = {case['min_ratio_ref_over_ours']:.3f}")
    for name, case in r.get("cases", {}).items():
        lines.append(f"tokens equal ({name}): {'yes' if case['tokens_equal'] else 'no'}")
    for label, mem in (("after both loads", ld["memory_after_both_loads"]),
                       ("at end", r["memory_at_end"])):
        lines.append(f"RSS {label}: {mem['rss_gib']:.2f} GiB (private {mem['anon_gib']:.2f}, "
                     f"file-backed/mmapped {mem['file_gib']:.2f})")
    lines.append(f"peak RSS: {r['peak_rss_gib']:.2f} GiB; total wall time: {r['total_s']:.1f} s; "
                 f"load average at start {r['machine']['loadavg_at_start']}, "
                 f"at end {r['loadavg_at_end']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
