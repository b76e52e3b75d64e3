"""The Voices view with a large library: opening it, and filtering while typing.

Builds a library of N voices (default 1,000: short clips and random prompts in
the real layout, through VoiceLibrary) in a temp data folder, then, in this
process, with Qt offscreen:

- open: the view built, its read-only library read and the first screen of cards
  painted (each drawn card reads its clip: only the visible ones are read);
- keystroke: one character typed into the search box, up to the repainted list,
  for each character of a few queries (median and worst).

Usage (from the repository root)::

    python benchmarks/bench_voices.py                  # 1,000 voices
    python benchmarks/bench_voices.py --voices 5000 --json-out voices.json

The target is under 100 ms per keystroke with 1,000 voices; this prints the
numbers, nothing here asserts on time.
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

QUERIES = ("narrator", "calm story", "voice 42", "zz")
TAGS = ("calm", "story", "news", "narrator", "game", "promo", "support", "asmr")


def build_library(folder: Path, count: int) -> None:
    import numpy as np
    import soundfile as sf
    import torch

    from studio.engine.prompt import VoicePrompt
    from studio.library.voices import VoiceLibrary

    rng = np.random.default_rng(0)
    clip = folder / "clip.wav"
    sf.write(clip, (0.1 * rng.standard_normal(24000 * 3)).astype("float32"), 24000)
    prompt = VoicePrompt(torch.randint(0, 1024, (8, 75)), "A line of the clip.", 0.05)
    with VoiceLibrary(folder / "data") as library:
        for n in range(count):
            tags = [TAGS[(n + k) % len(TAGS)] for k in range(n % 3)]
            library.create(f"Voice {n}", clip, prompt, transcript=f"Line number {n} of the clip.",
                           tags=tags)


def settle(app) -> None:
    app.processEvents()
    app.processEvents()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", type=int, default=1000)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="omnivoice-voices-bench-"))
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = str(work / "data")
    started = time.perf_counter()
    build_library(work, args.voices)
    built = time.perf_counter() - started

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from studio.views.voices_view import VoicesView

    clock = time.perf_counter()
    view = VoicesView()
    view.resize(900, 700)
    view.show()
    view.refresh()
    view.list.viewport().repaint()
    settle(app)
    opened = time.perf_counter() - clock
    assert view.model.total() == args.voices, view.model.total()

    strokes = []
    for query in QUERIES:
        view.searchEdit.clear()
        settle(app)
        for i in range(1, len(query) + 1):
            clock = time.perf_counter()
            view.searchEdit.setText(query[:i])  # textChanged filters, as typing does
            view.list.viewport().repaint()
            settle(app)
            strokes.append(time.perf_counter() - clock)
    result = {
        "voices": args.voices,
        "build_s": round(built, 1),
        "open_ms": round(opened * 1000, 1),
        "keystroke_median_ms": round(statistics.median(strokes) * 1000, 2),
        "keystroke_max_ms": round(max(strokes) * 1000, 2),
        "keystrokes": len(strokes),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "python": platform.python_version(),
    }
    print(json.dumps(result, indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))
    view.close_library()
    return 0


if __name__ == "__main__":
    sys.exit(main())
