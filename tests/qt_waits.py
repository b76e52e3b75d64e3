"""Waiting in tests for a signal the worker thread emits.

pytest-qt's ``waitSignal`` connects its blocker directly, so on a worker signal the
blocker runs, and stops its timer, on the worker thread ("QObject::killTimer: Timers
cannot be stopped from another thread"), and it returns before the GUI's own queued
slots for that signal have run. ``after_worker`` relays the signal to the GUI thread
through a queued connection made after the GUI's, so the wait ends on the GUI thread
once the GUI has seen the signal too. (``QTest.qWait`` would starve the worker: under
PySide6 it keeps the GIL while it waits.)
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QObject, Qt, Signal


class _Relay(QObject):
    arrived = Signal(tuple)

    def relay(self, *args) -> None:
        self.arrived.emit(args)


@contextlib.contextmanager
def after_worker(qtbot, signal, timeout: int = 60_000):
    """``with after_worker(qtbot, worker.finished) as got: ...``; then ``got.args``."""
    relay = _Relay()
    signal.connect(relay.relay, Qt.ConnectionType.QueuedConnection)
    try:
        with qtbot.waitSignal(relay.arrived, timeout=timeout) as blocker:
            yield _Arrival(blocker)
    finally:
        signal.disconnect(relay.relay)


@contextlib.contextmanager
def after_job(qtbot, controller, signal: str = "done", timeout: int = 60_000):
    """``with after_job(qtbot, controller) as got: <click Generate>``: waits for
    ``signal`` of the next job the controller hands out, until the window's own
    receivers have run too; then ``got.args`` (e.g. ``(result,)``)."""
    relay = _Relay()

    def started(job) -> None:
        controller.job_started.disconnect(started)
        getattr(job, signal).connect(relay.relay, Qt.ConnectionType.QueuedConnection)

    controller.job_started.connect(started)
    with qtbot.waitSignal(relay.arrived, timeout=timeout) as blocker:
        yield _Arrival(blocker)


class _Arrival:
    def __init__(self, blocker):
        self._blocker = blocker

    @property
    def args(self) -> tuple:
        return self._blocker.args[0] if self._blocker.args else ()
