"""What ``clean`` costs a ``serve`` request (not a test).

In process (starlette's TestClient over a real Renderer on the tiny random checkpoint, so the
render itself is cheap and the cleanup shows): one request with a 12 s ref_audio (10 s of
espeak-ng speech at 24 kHz, white noise at 5 dB SNR, a second of silence at each end) and
its transcript, rendered at 4 steps, as

- ``plain``: no clean (the clip's prompt is remembered after the first);
- ``clean_cold``: clean "all", the server's first (the cleanup's models load);
- ``clean_new_clip``: clean "all" of a clip not cleaned before (another noise seed);
- ``clean_reused``: the same clip and steps again: found in cleaned_clips/, not cleaned;
- ``clean_largest``: clean "all" of the largest clip serve takes (60 s of that speech and
  noise, 48 kHz stereo), with the peak RSS before and after: what one hostile request can
  make the model's thread spend.

Process CPU seconds over all threads (wall time is noise on a shared machine), median of
--repeats where it repeats.

Usage (from the repository root)::

    python benchmarks/bench_serve_clean.py [--threads 1] [--repeats 3] [--json-out FILE]
"""

from __future__ import annotations

import base64
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judges import (  # after the path: run as a script
    TEXT,
    report,
    rss_mib,
    speech_10s,
    threaded_args,
)


def clip_uri(speech, rate: int, seed: int, largest: bool = False) -> str:
    import numpy as np
    import soundfile as sf

    noise = np.random.default_rng(seed).standard_normal(speech.size).astype(np.float32)
    noise *= np.sqrt(np.mean(speech ** 2) / np.mean(noise ** 2) / 10 ** 0.5)
    pad = np.zeros(rate, np.float32)
    clip = np.concatenate([pad, speech + noise, pad])
    if largest:  # 60 s at 48 kHz, two channels
        from studio.engine.audio import resample

        clip = np.tile(resample(clip, rate, 48000), 5)[:48000 * 60]
        clip, rate = np.stack([clip, clip], axis=1), 48000
    buffer = io.BytesIO()
    sf.write(buffer, clip, rate, format="WAV", subtype="PCM_16")
    return "data:audio/wav;base64," + base64.b64encode(buffer.getvalue()).decode()


def main() -> None:
    args = threaded_args(3)
    from starlette.testclient import TestClient

    from studio.engine.random_checkpoint import build_random_checkpoint
    from studio.serve.app import create_app
    from studio.serve.renderer import Renderer

    speech, rate = speech_10s()
    out: dict = {"torch_threads": args.threads, "clip_s": 12.0, "steps": 4}
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = build_random_checkpoint(Path(tmp) / "OmniVoice", "tiny")
        data = Path(tmp) / "data"
        renderer = Renderer(str(checkpoint), device="cpu", precision="fp32", data_root=data)
        renderer.start()
        try:
            with TestClient(create_app(renderer, None, data)) as client:
                def speak(seed: int, clean: str | None, largest: bool = False) -> float:
                    body = {"input": "Hello there, this is a test.", "steps": 4, "seed": 1,
                            "ref_audio": clip_uri(speech, rate, seed, largest),
                            "ref_text": TEXT,
                            **({"clean": clean} if clean else {})}
                    start = time.process_time()
                    answer = client.post("/v1/audio/speech", json=body)
                    spent = time.process_time() - start
                    assert answer.status_code == 200, answer.text[:300]
                    return spent

                speak(0, None)  # the first render's own warm-up
                out["plain_cpu_s"] = round(statistics.median(
                    speak(0, None) for _ in range(args.repeats)), 3)
                out["clean_cold_cpu_s"] = round(speak(0, "all"), 3)
                out["clean_new_clip_cpu_s"] = round(statistics.median(
                    speak(seed, "all") for seed in range(1, 1 + args.repeats)), 3)
                out["clean_reused_cpu_s"] = round(statistics.median(
                    speak(0, "all") for _ in range(args.repeats)), 3)
                out["peak_rss_before_largest_MiB"] = round(rss_mib())
                out["plain_largest_cpu_s"] = round(speak(99, None, largest=True), 3)
                out["clean_largest_cpu_s"] = round(speak(99, "all", largest=True), 3)
        finally:
            renderer.stop()
    report(out, args)


if __name__ == "__main__":
    main()
