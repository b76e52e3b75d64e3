"""WorkerController: the main thread's handle on the inference worker.

It owns the QThread and the worker, hands out job ids, keeps one cancel event
per job, and stops the thread cleanly on shutdown. Views talk to it (and listen
to ``controller.worker``'s signals, which Qt delivers on the main thread); they
never call the engine.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal, Slot

from studio.worker.jobs import LoadRequest, RenderRequest
from studio.worker.worker import InferenceWorker


class WorkerController(QObject):
    # Private hops onto the worker thread (queued connections to its slots).
    _load = Signal(object)
    _render = Signal(int, object, object)
    _transcribe = Signal(int, object)
    _set_accel = Signal(str)
    _release = Signal()
    _clear_cache = Signal()

    def __init__(self, worker: InferenceWorker | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.worker = worker if worker is not None else InferenceWorker()
        self.thread = QThread()
        self.thread.setObjectName("inference-worker")
        self.worker.moveToThread(self.thread)
        self._load.connect(self.worker.load_model)
        self._render.connect(self.worker.render)
        self._transcribe.connect(self.worker.transcribe)
        self._set_accel.connect(self.worker.set_accel)
        self._release.connect(self.worker.release)
        self._clear_cache.connect(self.worker.clear_cache)
        for done in (self.worker.finished, self.worker.failed, self.worker.cancelled,
                     self.worker.transcribed):
            done.connect(self._forget)
        self._ids = itertools.count(1)
        self._cancels: dict[int, threading.Event] = {}
        self.thread.start()

    @property
    def busy(self) -> bool:
        return bool(self._cancels)

    def load_model(self, request: LoadRequest) -> None:
        self._load.emit(request)

    def set_accel(self, requested: str) -> None:
        self._set_accel.emit(requested)

    def render(self, request: RenderRequest) -> int:
        job = next(self._ids)
        self._cancels[job] = threading.Event()
        self._render.emit(job, request, self._cancels[job])
        return job

    def transcribe(self, reference: Path) -> int:
        job = next(self._ids)
        self._cancels[job] = threading.Event()
        self._transcribe.emit(job, reference)
        return job

    def clear_cache(self) -> None:
        self._clear_cache.emit()

    def cancel(self, job: int | None = None) -> None:
        """Cancel one job, or every queued and running one."""
        for key, event in list(self._cancels.items()):
            if job is None or key == job:
                event.set()

    @Slot(int)
    def _forget(self, job: int, *_) -> None:
        self._cancels.pop(job, None)

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """Cancel everything, release the model on its thread, stop the thread."""
        if not self.thread.isRunning():
            return True
        self.cancel()
        self._release.emit()
        self.thread.quit()
        return self.thread.wait(timeout_ms)
