"""The studio as a user launches it: seconds from launch to the window, to the loaded
model, and to the first take heard; and how late the GUI thread's event loop runs
while that take renders.

Each launch is the installed ``omnivoice-desktop`` in a separate process with an empty
data folder, nothing imported into it first, driven through the journey driver
(tests/journeys/driver.py): as soon as the status bar says the model is ready, it
designs a line (Draft, 12 steps), clicks Generate, and plays the take when it is
listed. Times are read on CLOCK_MONOTONIC, which the bench and the studio share,
at the moment the studio's GUI thread saw each event.

    python benchmarks/bench_studio.py                  # tiny and full-size random checkpoints
    python benchmarks/bench_studio.py --sizes tiny --launches 3
    python benchmarks/bench_studio.py --checkpoint ~/models/OmniVoice --json-out studio.json

A full-size random checkpoint (about 3 GB) is built in a temporary folder unless
``--checkpoint`` names one. Medians are printed; nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "journeys"))  # the driver's client
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from studio_process import Studio, design_generate, play_selected_take, wait_takes  # noqa: E402

TEXT = "Hello from OmniVoice Desktop."


def cpu_flags() -> str:
    try:
        info = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines()
                  if line.startswith("model name")), "unknown")
    flags = next((line.split(":", 1)[1].split() for line in info.splitlines()
                  if line.startswith("flags")), [])
    noted = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    return f"{model}, {os.cpu_count()} cores, flags {' '.join(noted) or 'none noted'}"


def one_launch(checkpoint: Path, home: Path, timeout: float) -> dict:
    home.mkdir(parents=True)
    started = time.monotonic()
    studio = Studio(home, checkpoint)
    try:
        studio.connect(timeout=timeout)
        studio.wait_model_loaded(timeout=timeout)
        studio.request("lateness", action="start")
        design_generate(studio, TEXT, preset="Draft")
        wait_takes(studio, 1, timeout=timeout)
        lateness = studio.request("lateness", action="stop")
        play_selected_take(studio, timeout=timeout)
        seen = studio.request("seen")["seen"]
        assert studio.close() == 0, studio.evidence()
    finally:
        studio.stop()
    return {
        "window_s": round(seen["window"] - started, 3),
        "model_loaded_s": round(seen["model_loaded"] - started, 3),
        "take_s": round(seen["take"] - started, 3),
        "first_heard_s": round(seen["heard"] - started, 3),
        "lateness_while_rendering": lateness,
    }


def median_of(runs: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="tiny,full", help="random checkpoints to build")
    parser.add_argument("--checkpoint", type=Path, help="a model folder instead of random ones")
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-studio-"))
    if args.checkpoint is not None:
        checkpoints = {"given": args.checkpoint}
    else:
        from studio.engine.random_checkpoint import build_random_checkpoint

        checkpoints = {size: build_random_checkpoint(work / size / "OmniVoice", size)
                       for size in args.sizes.split(",")}
    result = {"machine": cpu_flags(), "python": platform.python_version(), "runs": {}}
    for name, checkpoint in checkpoints.items():
        runs = [one_launch(checkpoint, work / f"{name}-launch-{n}", args.timeout)
                for n in range(args.launches)]
        result["runs"][name] = {
            "launches": runs,
            "median": {key: median_of(runs, key)
                       for key in ("window_s", "model_loaded_s", "take_s", "first_heard_s")},
            "worst_lateness_ms": max(r["lateness_while_rendering"].get("max_ms", 0) for r in runs),
        }
        print(f"{name}: {json.dumps(result['runs'][name]['median'])}", flush=True)
    print(json.dumps(result, indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
