"""InferenceWorker: lives in one long-lived QThread and owns everything model-side.

The engine, the voice-prompt cache and the acceleration path are created, used
and released on this thread only (CUDA graphs and compiled code belong to the
thread that made them). Requests arrive as queued slot calls, so they run one at
a time in order; cancellation is a ``threading.Event`` the decode loop checks
between steps, because a queued "cancel" call would wait behind the busy job.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from studio.engine.errors import UserError
from studio.worker.jobs import (
    AccelState,
    LoadRequest,
    ModelInfo,
    RenderRequest,
    RenderResult,
    TakeAudio,
)

log = logging.getLogger(__name__)

INTERNAL_ERROR = "An unexpected internal error stopped this job; the log file in the data folder has the details."


def accel_state(requested: str) -> AccelState:
    """What the standard engine can honour today: everything but 'off' falls back."""
    if requested == "off":
        return AccelState("off", "off", None)
    return AccelState(requested, "off", f"{requested}: not available in this version, rendered on the standard path")


class InferenceWorker(QObject):
    model_loading = Signal(str)  # a stage, for the status bar
    model_loaded = Signal(object)  # ModelInfo
    model_failed = Signal(str)
    progress = Signal(int, int, int, int, int)  # job, step, steps, chunk, chunks
    finished = Signal(int, object)  # job, RenderResult
    failed = Signal(int, str)  # job, one sentence
    cancelled = Signal(int)
    transcribed = Signal(int, str)  # job, transcript
    accel_changed = Signal(object)  # AccelState
    cache_cleared = Signal(int)  # entries removed

    def __init__(self, load_engine=None, data_dir: Path | None = None):
        super().__init__()
        self._load_engine = load_engine  # None: Engine.load, imported on this thread
        self._data_dir = data_dir
        self.engine = None  # studio.engine.engine.Engine, once loaded
        self.prompts = None  # PromptSource, made with the engine
        self.accel = AccelState("off", "off", None)
        self._request: LoadRequest | None = None

    # ---------------------------------------------------------------- model

    @Slot(object)
    def load_model(self, request: LoadRequest) -> None:
        from studio.engine.prompt_cache import PromptCache
        from studio.engine.prompts import PromptSource
        from studio.library.voices import saved_voice_cache_keys
        from studio.paths import data_dir

        self.model_loading.emit(f"Loading {request.source} …")
        try:
            # torch and transformers are first imported here, on the worker thread,
            # so the window is up and responsive while they load.
            from studio.engine.engine import Engine, precision_name

            load = self._load_engine or Engine.load
            engine = load(request.source, device=request.device, precision=request.precision)
        except UserError as exc:
            self.model_failed.emit(str(exc))
            return
        except Exception:
            log.exception("model load failed")
            self.model_failed.emit(INTERNAL_ERROR)
            return
        folder = (self._data_dir or data_dir()) / "prompt_cache" if request.disk_cache else None
        cache = PromptCache(folder, memory_items=request.memory_items, disk_items=request.disk_items)
        self.engine, self._request = engine, request
        self.prompts = PromptSource(
            engine, cache, asr_model=request.asr_model, keep_keys=saved_voice_cache_keys
        )
        self.accel = accel_state(request.accel)
        self.accel_changed.emit(self.accel)
        self.model_loaded.emit(
            ModelInfo(
                source=request.source,
                device=str(engine.device),
                precision=precision_name(engine.dtype),
                sample_rate=engine.sample_rate,
            )
        )

    @Slot(str)
    def set_accel(self, requested: str) -> None:
        self.accel = accel_state(requested)
        self.accel_changed.emit(self.accel)

    # --------------------------------------------------------------- render

    @Slot(int, object, object)
    def render(self, job: int, request: RenderRequest, cancel: threading.Event) -> None:
        from studio.engine.decode import Cancelled
        from studio.engine.engine import SynthesisItem, precision_name

        if cancel.is_set():
            self.cancelled.emit(job)
            return
        if self.engine is None:
            self.failed.emit(job, "The model is not loaded yet; wait for it or pick a model in Settings.")
            return
        warnings: list[str] = []
        started = time.perf_counter()
        try:
            prompt, source = None, "none"
            if request.reference is not None:
                prompt, source = self.prompts.obtain(
                    request.reference, request.ref_text, request.preprocess, warn=warnings.append
                )
            items = [
                SynthesisItem(
                    text=request.text,
                    language=request.language,
                    instruct=request.instruct,
                    prompt=prompt,
                    speed=request.speed,
                    duration=request.duration,
                    seed=seed,
                )
                for seed in request.seeds
            ]

            def on_progress(p) -> None:
                self.progress.emit(job, p.step, p.steps, p.chunk, p.chunks)

            renders = self.engine.synthesize(
                items, request.options, on_progress=on_progress, cancel=cancel, warn=warnings.append
            )
        except Cancelled:
            self.cancelled.emit(job)
            return
        except UserError as exc:
            self.failed.emit(job, str(exc))
            return
        except Exception:
            log.exception("render job %d failed", job)
            self.failed.emit(job, INTERNAL_ERROR)
            return
        self.finished.emit(
            job,
            RenderResult(
                request=request,
                takes=tuple(TakeAudio(r.audio, r.sample_rate, r.seed) for r in renders),
                seconds=time.perf_counter() - started,
                prompt_source=source,
                device=str(self.engine.device),
                precision=precision_name(self.engine.dtype),
                accel_requested=self.accel.requested,
                accel_active=self.accel.active,
                fallback_reason=self.accel.reason,
                warnings=tuple(warnings),
            ),
        )

    @Slot(int, object)
    def transcribe(self, job: int, reference: Path) -> None:
        if self.engine is None:
            self.failed.emit(job, "The model is not loaded yet; wait for it before transcribing.")
            return
        try:
            text = self.prompts.transcribe_file(reference)
        except UserError as exc:
            self.failed.emit(job, str(exc))
            return
        except Exception:
            log.exception("transcription job %d failed", job)
            self.failed.emit(job, INTERNAL_ERROR)
            return
        self.transcribed.emit(job, text)

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
        """Drop the model on this thread, before the thread stops."""
        self.engine = None
        self.prompts = None
