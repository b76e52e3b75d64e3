"""CPU cost and memory of the reference cleanup per 10 s of speech (not a test).

10 s of espeak-ng speech at 24 kHz (12 s with the ends) with white noise at 5 dB SNR and a second of silence
at each end. Each step alone and all three together, cold (first call: the library and
model loads) and warm (median of --repeats), in process CPU seconds (wall time is noise
on a shared machine), plus peak RSS after torch is imported and after the steps ran.

Usage (from the repository root)::

    python benchmarks/bench_cleanup.py [--threads 1] [--repeats 3] [--json-out FILE]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judges import (  # after the path: run as a script
    report,
    rss_mib,
    speech_10s,
    threaded_args,
    timed,
)


def main() -> None:
    args = threaded_args(3)
    import numpy as np
    out = {"torch_threads": args.threads, "audio_s": 10.0, "rss_torch_MiB": round(rss_mib()),
           "loadavg": os.getloadavg(), "cpu": open("/proc/cpuinfo").read().split(
               "model name")[1].split("\n")[0].strip("\t: ") if os.path.exists("/proc/cpuinfo")
           else None}
    speech, rate = speech_10s()
    noise = np.random.default_rng(0).standard_normal(speech.size).astype(np.float32)
    noise *= np.sqrt(np.mean(speech ** 2) / np.mean(noise ** 2) / 10 ** 0.5)
    pad = np.zeros(rate, np.float32)
    audio = np.concatenate([pad, speech + noise, pad])
    from studio.judges.cleanup import LOUDNESS, NOISE, STEPS, TRIM, Cleaner

    for name, steps in (("noise", (NOISE,)), ("trim", (TRIM,)), ("loudness", (LOUDNESS,)),
                        ("all", STEPS)):
        cleaner = Cleaner()
        out[name] = {**timed(lambda c=cleaner, s=steps: c.clean(audio, rate, s), args.repeats),
                     "rss_MiB": round(rss_mib())}
    start = time.process_time()
    from studio.judges.cleanup import speaker_encoder_or_none

    speakers = Cleaner(speakers=speaker_encoder_or_none())
    out["all_with_speaker_check"] = {
        "load_cpu_s": round(time.process_time() - start, 3),
        **timed(lambda: speakers.clean(audio, rate, STEPS), args.repeats)}
    report(out, args)


if __name__ == "__main__":
    main()
