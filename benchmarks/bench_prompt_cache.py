"""Benchmark the voice prompt cache: a disk hit against encoding the clip, in one run.

On whatever machine this is, it:

1. builds a random checkpoint (``--size tiny``, the default, or ``full`` with the real
   model's shapes, ~3.3 GB) into a temp folder, or uses ``--checkpoint DIR``;
2. writes a speech-like reference clip of ``--seconds`` seconds;
3. times ``Engine.create_prompt`` on it (one warm-up, then ``--repeats`` runs): the
   work a miss does, without the ASR pass a transcript-less clone adds on top;
4. times the codec identity hash once cold (reads the codec weights) and once
   through the hash memo, as a new process would;
5. times a disk hit two ways, each with fresh objects (no memory layer): the bare
   ``PromptCache.lookup`` (load, validate, touch), and the whole
   ``PromptSource.obtain`` a new process runs (hash memo look-ups for the clip and
   the codec, key, lookup);
6. prints the medians and the ratios encode / hit (``--json-out`` writes them too).

This is a measurement, not a test: nothing here asserts on time.

Usage (from the repository root)::

    python benchmarks/bench_prompt_cache.py [--size tiny|full | --checkpoint DIR]
        [--seconds 6] [--repeats 5] [--threads N] [--keep] [--json-out results.json]
"""

from __future__ import annotations

import argparse
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
import soundfile as sf
import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: make ``studio`` importable
    sys.path.insert(0, str(ROOT))

REF_TEXT = "This short clip gives the voice that the benchmark clones today."


def speech_like(seconds: float, sample_rate: int = 24000, seed: int = 0) -> np.ndarray:
    """Voiced bursts with pauses (as in tests/conftest.py): real work for the codec."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    voiced = np.sin(2 * np.pi * np.cumsum(pitch) / sample_rate) + 0.3 * rng.standard_normal(t.size)
    gate = (np.sin(2 * np.pi * 1.3 * t) > -0.3).astype(np.float64)
    return (0.2 * voiced * gate).astype(np.float32)


def machine() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(), "python": platform.python_version()}


def median_time(fn, repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="an existing checkpoint folder")
    parser.add_argument("--size", choices=("tiny", "full"), default="tiny",
                        help="random checkpoint to build when --checkpoint is not given")
    parser.add_argument("--seconds", type=float, default=6.0, help="reference clip length")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's choice)")
    parser.add_argument("--keep", action="store_true", help="keep the built checkpoint")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    from studio.engine.engine import Engine
    from studio.engine.file_hashes import HASHES_FILE, FileHasher
    from studio.engine.prompt_cache import PromptCache, codec_identity
    from studio.engine.prompts import PromptSource
    from studio.engine.random_checkpoint import build_random_checkpoint

    work = Path(tempfile.mkdtemp(prefix="bench-prompt-cache-"))
    try:
        if args.checkpoint is not None:
            checkpoint, label = args.checkpoint, str(args.checkpoint)
        else:
            start = time.perf_counter()
            checkpoint = build_random_checkpoint(work / "OmniVoice", args.size)
            label = f"random {args.size} (built in {time.perf_counter() - start:.1f} s)"
        engine = Engine.load(checkpoint, device="cpu", precision="fp32")
        codec_dir = engine.info.root / "audio_tokenizer"
        weights_mb = (codec_dir / "model.safetensors").stat().st_size / 2**20

        clip = work / "clip.wav"
        sf.write(clip, speech_like(args.seconds), engine.sample_rate)
        settled = time.time() - 3600  # an old clip, as a saved reference usually is
        os.utime(clip, (settled, settled))

        def encode():
            return engine.create_prompt(clip, REF_TEXT, preprocess=True)

        encode()  # warm-up
        encode_s, encode_all = median_time(encode, args.repeats)

        folder = work / "prompt_cache"
        memo = folder / HASHES_FILE
        start = time.perf_counter()
        identity = codec_identity(codec_dir, FileHasher(memo))
        identity_cold_s = time.perf_counter() - start
        start = time.perf_counter()
        assert codec_identity(codec_dir, FileHasher(memo)) == identity
        identity_memo_s = time.perf_counter() - start

        source = PromptSource(engine, PromptCache(folder))
        prompt, how = source.obtain(clip, REF_TEXT)
        assert how == "encoded"
        key = source.key_for(clip, REF_TEXT, True)
        entry_bytes = (folder / f"{key}.pt").stat().st_size
        spec = engine.info.audio

        def bare_hit():
            hit = PromptCache(folder).lookup(key, spec.codebooks, spec.mask_id)
            assert hit is not None and hit[1] == "disk"

        def new_process_hit():
            fresh = PromptSource(engine, PromptCache(folder))
            loaded, how = fresh.obtain(clip, REF_TEXT)
            assert how == "disk" and torch.equal(loaded.tokens, prompt.tokens)
            assert fresh.hasher.files_hashed == 0  # clip and codec both came from the memo

        bare_hit()  # warm-up
        hit_s, hit_all = median_time(bare_hit, args.repeats)
        obtain_s, obtain_all = median_time(new_process_hit, args.repeats)
    finally:
        if args.keep and args.checkpoint is None:
            print(f"kept the checkpoint in {work / 'OmniVoice'}", file=sys.stderr)
            shutil.rmtree(work / "prompt_cache", ignore_errors=True)
        else:
            shutil.rmtree(work, ignore_errors=True)

    result = {
        "machine": machine(),
        "checkpoint": label,
        "codec_weights_mb": round(weights_mb, 1),
        "clip_seconds": args.seconds,
        "prompt_frames": int(prompt.tokens.shape[-1]),
        "entry_bytes": entry_bytes,
        "repeats": args.repeats,
        "encode_s": round(encode_s, 4),
        "disk_hit_lookup_s": round(hit_s, 5),
        "disk_hit_new_process_s": round(obtain_s, 5),
        "codec_identity_cold_s": round(identity_cold_s, 4),
        "codec_identity_memo_s": round(identity_memo_s, 5),
        "ratio_encode_over_lookup": round(encode_s / hit_s, 1),
        "ratio_encode_over_new_process_hit": round(encode_s / obtain_s, 1),
        "all_encode_s": [round(t, 4) for t in encode_all],
        "all_lookup_s": [round(t, 5) for t in hit_all],
        "all_new_process_hit_s": [round(t, 5) for t in obtain_all],
    }
    m = result["machine"]
    print(f"machine     {m['cpu']}, {m['cores']} cores, torch {m['torch']} ({m['torch_threads']} threads)")
    print(f"checkpoint  {label}; codec weights {weights_mb:.1f} MB")
    print(f"clip        {args.seconds:.1f} s -> {result['prompt_frames']} frames, "
          f"cache entry {entry_bytes} bytes")
    print(f"encode (create_prompt)            {encode_s * 1000:10.2f} ms   (median of {args.repeats})")
    print(f"disk hit, PromptCache.lookup      {hit_s * 1000:10.2f} ms   "
          f"-> {result['ratio_encode_over_lookup']}x faster")
    print(f"disk hit, new PromptSource.obtain {obtain_s * 1000:10.2f} ms   "
          f"-> {result['ratio_encode_over_new_process_hit']}x faster")
    print(f"codec identity: first hash {identity_cold_s * 1000:.1f} ms (once per weights "
          f"file), then {identity_memo_s * 1000:.2f} ms from the memo")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
