"""What judgements cost the takes list on the GUI thread: one reload of the takes model
(read the library, parse each take's judgement, arrange and rank the rows) and one paint
of the list, with every take judged against none judged.

    python benchmarks/bench_takes_list.py                 # 500 and 2000 takes
    python benchmarks/bench_takes_list.py --takes 200 --repeats 3 --json-out list.json

The takes are short (0.1 s) so filling the library is quick; the judgements are the
judges' own scoring of fixed measurements (tests/views/take_fixtures.py). Medians are
printed; nothing here asserts on time.
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
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "views")]
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def fill(folder: Path, count: int, judged: bool) -> None:
    from take_fixtures import add, judgement, voice

    from studio.library.takes import TakeLibrary

    text = "The quick brown fox jumps over the lazy dog."
    stored = [judgement(text, heard, similarity, quality) for heard, similarity, quality in (
        (None, 0.93, 3.9), ("the quick fox jumps over the lazy dog", 0.85, 3.4),
        ("the quick brown box jumps over a very lazy dog", 0.62, 2.2), (None, 0.8, 3.0))]
    audio = voice(0.1)
    with TakeLibrary(folder) as library:
        for i in range(count):
            take = add(library, text, seed=i, batch=f"b{i // 4}", audio=audio)
            if judged:
                library.set_judgements(take.id, stored[i % 4])


def measure(count: int, judged: bool, repeats: int) -> dict:
    from PySide6.QtWidgets import QListView

    from studio.library.takes import TakeLibrary
    from studio.views.take_delegate import TakeDelegate
    from studio.views.takes_model import TakesModel

    with tempfile.TemporaryDirectory() as folder:
        fill(Path(folder), count, judged)
        with TakeLibrary(folder, read_only=True) as library:
            model = TakesModel()
            view = QListView()
            view.setModel(model)
            view.setItemDelegate(TakeDelegate(view))
            view.setUniformItemSizes(True)
            view.resize(330, 480)
            reloads, paints = [], []
            for _ in range(repeats + 1):  # the first is a warm-up
                start = time.perf_counter()
                model.reload(library)
                reloads.append(time.perf_counter() - start)
                start = time.perf_counter()
                view.grab()
                paints.append(time.perf_counter() - start)
    return {"takes": count, "judged": judged, "rows": model.rowCount(),
            "reload_ms": round(1000 * statistics.median(reloads[1:]), 2),
            "paint_ms": round(1000 * statistics.median(paints[1:]), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--takes", default="500,2000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json-out")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841 - widgets need it
    results = []
    for count in (int(n) for n in args.takes.split(",")):
        for judged in (False, True):
            row = measure(count, judged, args.repeats)
            results.append(row)
            print(f"{count} takes, {'judged' if judged else 'unjudged'}: reload "
                  f"{row['reload_ms']} ms, paint {row['paint_ms']} ms", flush=True)
    report = {"machine": platform.processor() or platform.machine(), "results": results}
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
