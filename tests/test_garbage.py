"""Garbage collection stays on the GUI thread while the studio runs, and the worker frees
a model without collecting (a collection there destroys the GUI thread's Qt objects on
the wrong thread)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref

from PySide6.QtCore import QObject, QTimer, qInstallMessageHandler

from studio.garbage import MainThreadCollector


class Ticker(QObject):
    """A Python-owned QObject with a running timer, kept alive only by a reference cycle."""

    def __init__(self):
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setInterval(10)
        self.timer.start()
        self.cycle = self


def _qt_messages():
    messages: list[str] = []
    previous = qInstallMessageHandler(lambda _kind, _context, text: messages.append(text))
    return messages, previous


def _cycles(count: int) -> None:
    """Leave ``count`` lists that only a collection frees."""
    for _ in range(count):
        item: list = []
        item.append(item)


def _allocate_on_another_thread() -> None:
    """Enough allocation on a worker thread to cross Python's collection threshold."""
    def churn():
        junk = []
        for _ in range(gc.get_threshold()[0] * 20):
            junk.append([[]])  # container objects count towards the threshold
        junk.clear()

    worker = threading.Thread(target=churn)
    worker.start()
    worker.join()


def test_qt_garbage_is_collected_on_the_gui_thread_only(qapp):
    collector = MainThreadCollector()
    messages, previous = _qt_messages()
    collector.start()
    try:
        ticker = Ticker()
        alive = weakref.ref(ticker)
        del ticker
        _allocate_on_another_thread()
        assert alive() is not None, "no automatic collection ran on the other thread"
        _cycles(gc.get_threshold()[0] + 10)  # garbage enough to cross the threshold
        assert collector.collect() > 0  # the tick, on this (the GUI) thread
        assert alive() is None
    finally:
        collector.stop()
        qInstallMessageHandler(previous)
    assert not [m for m in messages if "another thread" in m], messages


REPRODUCTION = """
import gc, threading
from PySide6.QtCore import QCoreApplication, QObject, QTimer
app = QCoreApplication([])
class Ticker(QObject):
    def __init__(self):
        super().__init__()
        self.timer = QTimer(self); self.timer.setInterval(10); self.timer.start()
        self.cycle = self
ticker = Ticker(); del ticker
thread = threading.Thread(target=gc.collect); thread.start(); thread.join()
print("collected elsewhere", flush=True)
QTimer.singleShot(200, app.quit); app.exec()
"""


def test_without_it_a_collection_elsewhere_destroys_the_timer_object_there():
    # The failure the collector exists for, in a child process: it may well crash.
    done = subprocess.run([sys.executable, "-c", REPRODUCTION], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert "collected elsewhere" in done.stdout
    assert "Timers cannot be stopped from another thread" in done.stderr


def test_the_collector_follows_pythons_thresholds_and_hands_back(qapp):
    was = gc.isenabled()
    collector = MainThreadCollector(interval_ms=5)
    collector.start()
    try:
        assert not gc.isenabled()
        _cycles(gc.get_threshold()[0] + 10)
        assert collector.collect() > 0
        assert collector.collect() == 0  # below the threshold now: nothing to do
    finally:
        collector.stop()
    assert gc.isenabled() == was


def test_dropping_the_model_frees_it_without_a_collection(engine, tiny_checkpoint, qapp):
    from studio.service.requests import LoadRequest
    from studio.worker.worker import InferenceWorker

    worker = InferenceWorker()
    gc.disable()
    try:
        worker.load_model(LoadRequest(str(tiny_checkpoint), device="cpu", precision="fp32",
                                      disk_cache=False))
        net = weakref.ref(worker.engine.net)
        worker.load_model(LoadRequest(str(tiny_checkpoint), device="cpu", precision="fp32",
                                      disk_cache=False))
        assert net() is None, "the old model is gone before the new one is in use"
    finally:
        gc.enable()
        worker.release()
