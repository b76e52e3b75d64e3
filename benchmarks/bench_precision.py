"""How far bf16 renders agree with fp32 ones: token agreement and audio similarity.

For every conformance case (the requests of tests/engine/test_conformance.py)
the same greedy request is rendered twice on one checkpoint: fp32 on the padded
path (the reference-equal render) and bf16 on the default path (packed, with
prepacked weights where the CPU supports it). Reported per case:

- token agreement: the share of (codebook, frame) tokens that are equal;
- SNR of the bf16 audio against the fp32 audio, in dB;
- log-mel cosine: the cosine similarity of the two log-mel spectrograms
  (80 bands, 1024-point FFT, hop 256), 1.0 for identical audio.

A baseline row scores two unrelated renders of one request (fp32 greedy against
fp32 sampled with another seed), the floor the case rows are read against.

Random checkpoints are a hard case for bf16: their logits have small margins,
so a rounding difference flips an argmax more often than trained weights would,
and a token committed differently early changes what later steps see.

Usage (from the repository root)::

    python benchmarks/bench_precision.py [--checkpoint DIR] [--steps 8] [--json-out FILE]

Without ``--checkpoint`` a tiny random checkpoint is built in a temp folder.
``benchmarks/bench_accel.py`` reports the same measures for a full-size 10 s clone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "tests" / "engine"))
from conformance_cases import CASES as CONFORMANCE, GREEDY  # noqa: E402, I001

# The conformance cases, and a clone from a prompt (decode overrides in the second dict).
CASES = {**CONFORMANCE, "clone": (dict(text="Now say something new in the same voice."), {"prompt": True})}


# --------------------------------------------------------------------------- measures


def token_agreement(a: list[torch.Tensor], b: list[torch.Tensor]) -> float | None:
    """Share of equal tokens over all chunks; None when the layouts differ."""
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b)):
        return None
    equal = sum(int((x == y).sum()) for x, y in zip(a, b))
    return equal / sum(x.numel() for x in a)


def snr_db(reference: np.ndarray, other: np.ndarray) -> float | None:
    """10 log10(signal power / difference power); inf for identical audio."""
    if reference.shape != other.shape:
        return None
    noise = float(np.sum((reference.astype(np.float64) - other) ** 2))
    signal = float(np.sum(reference.astype(np.float64) ** 2))
    if noise == 0.0:
        return float("inf")
    return 10.0 * np.log10(signal / noise) if signal > 0 else None


def log_mel_cosine(reference: np.ndarray, other: np.ndarray, sample_rate: int) -> float | None:
    """Cosine similarity of the two log-mel spectrograms over their common length."""
    import torchaudio

    length = min(reference.shape[-1], other.shape[-1])
    if length < 1024:
        return None
    mel = torchaudio.transforms.MelSpectrogram(sample_rate, n_fft=1024, hop_length=256, n_mels=80)
    a = torch.log(mel(torch.from_numpy(reference[:length]).float()) + 1e-5).flatten()
    b = torch.log(mel(torch.from_numpy(other[:length]).float()) + 1e-5).flatten()
    return float(torch.nn.functional.cosine_similarity(a, b, dim=0))


def similarity(ref_tokens, ref_audio, tokens, audio, sample_rate: int) -> dict:
    agreement = token_agreement(ref_tokens, tokens)
    snr = snr_db(ref_audio, audio)
    cosine = log_mel_cosine(ref_audio, audio, sample_rate)
    return {"token_agreement": round(agreement, 4) if agreement is not None else None,
            "snr_db": round(snr, 2) if snr is not None and np.isfinite(snr) else snr,
            "log_mel_cosine": round(cosine, 4) if cosine is not None else None,
            "same_length": ref_audio.shape == audio.shape}


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, help="checkpoint folder (default: a tiny random one)")
    p.add_argument("--steps", type=int, default=8, help="decoding steps (default 8, as the tests)")
    p.add_argument("--threads", type=int, help="torch threads (default: os.cpu_count())")
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads or os.cpu_count() or 1)

    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
    from studio.engine.random_checkpoint import build_random_checkpoint

    temp = None
    folder = args.checkpoint
    if folder is None:
        temp = Path(tempfile.mkdtemp(prefix="omnivoice-precision-"))
        folder = build_random_checkpoint(temp / "OmniVoice", "tiny")
    try:
        fp32 = Engine.load(folder, device="cpu", precision="fp32")
        bf16 = Engine.load(folder, device="cpu", precision="bf16")
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_engine import REF_TEXT, speech_like

        clip = speech_like(3.2, fp32.sample_rate, seed=3)
        prompt = fp32.create_prompt((clip, fp32.sample_rate), REF_TEXT)
        rows = {}
        for name, (request, settings) in CASES.items():
            settings = dict(settings)
            use_prompt = settings.pop("prompt", False)
            decode = DecodeOptions(**{"num_step": args.steps, **GREEDY, **settings})
            item = SynthesisItem(**request, prompt=prompt if use_prompt else None, seed=0)
            started = time.perf_counter()
            [a] = fp32.synthesize([item], GenerationOptions(decode=decode, decode_mode="padded"))
            middle = time.perf_counter()
            [b] = bf16.synthesize([item], GenerationOptions(decode=decode))
            done = time.perf_counter()
            row = similarity(a.tokens, a.audio, b.tokens, b.audio, fp32.sample_rate)
            row.update(fp32_s=round(middle - started, 3), bf16_s=round(done - middle, 3),
                       tokens=sum(t.numel() for t in a.tokens))
            rows[name] = row
            print(f"{name:<26} agreement {row['token_agreement']:.3f}  SNR {row['snr_db']} dB  "
                  f"log-mel cosine {row['log_mel_cosine']}", flush=True)
        # What unrelated renders score: fp32 greedy against fp32 sampled (the default
        # temperatures, another seed) of the same request; the floor to read the rows against.
        request, _ = CASES["design_english"]
        greedy = DecodeOptions(num_step=args.steps, **GREEDY)
        [a] = fp32.synthesize([SynthesisItem(**request, seed=0)],
                              GenerationOptions(decode=greedy, decode_mode="padded"))
        [b] = fp32.synthesize([SynthesisItem(**request, seed=1)],
                              GenerationOptions(decode=DecodeOptions(num_step=args.steps)))
        baseline = similarity(a.tokens, a.audio, b.tokens, b.audio, fp32.sample_rate)
        print(f"{'baseline: fp32 vs sampled':<26} agreement {baseline['token_agreement']:.3f}  "
              f"SNR {baseline['snr_db']} dB  log-mel cosine {baseline['log_mel_cosine']}")
        agreements = [r["token_agreement"] for r in rows.values() if r["token_agreement"] is not None]
        cosines = [r["log_mel_cosine"] for r in rows.values() if r["log_mel_cosine"] is not None]
        summary = {"mean_token_agreement": round(float(np.mean(agreements)), 4),
                   "min_token_agreement": round(float(np.min(agreements)), 4),
                   "mean_log_mel_cosine": round(float(np.mean(cosines)), 4)}
        print(f"mean agreement {summary['mean_token_agreement']:.3f} "
              f"(min {summary['min_token_agreement']:.3f}), mean log-mel cosine "
              f"{summary['mean_log_mel_cosine']:.4f}; load {os.getloadavg()[0]:.2f}")
        results = {"checkpoint": str(folder), "steps": args.steps, "torch": torch.__version__,
                   "bf16_path": "packed, prepacked" if bf16._cpu_layers() else "packed",
                   "cases": rows, "summary": summary, "baseline_unrelated": baseline,
                   "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]}
        if args.json_out:
            args.json_out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
