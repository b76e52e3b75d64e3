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

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from studio.service.requests import LoadRequest, RenderRequest
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
    # Private hops onto the worker thread (queued connections to its slots).
    _load = Signal(object)
    _defer = Signal(object)
    _check_folder = Signal(str)
    _render = Signal(int, object, object)
    _render_lines = Signal(int, object, object)
    _transcribe = Signal(int, object)
    _set_accel = Signal(str)
    _set_backend = Signal(object)
    _release = Signal()
    _clear_cache = Signal()
    _star_take = Signal(str, bool)
    _rename_take = Signal(str, str)
    _note_take = Signal(str, str)
    _delete_takes = Signal(object)
    _undelete_takes = Signal(object)
    _purge_takes = Signal()
    _set_asr_check = Signal(bool)
    _save_voice = Signal(int, object)
    _rename_voice = Signal(str, str)
    _delete_voice = Signal(str)
    _undelete_voice = Signal(str)
    _update_voice = Signal(str, object)
    _set_voice_transcript = Signal(str, str)
    _duplicate_voice = Signal(str)
    _import_voice = Signal(object)
    _export_voice = Signal(object, object)
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
        self._load.connect(self.worker.load_model)
        self._defer.connect(self.worker.defer_model)
        self._check_folder.connect(self.worker.check_folder)
        self._render.connect(self.worker.render)
        self._render_lines.connect(self.worker.render_lines)
        self._transcribe.connect(self.worker.transcribe)
        self._set_accel.connect(self.worker.set_accel)
        self._set_backend.connect(self.worker.set_backend)
        self._release.connect(self.worker.release)
        # Direct: quit() is called on the worker thread as release returns, so the
        # event loop ends after the release and never before it.
        self.worker.released.connect(self.thread.quit, Qt.ConnectionType.DirectConnection)
        self._clear_cache.connect(self.worker.clear_cache)
        self._star_take.connect(self.worker.star_take)
        self._rename_take.connect(self.worker.rename_take)
        self._note_take.connect(self.worker.note_take)
        self._delete_takes.connect(self.worker.delete_takes)
        self._undelete_takes.connect(self.worker.undelete_takes)
        self._purge_takes.connect(self.worker.purge_takes)
        self._set_asr_check.connect(self.worker.set_asr_check)
        self._save_voice.connect(self.worker.save_voice)
        self._rename_voice.connect(self.worker.rename_voice)
        self._delete_voice.connect(self.worker.delete_voice)
        self._undelete_voice.connect(self.worker.undelete_voice)
        self._update_voice.connect(self.worker.update_voice)
        self._set_voice_transcript.connect(self.worker.set_voice_transcript)
        self._duplicate_voice.connect(self.worker.duplicate_voice)
        self._import_voice.connect(self.worker.import_voice)
        self._export_voice.connect(self.worker.export_voice)
        self.worker.takes_changed.connect(self.takes_changed)
        self.worker.accel_availability.connect(self.accel_availability)
        for done in (self.worker.finished, self.worker.lines_finished, self.worker.failed,
                     self.worker.cancelled,
                     self.worker.transcribed, self.worker.voice_saved):
            done.connect(self._forget)
        self._ids = itertools.count(1)
        self._cancels: dict[int, threading.Event] = {}
        self.thread.start()

    @property
    def busy(self) -> bool:
        return bool(self._cancels)

    def load_model(self, request: LoadRequest) -> None:
        self._load.emit(request)

    def defer_model(self, request: LoadRequest) -> None:
        """Renders go to a speech server: load the model only when a job needs it."""
        self._defer.emit(request)

    def check_folder(self, folder: str) -> None:
        """Whether a folder holds a checkpoint, on the worker: ends in worker.folder_checked."""
        self._check_folder.emit(str(folder))

    def set_accel(self, requested: str) -> None:
        self._set_accel.emit(requested)

    def set_backend(self, config) -> None:
        """Render on a speech server (studio.service.remote_renderer.BackendConfig), or None: here."""
        self._set_backend.emit(config)

    def render(self, request: RenderRequest) -> int:
        job = next(self._ids)
        self._cancels[job] = threading.Event()
        self._render.emit(job, request, self._cancels[job])
        return job

    def render_lines(self, request) -> int:
        """A script's lines (LinesRequest); one job, cancelled as one."""
        job = next(self._ids)
        self._cancels[job] = threading.Event()
        self._render_lines.emit(job, request, self._cancels[job])
        return job

    def transcribe(self, reference: Path) -> int:
        job = next(self._ids)
        self._cancels[job] = threading.Event()
        self._transcribe.emit(job, reference)
        return job

    def clear_cache(self) -> None:
        self._clear_cache.emit()

    def save_voice(self, request) -> int:
        """A job that ends in worker.voice_saved(job, voice id) or worker.failed(job, sentence)."""
        job = next(self._ids)
        self._cancels[job] = threading.Event()  # busy until it ends; a save is not cancelled
        self._save_voice.emit(job, request)
        return job

    # Voice edits end in worker.voices_changed or worker.voices_failed(sentence).
    def rename_voice(self, voice_id: str, name: str) -> None:
        self._rename_voice.emit(voice_id, name)

    def delete_voice(self, voice_id: str) -> None:
        self._delete_voice.emit(voice_id)

    def undelete_voice(self, voice_id: str) -> None:
        self._undelete_voice.emit(voice_id)

    def update_voice(self, voice_id: str, changes: dict) -> None:
        self._update_voice.emit(voice_id, dict(changes))

    def set_voice_transcript(self, voice_id: str, transcript: str) -> None:
        self._set_voice_transcript.emit(voice_id, transcript)

    def duplicate_voice(self, voice_id: str) -> None:
        self._duplicate_voice.emit(voice_id)

    def import_voice(self, bundle: Path) -> None:
        self._import_voice.emit(Path(bundle))

    def export_voice(self, voice_id: str, target: Path) -> None:
        self._export_voice.emit(voice_id, Path(target))

    # Take library edits: the worker thread holds the one writer. Each ends in
    # worker.takes_changed (re-emitted as takes_changed) or worker.takes_failed(sentence).
    def star_take(self, take_id: str, starred: bool) -> None:
        self._star_take.emit(take_id, starred)

    def rename_take(self, take_id: str, name: str) -> None:
        self._rename_take.emit(take_id, name)

    def note_take(self, take_id: str, notes: str) -> None:
        self._note_take.emit(take_id, notes)

    def delete_takes(self, ids) -> None:
        self._delete_takes.emit((ids,) if isinstance(ids, str) else tuple(ids))

    def undelete_takes(self, ids) -> None:
        self._undelete_takes.emit((ids,) if isinstance(ids, str) else tuple(ids))

    def purge_takes(self) -> None:
        self._purge_takes.emit()

    def set_asr_check(self, enabled: bool) -> None:
        self._set_asr_check.emit(bool(enabled))

    def cancel(self, job: int | None = None) -> None:
        """Cancel one job, or every queued and running one."""
        for key, event in list(self._cancels.items()):
            if job is None or key == job:
                event.set()

    @Slot(int)
    def _forget(self, job: int, *_) -> None:
        self._cancels.pop(job, None)

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
        self._release.emit()
        return self.thread.wait(timeout_ms)
