"""Studio responsiveness: time from launch to a visible window, and main-thread
event-loop stalls (timer jitter) while a render runs on the worker thread.

    python benchmarks/bench_studio.py [--checkpoint DIR] [--steps 32] [--renders 3]

Targets (see docs/performance.md): window visible in under 2 s before the model
loads; p99 timer lateness under 50 ms while rendering. Prints numbers, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LAUNCH_PROBE = r"""
import os, sys, time
t0 = time.perf_counter()
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from studio.settings import Settings
from studio.views.main_window import MainWindow
from studio.worker.controller import WorkerController
from studio.audio.player import Player
settings = Settings(QSettings(sys.argv[1], QSettings.Format.IniFormat), environ={})
controller = WorkerController(); player = Player()
window = MainWindow(settings, controller, player)
window.show(); app.processEvents()
print(f"{time.perf_counter() - t0:.3f}")
player.close(); controller.shutdown()
"""


def launch_seconds(work: Path) -> float:
    """A fresh interpreter each time: imports count, as they do for a user."""
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(work / "data"))
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", LAUNCH_PROBE, str(work / "launch.ini")],
                         capture_output=True, text=True, env=env, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    inside = float(out.stdout.strip().splitlines()[-1])
    return inside, time.perf_counter() - started


def jitter(checkpoint: Path, work: Path, steps: int, renders: int) -> dict:
    import numpy as np
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import GenerationOptions
    from studio.settings import Settings
    from studio.views.main_window import MainWindow
    from studio.worker.controller import WorkerController
    from studio.worker.jobs import RenderRequest

    _app = QApplication.instance() or QApplication([])  # kept alive for the run
    settings = Settings(QSettings(str(work / "jitter.ini"), QSettings.Format.IniFormat), environ={})
    for key, value in (("model/source", str(checkpoint)), ("model/device", "cpu"),
                       ("model/precision", "fp32")):
        settings.set_value(key, value)
    controller = WorkerController()
    window = MainWindow(settings, controller, None)
    window.show()
    loop = QEventLoop()
    controller.worker.model_loaded.connect(loop.quit)
    window.load_model()
    loop.exec()

    period_ms = 10
    late: list[float] = []
    clock = QElapsedTimer()
    timer = QTimer()
    timer.setInterval(period_ms)
    state = {"last": None}

    def tick() -> None:
        now = clock.nsecsElapsed() / 1e6
        if state["last"] is not None:
            late.append(max(0.0, now - state["last"] - period_ms))
        state["last"] = now

    timer.timeout.connect(tick)
    options = GenerationOptions(decode=DecodeOptions(num_step=steps))
    text = "The studio stays responsive while the worker renders this sentence on its own thread."
    clock.start()
    timer.start()
    started = time.perf_counter()
    for _ in range(renders):
        done = QEventLoop()
        controller.worker.finished.connect(done.quit)
        window._render(window.designView, RenderRequest(text=text, options=options, mode="design"))
        done.exec()
        controller.worker.finished.disconnect(done.quit)
    busy = time.perf_counter() - started
    timer.stop()
    controller.shutdown()
    window.close()
    values = np.array(late)
    return {"ticks": int(values.size), "render_seconds": round(busy, 2),
            "p50_ms": round(float(np.percentile(values, 50)), 2),
            "p99_ms": round(float(np.percentile(values, 99)), 2),
            "max_ms": round(float(values.max()), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, help="model folder (default: a tiny random one)")
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--renders", type=int, default=3)
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-studio-"))
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = str(work / "data")
    checkpoint = args.checkpoint
    if checkpoint is None:
        from studio.engine.random_checkpoint import build_random_checkpoint

        checkpoint = build_random_checkpoint(work / "OmniVoice")
    launches = [launch_seconds(work) for _ in range(args.launches)]
    result = {
        "machine": f"{os.cpu_count()} cores, {sys.platform}",
        "launch_to_window_s": [round(inside, 3) for inside, _ in launches],
        "launch_whole_process_s": [round(whole, 3) for _, whole in launches],
        "jitter_while_rendering": jitter(checkpoint, work, args.steps, args.renders),
        "checkpoint": str(checkpoint),
    }
    print(json.dumps(result, indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
