"""File work the views start: how late the GUI thread runs while takes are exported,
and how long writing a voice bundle for a drag out of the Voices view takes.

- export: N takes of S seconds in a TakeLibrary (temp folder), exported as FLAC the old
  way (``export_takes`` called on the GUI thread) and through ``ExportDialog`` (a
  thread since issue 27), while a 10 ms GUI-thread timer records how late it fires
  (the event loop's stalls, as a user feels them; as in bench_studio.py); and the WAV
  copies a drag out of the takes list writes, for 1 and N takes: on the GUI thread (the
  old way) and from the press on, off it (the GUI thread's lateness meanwhile).
- bundle: ``write_stored`` of one saved voice whose clip is a 24 kHz float WAV of 3,
  10 and 60 s, and a 49 MB clip (the library takes up to 50 MB): median of 5 writes each.

Usage (from the repository root)::

    python benchmarks/bench_exports.py
    python benchmarks/bench_exports.py --takes 40 --seconds 20 --json-out exports.json

Prints the numbers; nothing here asserts on time.
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def lateness_while(app, start, finished) -> dict:
    """Run ``start()``, then the event loop until ``finished()``; how late a 10 ms timer
    fired meanwhile (p50, p99, max in ms) and the wall time."""
    from PySide6.QtCore import QTimer

    late, last = [], [None]

    def tick():
        now = time.monotonic()
        if last[0] is not None:
            late.append(max(0.0, (now - last[0]) * 1000 - 10))
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    clock = time.perf_counter()
    QTimer.singleShot(50, start)  # after a few ticks, so a stall at once is seen too
    while True:
        app.processEvents()
        if finished():
            break
        time.sleep(0.001)
    wall = time.perf_counter() - clock
    app.processEvents()
    timer.stop()
    late.sort()
    pick = (lambda q: round(late[min(len(late) - 1, int(q * len(late)))], 1)) if late else (
        lambda q: None)
    return {"wall_s": round(wall, 2), "ticks": len(late), "p50_ms": pick(0.5),
            "p99_ms": pick(0.99), "max_ms": round(late[-1], 1) if late else None}


def bench_export(app, work: Path, takes: int, seconds: float) -> dict:
    import numpy as np

    from studio.library.export import export_takes
    from studio.library.takes import TakeLibrary
    from studio.views.take_export import ExportDialog
    from tests.views.take_fixtures import RUN, settings

    rng = np.random.default_rng(0)
    with TakeLibrary(work / "lib") as writer:
        made = [writer.add(settings(f"Take {n} of the benchmark.", n), RUN,
                           (0.1 * rng.standard_normal(int(24000 * seconds))).astype("float32"),
                           24000, batch="b") for n in range(takes)]
    ids = [t.id for t in made]
    rows = [type("Row", (), {"name": t.settings.text, "take": t})() for t in made]
    out = {}
    with TakeLibrary(work / "lib", read_only=True) as reader:
        done = []
        out["on_gui_thread"] = lateness_while(
            app, lambda: done.append(export_takes(reader, ids, work / "sync", "FLAC")),
            lambda: bool(done))
        dialog = ExportDialog(reader, rows, folder=str(work / "thread"), fmt="FLAC")
        written = []
        dialog.exported.connect(written.append)
        dialog.failed.connect(written.append)
        out["export_dialog"] = lateness_while(app, dialog.run_export, lambda: bool(written))
        out["export_dialog"]["answer"] = written[0]
        # The WAV copies a drag of takes carries: written on the GUI thread (as before
        # issue 27), and from the press on, on the drag thread (the GUI thread's share:
        # the press's call, and how late the timer ran while the copies were written).
        import threading

        from studio.views.take_drag import DragFiles, write_copies

        drag = DragFiles(lambda: reader, print)
        for count in (1, takes):
            ids = tuple(r.take.id for r in rows[:count])
            names = tuple(r.name for r in rows[:count])
            folder = work / f"drag-sync-{count}"
            folder.mkdir()
            clock = time.perf_counter()
            write_copies(reader, ids, names, folder, threading.Event())
            out[f"take_drag_{count}_ms"] = round((time.perf_counter() - clock) * 1000, 1)
            pressed = {}

            def press(count=count, pressed=pressed):
                clock = time.perf_counter()
                pressed["future"] = drag.prepare(rows[:count])
                pressed["ms"] = round((time.perf_counter() - clock) * 1000, 1)

            late = lateness_while(app, press, lambda pressed=pressed: "future" in pressed
                                  and pressed["future"].done())
            out[f"take_drag_{count}_from_press"] = {**late, "press_ms": pressed["ms"]}
        drag.close()
    return out


def bench_bundle(work: Path) -> dict:
    import numpy as np
    import soundfile as sf
    import torch

    from studio.engine.prompt import VoicePrompt
    from studio.library.bundle_file import write_stored
    from studio.library.voices import VoiceLibrary

    rng = np.random.default_rng(0)
    sizes = {"3 s WAV": 3, "10 s WAV": 10, "60 s WAV": 60, "49 MB WAV": 49 * 2**20 / 4 / 24000}
    out = {}
    with VoiceLibrary(work / "voices") as library:
        for label, seconds in sizes.items():
            clip = work / f"clip-{seconds:.0f}.wav"
            sf.write(clip, (0.1 * rng.standard_normal(int(24000 * seconds))).astype("float32"),
                     24000, subtype="FLOAT")
            frames = min(int(25 * seconds), 1500)
            prompt = VoicePrompt(torch.randint(0, 1024, (8, frames)), "A clip.", 0.05)
            voice = library.create(f"Voice {label}", clip, prompt)
            times = []
            for n in range(5):
                clock = time.perf_counter()
                write_stored(library, voice.id, work / f"bundle-{seconds:.0f}-{n}.ovoice")
                times.append(time.perf_counter() - clock)
            out[label] = {"clip_mb": round(clip.stat().st_size / 2**20, 1),
                          "median_ms": round(statistics.median(times) * 1000, 1),
                          "max_ms": round(max(times) * 1000, 1)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--takes", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    work = Path(tempfile.mkdtemp(prefix="omnivoice-exports-bench-"))
    result = {
        "takes": args.takes, "take_seconds": args.seconds,
        "export": bench_export(app, work, args.takes, args.seconds),
        "bundle_write": bench_bundle(work),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
