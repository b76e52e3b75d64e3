"""WorkerController: the main thread's handle on the inference worker.

It owns the QThread and the worker, makes a ``Job`` for each render, script render,
transcription and voice save (the asker connects to that job's signals), and stops
the thread cleanly on shutdown. Every request reaches the worker as one queued
call on its thread; the worker's non-job signals (model, libraries) are read from
``controller.worker``, and Qt delivers them on the main thread. Views never call
the engine.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from studio.service.requests import LoadRequest, RenderRequest
from studio.worker.job import Job
from studio.worker.worker import InferenceWorker

# How long quitting waits for the worker: a render stops at its next decoding step, but
# one step of the full model on a CPU takes seconds, and a transcription cannot stop.
SHUTDOWN_WAIT_MS = 4_000


class WorkerThread(QThread):
    """The worker's QThread, whose event loop runs inside a Python ``run``.

    With Qt's own ``run``, the thread has no Python thread state between calls:
    PySide makes one for a slot call and deletes it when the call returns. pybind11 (torch) remembers the thread state of
    the thread that first imports it, so torch imported by the model load on this
    thread kept a pointer to a state PySide then freed, and the next tensor freed
    here (a ``from_numpy`` deleter taking the GIL) crashed. A Python ``run`` holds
    one thread state from the thread's start to its end, shared by every slot call,
    like a ``threading.Thread``'s (docs/architecture.md, "Threads and Python").
    """

    def run(self) -> None:
        self.exec()


class WorkerController(QObject):
    # The one hop onto the worker thread: (method name, its arguments), queued to
    # InferenceWorker.call, so requests run there one at a time, in the order asked.
    _call = Signal(str, object)
    # A job was handed out (its asker connects to it next): for observers of every job.
    job_started = Signal(object)
    # Re-emitted from the worker (on the main thread): the take library changed.
    takes_changed = Signal()
    # Re-emitted from the worker after each model load attempt: {mode: (available, reason)},
    # computed on the worker thread (it owns CUDA), for the Settings view.
    accel_availability = Signal(object)

    def __init__(self, worker: InferenceWorker | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.worker = worker if worker is not None else InferenceWorker()
        self.thread = WorkerThread()
        self.thread.setObjectName("inference-worker")
        self.worker.moveToThread(self.thread)
        self._call.connect(self.worker.call)
        # Direct: quit() is called on the worker thread as release returns, so the
        # event loop ends after the release and never before it.
        self.worker.released.connect(self.thread.quit, Qt.ConnectionType.DirectConnection)
        self.worker.takes_changed.connect(self.takes_changed)
        self.worker.accel_availability.connect(self.accel_availability)
        self._numbers = itertools.count(1)
        self._jobs: set[Job] = set()  # not over yet: busy, and cancelled by cancel()
        self.thread.start()

    def _ask(self, method: str, *args) -> None:
        getattr(InferenceWorker, method)  # a misspelt method fails here, not on the worker
        self._call.emit(method, args)

    def _start(self, kind: str, method: str, request) -> Job:
        """A job for ``method(job, request)`` on the worker, handed to the asker."""
        job = Job(kind, next(self._numbers), parent=self)
        self._jobs.add(job)
        job.ended.connect(self._forget)
        self._ask(method, job, request)
        self.job_started.emit(job)
        return job

    @Slot()
    def _forget(self) -> None:
        job = self.sender()
        self._jobs.discard(job)
        # Deleted here, on the main thread, once its last signal was delivered; the
        # worker no longer touches it (its end was its last report).
        job.deleteLater()

    @property
    def busy(self) -> bool:
        return bool(self._jobs)

    def load_model(self, request: LoadRequest) -> None:
        self._ask("load_model", request)

    def defer_model(self, request: LoadRequest) -> None:
        """Renders go to a speech server: load the model only when a job needs it."""
        self._ask("defer_model", request)

    def check_folder(self, folder: str) -> None:
        """Whether a folder holds a checkpoint, on the worker: ends in worker.folder_checked."""
        self._ask("check_folder", str(folder))

    def set_accel(self, requested: str) -> None:
        self._ask("set_accel", requested)

    def set_backend(self, config) -> None:
        """Render on a speech server (studio.service.remote_renderer.BackendConfig), or
        None: here."""
        self._ask("set_backend", config)

    def render(self, request: RenderRequest) -> Job:
        """A Generate click's takes: the job's ``done`` carries a RenderResult."""
        return self._start("render", "render", request)

    def render_lines(self, request) -> Job:
        """A script's lines (LinesRequest); one job, cancelled as one: ``line`` for each
        line kept, ``done`` with a LinesResult."""
        return self._start("lines", "render_lines", request)

    def transcribe(self, reference: Path) -> Job:
        """A clip's transcript: the job's ``done`` carries the text."""
        return self._start("transcribe", "transcribe", reference)

    def save_voice(self, request) -> Job:
        """Save as voice: the job's ``done`` carries the new voice's id (it is not cancelled)."""
        return self._start("save-voice", "save_voice", request)

    def clear_cache(self) -> None:
        self._ask("clear_cache")

    # Voice edits end in worker.voices_changed or worker.voices_failed(sentence).
    def rename_voice(self, voice_id: str, name: str) -> None:
        self._ask("rename_voice", voice_id, name)

    def delete_voice(self, voice_id: str) -> None:
        self._ask("delete_voice", voice_id)

    def undelete_voice(self, voice_id: str) -> None:
        self._ask("undelete_voice", voice_id)

    def update_voice(self, voice_id: str, changes: dict) -> None:
        self._ask("update_voice", voice_id, dict(changes))

    def set_voice_transcript(self, voice_id: str, transcript: str) -> None:
        self._ask("set_voice_transcript", voice_id, transcript)

    def duplicate_voice(self, voice_id: str) -> None:
        self._ask("duplicate_voice", voice_id)

    def import_voice(self, bundle: Path) -> None:
        self._ask("import_voice", Path(bundle))

    def export_voice(self, voice_id: str, target: Path) -> None:
        self._ask("export_voice", voice_id, Path(target))

    # Take library edits: the worker thread holds the one writer. Each ends in
    # worker.takes_changed (re-emitted as takes_changed) or worker.takes_failed(sentence).
    def star_take(self, take_id: str, starred: bool) -> None:
        self._ask("star_take", take_id, starred)

    def rename_take(self, take_id: str, name: str) -> None:
        self._ask("rename_take", take_id, name)

    def note_take(self, take_id: str, notes: str) -> None:
        self._ask("note_take", take_id, notes)

    def delete_takes(self, ids) -> None:
        self._ask("delete_takes", (ids,) if isinstance(ids, str) else tuple(ids))

    def undelete_takes(self, ids) -> None:
        self._ask("undelete_takes", (ids,) if isinstance(ids, str) else tuple(ids))

    def purge_takes(self) -> None:
        self._ask("purge_takes")

    def set_asr_check(self, enabled: bool) -> None:
        self._ask("set_asr_check", bool(enabled))

    def set_judging(self, settings) -> None:
        """Settings → Judging (a JudgingSettings), from the next render on."""
        self._ask("set_judging", settings)

    def cancel(self, job: Job | None = None) -> None:
        """Cancel one job, or every queued and running one."""
        for each in list(self._jobs) if job is None else [job]:
            each.cancel()

    def shutdown(self, timeout_ms: int = SHUTDOWN_WAIT_MS) -> bool:
        """Cancel every job, then release the model and stop the thread, in that order.

        The release is queued behind the slot the worker is in (a render stops at its
        next step; a model load or a transcription runs to its end) and quits the
        thread's event loop itself, so it always runs before the thread stops. Returns
        False when the thread is still busy after ``timeout_ms``: the thread object is
        then kept (destroying a running QThread aborts the process) and the caller
        decides how to end the process.
        """
        if not self.thread.isRunning():
            return True
        self.cancel()
        self._ask("release")
        return self.thread.wait(timeout_ms)
