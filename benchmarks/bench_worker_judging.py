"""What judging adds to a Generate click in the worker (not a test).

The worker renders N takes of one text on a tiny random checkpoint twice per round,
with Settings → Judging off and on (same seeds), and reports the job's process CPU
seconds for each, the difference per take and per second of audio, and how the
judging time splits into the first use (the judges' models loading) and later ones.
The tiny model renders noise in a fraction of a real render's time, so compare the
judging cost with a real render's from bench_engine.py / bench_presets.py, not with
the render time here. Words are not judged (no Whisper weights here): the voice
(GE2E) and sound (DNSMOS + checks) judges are what is timed.

Usage (from the repository root)::

    python benchmarks/bench_worker_judging.py [--takes 4] [--rounds 3] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TEXT = ("The quick brown fox jumps over the lazy dog near the river bank, and every morning "
        "she walks to the market to buy fresh bread.")


def cpu_flags() -> str:
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return "unknown"
    return " ".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--takes", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json-out")
    args = parser.parse_args()

    import torch
    from PySide6.QtCore import QCoreApplication

    from studio.engine.engine import Engine
    from studio.engine.options import DecodeOptions, GenerationOptions
    from studio.engine.random_checkpoint import build_random_checkpoint
    from studio.service.requests import JudgingSettings, LoadRequest, RenderRequest
    from studio.worker.job import Job
    from studio.worker.worker import InferenceWorker

    torch.set_num_threads(args.threads)
    app = QCoreApplication.instance() or QCoreApplication([])  # noqa: F841 (signals need one)
    tmp = Path(tempfile.mkdtemp())
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = str(tmp / "data")
    engine = Engine.load(build_random_checkpoint(tmp / "OmniVoice", "tiny"), device="cpu",
                         precision="fp32")
    options = GenerationOptions(decode=DecodeOptions(num_step=8))
    worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=tmp / "data")
    worker.load_model(LoadRequest(source="tiny", disk_cache=False,
                                  judging=JudgingSettings(enabled=False)))

    def generate(judging: bool, seed: int) -> tuple[float, float]:
        worker.set_judging(JudgingSettings(enabled=judging))
        done = []
        job = Job("bench")
        job.done.connect(done.append)
        request = RenderRequest(TEXT, seeds=tuple(range(seed, seed + args.takes)),
                                options=options, mode="design")
        start = time.process_time()
        worker.render(job, request)
        spent = time.process_time() - start
        assert done, "the render did not finish"
        return spent, done[0].audio_seconds

    rows = []
    for r in range(args.rounds):
        off, audio = generate(False, 100 * r)
        on, _ = generate(True, 100 * r)
        rows.append({"off_cpu_s": round(off, 3), "on_cpu_s": round(on, 3),
                     "audio_s": round(audio, 3)})
    later = rows[1:] or rows
    judge = statistics.median(r["on_cpu_s"] - r["off_cpu_s"] for r in later)
    audio = statistics.median(r["audio_s"] for r in later)
    out = {
        "cpu_flags": cpu_flags(), "cores": os.cpu_count(), "torch_threads": args.threads,
        "loadavg": os.getloadavg(), "takes": args.takes, "rounds": rows,
        "first_judging_cpu_s": round(rows[0]["on_cpu_s"] - rows[0]["off_cpu_s"], 3),
        "judging_cpu_s_per_take": round(judge / args.takes, 3),
        "judging_cpu_s_per_audio_s": round(judge / audio, 3) if audio else None,
    }
    worker.release()
    print(json.dumps(out, indent=2))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
