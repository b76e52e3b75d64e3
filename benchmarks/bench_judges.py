"""CPU cost and memory of each take judge per 10 s of speech (not a test).

10 s of espeak-ng speech at 24 kHz (the studio's rate). Each judge is timed cold (first
call: allocations, kernel caches) and warm (the median of --repeats calls), in process
CPU seconds (all threads; wall time is noise on a shared machine), plus the process's
peak RSS after torch is imported and after each judge has run. The word judge is the
diff only: Whisper's cost is measured in /work/notes/issue28-research.md (its weights
cannot be fetched here).

Usage (from the repository root)::

    python benchmarks/bench_judges.py [--threads 1] [--repeats 5] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TEXT = ("The quick brown fox jumps over the lazy dog near the river bank, and every morning "
        "she walks to the market to buy fresh bread.")


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def speech_10s():
    from studio.engine.audio import resample
    from studio.sound.files import read_audio

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.wav")
        subprocess.run(["espeak-ng", "-v", "en+m3", "-w", path, TEXT], check=True)
        audio, rate = read_audio(path)
    import numpy as np

    audio = resample(audio.reshape(-1), rate, 24000)
    reps = int(np.ceil(240000 / audio.size))
    return np.tile(audio, reps)[:240000].astype(np.float32), 24000


def timed(fn, repeats: int) -> dict:
    start = time.process_time()
    fn()
    cold = time.process_time() - start
    warm = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        warm.append(time.process_time() - start)
    return {"cold_cpu_s": round(cold, 3), "warm_cpu_s": round(statistics.median(warm), 3)}


def threaded_args(repeats: int) -> argparse.Namespace:
    """The judging benchmarks' options (--threads, --repeats, --json-out), with torch set
    to that many threads."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=repeats)
    parser.add_argument("--json-out")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    return args


def report(out: dict, args) -> None:
    """A judging benchmark's results with its peak memory: printed, and to --json-out."""
    out["peak_rss_MiB"] = round(rss_mib())
    text = json.dumps(out, indent=1)
    print(text)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n")


def main() -> None:
    args = threaded_args(5)
    out = {"torch_threads": args.threads, "audio_s": 10.0, "rss_torch_MiB": round(rss_mib()),
           "loadavg": os.getloadavg()}
    audio, rate = speech_10s()
    from studio.judges.sound import Dnsmos, judge_sound
    from studio.judges.voice import SpeakerEncoder, cosine, find_switch
    from studio.judges.words import judge_words

    start = time.process_time()
    dnsmos = Dnsmos()
    out["sound"] = {"load_cpu_s": round(time.process_time() - start, 3),
                    **timed(lambda: judge_sound(audio, rate, dnsmos), args.repeats),
                    "rss_MiB": round(rss_mib())}
    start = time.process_time()
    encoder = SpeakerEncoder()
    ref = encoder.embed(audio[:120000], rate)
    out["voice"] = {"load_cpu_s": round(time.process_time() - start, 3),
                    **timed(lambda: cosine(ref, encoder.embed(audio, rate)), args.repeats),
                    "rss_MiB": round(rss_mib())}
    out["voice_switch"] = timed(lambda: find_switch(encoder, audio, rate, ref), args.repeats)
    heard = TEXT.replace("brown ", "")
    out["words_diff"] = timed(lambda: judge_words(TEXT * 3, heard * 3), args.repeats)
    report(out, args)


if __name__ == "__main__":
    main()
