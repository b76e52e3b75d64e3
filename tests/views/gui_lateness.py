"""How late the GUI thread runs while file work goes on: the measure the tests of work
moved off the GUI thread share (as benchmarks/bench_studio.py measures it)."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer


class Lateness:
    """How late a 10 ms GUI-thread timer fires: ``gaps`` in seconds, once started."""

    def __init__(self):
        self.gaps: list[float] = []
        self._last = None
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.monotonic()
        if self._last is not None:
            self.gaps.append(now - self._last - 0.010)
        self._last = now
