"""The Script view exporting a long mix: seconds the export takes and how late the GUI
thread's 10 ms timer runs meanwhile (the export writes on its own thread, issue 27).

A project of ``--lines`` lines, each a ``--take`` second take followed by ``--pause``
seconds, is exported (mix, two stems, SRT, cue sheet) from a ScriptView on the
offscreen platform; the same export is also timed alone, without Qt, as the command
line would run it. Nothing here asserts on time.

    python benchmarks/bench_script_export.py
    python benchmarks/bench_script_export.py --lines 40 --pause 60 --suffix .wav
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "views"))  # take_fixtures: takes in a real library
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=8)
    parser.add_argument("--take", type=float, default=20.0, help="seconds of each take")
    parser.add_argument("--pause", type=float, default=120.0, help="seconds after each line")
    parser.add_argument("--suffix", default=".flac")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-script-export-"))
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = str(home / "data")

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication
    from take_fixtures import add, voice

    from studio.library.takes import TakeLibrary
    from studio.scripts.export import export_plan, plan_mix
    from studio.views.script_view import ScriptView

    app = QApplication.instance() or QApplication([])
    writer = TakeLibrary(home / "lib")
    reader = TakeLibrary(home / "lib", read_only=True)
    script = home / "long.txt"
    script.write_text("".join(f"{'Alice' if n % 2 == 0 else 'Bob'}: Line {n}.\n"
                              for n in range(args.lines)), encoding="utf-8")
    view = ScriptView(None, takes=lambda: reader)
    view.resize(1366, 768)
    view.show()
    view.open(script)
    for n, line in enumerate(view.project.lines()):
        take = add(writer, line.text, seed=n, audio=voice(args.take, freq=150 + 10 * n)).id
        view.project.choose_take(line.id, take)
        view.project.set_line(line.id, pause_after=args.pause)
    view._refresh()
    seconds_of_audio = args.lines * (args.take + args.pause)

    started = time.monotonic()
    export_plan(plan_mix(view.project), reader, home / f"alone{args.suffix}")
    alone = time.monotonic() - started

    gaps, last = [], [None]

    def tick() -> None:
        now = time.monotonic()
        if last[0] is not None:
            gaps.append((now - last[0]) * 1000 - 10)
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    loop = QEventLoop()
    view.message.connect(lambda _s: loop.quit())
    view.exportEdit.setText(str(home / f"window{args.suffix}"))
    timer.start()
    started = time.monotonic()
    view.exportButton.click()
    loop.exec()
    in_window = time.monotonic() - started
    timer.stop()
    view.close_project()
    gaps.sort()

    def pick(q: float) -> float:
        return round(gaps[min(len(gaps) - 1, int(q * len(gaps)))], 1) if gaps else None

    result = {
        "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
        "mix_minutes": round(seconds_of_audio / 60, 1), "suffix": args.suffix,
        "export_alone_s": round(alone, 2), "export_in_window_s": round(in_window, 2),
        "gui_ticks": len(gaps), "gui_late_p50_ms": pick(0.5), "gui_late_p99_ms": pick(0.99),
        "gui_late_max_ms": round(gaps[-1], 1) if gaps else None,
    }
    print(json.dumps(result, indent=1))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    app.processEvents()


if __name__ == "__main__":
    main()
