"""Quitting while the worker is inside a slot: the release still runs, on the worker
thread, before the thread stops; a slot that outlasts the wait leaves the thread
object alive (destroying a running QThread aborts the process)."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QObject, Signal, Slot

from studio.worker.controller import WorkerController
from studio.worker.worker import InferenceWorker


class SlowWorker(InferenceWorker):
    """A worker with one slot that ignores its cancel event, as a model load does."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds = seconds
        self.entered = threading.Event()
        self.released_on: list[str] = []  # the thread each release ran on
        close = self.keeper.close  # the release's last step: closing the take library

        def closing() -> None:
            self.released_on.append(threading.current_thread().name)
            close()

        self.keeper.close = closing

    @Slot()
    def busy(self) -> None:
        self.entered.set()
        time.sleep(self.seconds)


class Poke(QObject):
    go = Signal()


def _busy_controller(seconds: float) -> tuple[WorkerController, SlowWorker, Poke]:
    worker = SlowWorker(seconds)
    controller = WorkerController(worker)
    poke = Poke()
    poke.go.connect(worker.busy)
    poke.go.emit()
    assert worker.entered.wait(5)
    return controller, worker, poke


def test_quitting_inside_a_slot_still_releases_the_model_before_the_thread_stops(qapp):
    controller, worker, _poke = _busy_controller(0.5)
    assert controller.shutdown(timeout_ms=10_000) is True
    assert not controller.thread.isRunning()
    assert len(worker.released_on) == 1 and worker.released_on[0] != "MainThread"


def test_a_slot_that_outlasts_the_wait_keeps_the_thread_and_releases_after_it(qapp):
    controller, worker, _poke = _busy_controller(1.5)
    assert controller.shutdown(timeout_ms=100) is False  # the caller decides what to do
    assert controller.thread.isRunning() and worker.released_on == []
    assert controller.thread.wait(10_000)  # the slot ends, the queued release runs, then quit
    assert len(worker.released_on) == 1


def test_shutdown_twice_is_harmless(qapp):
    controller, _worker, _poke = _busy_controller(0.05)
    assert controller.shutdown() is True
    assert controller.shutdown() is True
