"""Garbage collection on the GUI thread only.

Python's automatic collection runs on whichever thread happens to allocate when a
threshold is crossed: the worker thread, or PortAudio's callback thread. A
collection there also destroys the GUI thread's garbage, and a Qt object with a
running timer destroyed off its own thread leaves the timer registered ("Timers
cannot be stopped from another thread"); the next tick on the GUI thread then
crashed. So while the studio runs, automatic collection is off and this collector
does the same work from a GUI-thread timer, with Python's own thresholds.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer, Slot

INTERVAL_MS = 500


class MainThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        self._was_enabled: bool | None = None

    def start(self) -> None:
        """Turn automatic collection off; collect from the GUI thread's timer instead."""
        if self._was_enabled is None:
            self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Give collection back to Python, as it was before :meth:`start`."""
        self._timer.stop()
        if self._was_enabled:
            gc.enable()
        self._was_enabled = None

    @Slot()
    def collect(self) -> int:
        """Collect the generations whose thresholds are crossed, as Python would."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return 0
        generation = 0
        if counts[1] > thresholds[1]:
            generation = 2 if counts[2] > thresholds[2] else 1
        return gc.collect(generation)
