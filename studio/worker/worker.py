"""InferenceWorker: lives in one long-lived QThread and owns everything model-side.

The engine, the voice-prompt cache and the acceleration path are created, used
and released on this thread only (CUDA graphs and compiled code belong to the
thread that made them). Requests arrive as queued calls (``call``, from the
controller), so they run one at a time in order; cancellation is a job's
``threading.Event`` the decode loop checks between steps, because a queued
"cancel" call would wait behind the busy job.

This file holds the model's life (load, put off, acceleration, release) and the
signals; the renders (``rendering``, ``remote_rendering``), the take judging
(``judging``) and the library writes (``library_edits``) are mixins in files of their own. A job's own progress and end
go to its ``Job`` (``studio.worker.job``), not through these signals.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from studio.errors import ModelNotDownloaded, UserError
from studio.service.requests import AccelState, LoadRequest, ModelInfo
from studio.service.takes import TakeKeeper
from studio.worker.judging import TakeJudging
from studio.worker.library_edits import LibraryEdits
from studio.worker.remote_rendering import RemoteRendering
from studio.worker.rendering import LocalRendering, accel_state
from studio.worker.sentences import INTERNAL_ERROR, NOT_A_MODEL_FOLDER

log = logging.getLogger(__name__)


class InferenceWorker(LocalRendering, RemoteRendering, LibraryEdits, TakeJudging, QObject):
    model_loading = Signal(str)  # a stage, for the status bar
    model_loaded = Signal(object)  # ModelInfo
    model_failed = Signal(str)
    model_missing = Signal(str)  # the model setting (a repo id) has no copy here: offer the download
    folder_checked = Signal(str, str)  # folder, "" when it holds a checkpoint, else the sentence
    accel_changed = Signal(object)  # AccelState
    accel_availability = Signal(object)  # {mode: (available, reason)}, after each load
    cache_cleared = Signal(int)  # entries removed
    takes_changed = Signal()  # after any write to the take library
    takes_failed = Signal(str)  # a take edit was refused: one sentence
    voices_changed = Signal()  # after any write to the saved voices
    voices_failed = Signal(str)  # a voice edit was refused: one sentence
    voices_note = Signal(str)  # a voice edit done that the status bar says (import, delete...)
    released = Signal()  # the model is dropped and the library closed: the last job ran

    def __init__(self, load_engine=None, data_dir: Path | None = None, accel_platform=None):
        super().__init__()
        from studio.engine.accel.accelerator import Accelerator

        # One Accelerator for the worker's life: a mode that failed stays off until restart.
        self.accelerator = Accelerator("off", platform=accel_platform, on_stage=self._accel_stage)
        self._staged = False
        self._load_engine = load_engine  # None: Engine.load, imported on this thread
        self._data_dir = data_dir
        self.engine = None  # studio.engine.engine.Engine, once loaded
        self.prompts = None  # PromptSource, made with the engine
        self.accel = AccelState("off", "off", None)
        self._request: LoadRequest | None = None
        self.keeper = TakeKeeper(data_dir)  # the take library's one writer, opened lazily
        self._voices = None  # the saved voices' one writer (VoiceLibrary), opened lazily
        self.asr_check = False
        self.judging = None  # Settings → Judging (JudgingSettings), with each load
        self._judges = None  # the take judges (service.judging.Judges), made when first used
        self._purged = False  # deleted takes of earlier sessions go once, at the first load
        self._remote = None  # RemoteRenderer while Settings → Backend is Remote
        self._remote_problem: str | None = None  # why the Remote settings cannot be used
        # The load put off while renders go to a speech server (defer_model); a job
        # that needs the local model loads it then (_need_model).
        self._deferred: LoadRequest | None = None

    @Slot(str, object)
    def call(self, method: str, args: tuple) -> None:
        """One queued call from the controller: ``method(*args)`` on this thread. One
        hop for every request keeps the controller free of a signal per method; a new
        operation is a method here (over service/) and one line in the controller."""
        getattr(self, method)(*args)

    # ---------------------------------------------------------------- model

    @Slot(object)
    def load_model(self, request: LoadRequest) -> None:
        """Drop the current model, load the requested one; always ends in model_loaded or
        model_failed, then accel_availability (torch is imported by then)."""
        try:
            self._load_model(request)
        except Exception:
            log.exception("model load failed")
            self._drop_model()  # half set up is not loaded: render says so
            self.model_failed.emit(INTERNAL_ERROR)
        self._send_availability()

    @Slot(object)
    def defer_model(self, request: LoadRequest) -> None:
        """Start (or re-set) a session whose renders go to a speech server without the
        local model: a laptop that renders elsewhere should not spend minutes and
        gigabytes on it. The session's own start-up runs now; the model loads when a
        job needs it (a clip to transcribe, a voice to save, Backend back to This
        computer). A model already loaded goes: the settings changed under it."""
        self._begin(request)
        self._drop_model()
        self._deferred = request
        self._send_availability()  # Settings' acceleration list is filled in either way

    @Slot(str)
    def check_folder(self, folder: str) -> None:
        """Whether ``folder`` holds an OmniVoice checkpoint, by the checks every load runs
        first (config, tokenizer, codec, weights present); answers ``folder_checked``."""
        if Path(folder).is_dir() and not (Path(folder) / "config.json").is_file():
            self.folder_checked.emit(folder, NOT_A_MODEL_FOLDER.format(folder=folder))
            return
        try:
            from studio.engine.checkpoint import inspect_checkpoint

            inspect_checkpoint(folder)
        except UserError as exc:
            self.folder_checked.emit(folder, str(exc))
        except Exception:
            log.exception("checking the model folder %s failed", folder)
            self.folder_checked.emit(folder, INTERNAL_ERROR)
        else:
            self.folder_checked.emit(folder, "")

    def _need_model(self) -> None:
        """Load the put-off model now, for a job that needs it here."""
        if self.engine is None and self._deferred is not None:
            self.load_model(self._deferred)

    def _begin(self, request: LoadRequest) -> None:
        """What a load request sets besides the model; it applies even when no model loads."""
        self.asr_check = request.asr_check
        self.set_judging(request.judging)
        self.keeper.asr_problem = None  # a new ASR model setting gets a fresh try
        self._prune_on_start(request.retention_days)

    def _load_model(self, request: LoadRequest) -> None:
        from studio.paths import data_dir
        from studio.service.voices import prompt_source

        self._deferred = None
        self.model_loading.emit(f"Loading {request.source} …")
        self._begin(request)
        # The old model goes before the new one loads: never two models in memory.
        # From here a failed load leaves the studio without a model (model_failed says so).
        self._drop_model()
        try:
            # torch and transformers are first imported here, on the worker thread,
            # so the window is up and responsive while they load.
            from studio.engine.engine import Engine

            load = self._load_engine or Engine.load
            engine = load(request.source, device=request.device, precision=request.precision)
        except ModelNotDownloaded:
            self.model_missing.emit(request.source)
            return
        except UserError as exc:
            self.model_failed.emit(str(exc))
            return
        folder = (self._data_dir or data_dir()) / "prompt_cache" if request.disk_cache else None
        prompts = prompt_source(engine, folder, request.asr_model,
                                memory_items=request.memory_items, disk_items=request.disk_items)
        self.engine, self.prompts, self._request = engine, prompts, request
        self.accelerator.request(request.accel)
        self._prepare_accel()
        self.model_loaded.emit(self._model_info())

    def _drop_model(self) -> None:
        """Release the accelerated path and the engine, and give the memory back."""
        if self.engine is None and self.prompts is None:
            return
        try:
            self.accelerator.release()
        except Exception:  # the engine goes anyway; the next prepare starts clean
            log.exception("releasing the acceleration path failed")
        self.engine = None
        self.prompts = None
        self.accel = AccelState(self.accelerator.requested, "off", None)
        # No gc.collect() here: reference counting frees the model (a test shows it), and
        # a collection on this thread would also destroy the GUI thread's garbage, Qt
        # objects with running timers among them, on the wrong thread.
        try:
            self.accelerator.platform.empty_cache()  # a no-op without CUDA
        except Exception:
            log.exception("emptying the CUDA cache failed")

    def _send_availability(self) -> None:
        """Which acceleration modes, devices and precisions this machine can run,
        computed here: CUDA is this thread's. Sent as a plain dict for the Settings view."""
        try:
            from studio.engine.accel_probe import hardware, probe

            platform = self.accelerator.platform
            availability = {**probe(platform=platform), **hardware(platform=platform)}
        except Exception:
            log.exception("checking the acceleration modes failed")
            return
        self.accel_availability.emit(availability)

    @Slot(str)
    def set_accel(self, requested: str) -> None:
        """Switch acceleration; before a model is loaded it is applied with the load."""
        self.accelerator.request(requested)
        if self.engine is None:
            return
        self._staged = False
        self._prepare_accel()
        if self._staged:  # compile showed its warm-up as a loading stage: loaded again now
            self.model_loaded.emit(self._model_info())

    def _model_info(self) -> ModelInfo:
        engine = self.engine
        return ModelInfo(
            source=self._request.source,
            device=str(engine.device),
            precision=engine.precision,
            sample_rate=engine.sample_rate,
            precision_reason=getattr(engine, "precision_reason", ""),
            hop_length=engine.info.hop_length,
        )

    def _prepare_accel(self) -> None:
        try:
            self.accel = accel_state(self.accelerator.prepare(self.engine))
        except UserError as exc:  # a malformed override in the environment
            self.accel = AccelState(self.accelerator.requested, "off", str(exc))
        self.accel_changed.emit(self.accel)

    def _accel_stage(self, stage: str) -> None:
        self._staged = True
        self.model_loading.emit(f"Loading: {stage}")

    def transcribe(self, job, reference: Path) -> None:
        """A clip's transcript; ends in the job's ``done`` (the text) or ``failed``."""
        self._need_model()
        if self.engine is None:
            job.report("failed", "The model is not loaded yet; wait for it before transcribing.")
            return
        try:
            text = self.prompts.transcribe_file(reference)
        except Exception as exc:  # a sentence, or a bug (logged)
            self._job_stopped(job, exc)
            return
        job.report("done", text)

    @Slot()
    def clear_cache(self) -> None:
        """Empty the voice-prompt cache (memory and disk); the worker owns it."""
        if self.prompts is None:
            from studio.engine.prompt_cache import PromptCache, default_cache_folder

            removed = PromptCache(default_cache_folder()).clear()
        else:
            removed = self.prompts.cache.clear()
        self.cache_cleared.emit(removed)

    @Slot()
    def release(self) -> None:
        """The last job: drop the model and close the libraries on this thread, then
        say ``released`` (the controller ends the thread's event loop on it)."""
        try:
            self._drop_model()
            self._judges = None  # its models go with the session
            self.keeper.close()
            if self._voices is not None:
                self._voices.close()
                self._voices = None
        finally:
            self.released.emit()

