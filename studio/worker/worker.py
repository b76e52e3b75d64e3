"""InferenceWorker: lives in one long-lived QThread and owns everything model-side.

The engine, the voice-prompt cache and the acceleration path are created, used
and released on this thread only (CUDA graphs and compiled code belong to the
thread that made them). Requests arrive as queued slot calls, so they run one at
a time in order; cancellation is a ``threading.Event`` the decode loop checks
between steps, because a queued "cancel" call would wait behind the busy job.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from studio.errors import ModelNotDownloaded, UserError
from studio.service.requests import (
    AccelState,
    LineDone,
    LinesRequest,
    LinesResult,
    LoadRequest,
    ModelInfo,
    RenderRequest,
    RenderResult,
    TakeAudio,
    VoiceSaveRequest,
)
from studio.service.takes import TakeKeeper, take_run

log = logging.getLogger(__name__)

INTERNAL_ERROR = "An unexpected internal error stopped this job; the log file in the data folder has the details."
NOT_LOADED = "The model is not loaded yet; wait for it or pick a model in Settings."
NOT_A_MODEL_FOLDER = ("{folder} does not hold an OmniVoice model; choose the folder with "
                      "config.json, model.safetensors and audio_tokenizer/ in it.")
MAX_REMOTE_TAKES = 8  # a render's takes sent to a speech server at once
TAKES_NOT_SAVED = "The takes could not be saved to the library; the log file in the data folder has the details."


def accel_state(report) -> AccelState:
    """An Accelerator's report (studio.engine.accel) as the dataclass the views receive."""
    return AccelState(report.requested, report.active, report.reason)


def _lines_lexicon(request: LinesRequest):
    """The project's dictionary before the data folder's (read now: edits apply)."""
    from studio.engine.lexicon import load_pronunciations

    lexicon = load_pronunciations()
    if request.dictionary:
        return request.dictionary + lexicon if lexicon else request.dictionary
    return lexicon


class InferenceWorker(QObject):
    model_loading = Signal(str)  # a stage, for the status bar
    model_loaded = Signal(object)  # ModelInfo
    model_failed = Signal(str)
    model_missing = Signal(str)  # the model setting (a repo id) has no copy here: offer the download
    folder_checked = Signal(str, str)  # folder, "" when it holds a checkpoint, else the sentence
    progress = Signal(int, int, int, int, int)  # job, step, steps, chunk, chunks
    # job, studio.engine.stream.StreamChunk: the first take's audio as each chunk is decoded
    # (a render the accelerator had to start again begins again at chunk 0)
    chunk_ready = Signal(int, object)
    line_rendered = Signal(int, object)  # job, LineDone: one line of a lines job saved
    lines_finished = Signal(int, object)  # job, LinesResult
    finished = Signal(int, object)  # job, RenderResult
    failed = Signal(int, str)  # job, one sentence
    cancelled = Signal(int)
    transcribed = Signal(int, str)  # job, transcript
    accel_changed = Signal(object)  # AccelState
    accel_availability = Signal(object)  # {mode: (available, reason)}, after each load
    cache_cleared = Signal(int)  # entries removed
    takes_changed = Signal()  # after any write to the take library
    takes_failed = Signal(str)  # a take edit was refused: one sentence
    voice_saved = Signal(int, str)  # job, the new voice's id
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
        self._purged = False  # deleted takes of earlier sessions go once, at the first load
        self._remote = None  # RemoteRenderer while Settings → Backend is Remote
        self._remote_problem: str | None = None  # why the Remote settings cannot be used
        # The load put off while renders go to a speech server (defer_model); a job
        # that needs the local model loads it then (_need_model).
        self._deferred: LoadRequest | None = None

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

    # --------------------------------------------------------------- render

    @Slot(int, object, object)
    def render(self, job: int, request: RenderRequest, cancel: threading.Event) -> None:
        from studio.service.voices import synthesis_items

        if not self._here(job, request, cancel, self._render_remote):
            return
        warnings: list[str] = []
        started = time.perf_counter()
        try:
            prompt, source, sha, voice = self._voice_prompt(request, warnings)
            from studio.engine.lexicon import load_pronunciations

            lexicon = load_pronunciations()  # the data folder's; edits apply to the next render
            items = synthesis_items(request.text, request.seeds, language=request.language,
                                    instruct=request.instruct, prompt=prompt,
                                    speed=request.speed, duration=request.duration,
                                    lexicon=lexicon)

            def on_progress(p) -> None:
                self.progress.emit(job, p.step, p.steps, p.chunk, p.chunks)

            first_audio: list[float] = []

            def on_chunk(chunk) -> None:
                if chunk.item == 0:  # the first take streams while the batch renders
                    if not first_audio:
                        first_audio.append(time.perf_counter() - started)
                    self.chunk_ready.emit(job, chunk)

            streaming = request.stream and request.options.chunking == "quick-start"
            renders = self._synthesize(items, request.options, warnings, on_progress=on_progress,
                                       cancel=cancel, on_chunk=on_chunk if streaming else None)
        except Exception as exc:
            self._job_stopped(job, exc, "render")
            return
        self._finish(job, request, renders, started, sha, voice, warnings, RenderResult(
            request=request, takes=(), seconds=0.0, prompt_source=source,
            device=str(self.engine.device), precision=self.engine.precision,
            accel_requested=self.accel.requested, accel_active=self.accel.active,
            fallback_reason=self.accel.reason,
            first_audio_seconds=first_audio[0] if first_audio else None))

    def _here(self, job: int, request, cancel, remote) -> bool:
        """Whether the job renders on this engine; if not, it is answered already:
        cancelled before it ran, handed to ``remote`` (Settings → Backend), or refused
        while no model is loaded."""
        if cancel.is_set():
            self.cancelled.emit(job)
        elif self._remote is not None or self._remote_problem is not None:
            remote(job, request, cancel)
        else:
            self._need_model()
            if self.engine is not None:
                return True
            self.failed.emit(job, NOT_LOADED)
        return False

    def _finish(self, job, request, renders, started, sha, voice, warnings, result,
                run=None) -> None:
        """Save a render's takes and send ``finished`` with ``result`` completed."""
        seconds = time.perf_counter() - started
        if voice is not None:
            self._edit_voices(lambda library: library.record_use(voice.id))
        try:
            batch, ids = self._keep_takes(request, renders, seconds, sha, warnings, run)
        except Exception:  # the audio still reaches the user, unsaved
            log.exception("saving the takes of render job %d failed", job)
            warnings.append(TAKES_NOT_SAVED)
            batch, ids = None, [None] * len(renders)
        self.finished.emit(job, dataclasses.replace(
            result, seconds=seconds, warnings=tuple(dict.fromkeys(warnings)), batch=batch,
            takes=tuple(TakeAudio(r.audio, r.sample_rate, r.seed, take_id)
                        for r, take_id in zip(renders, ids))))

    # ---------------------------------------------------------------- remote

    @Slot(object)
    def set_backend(self, config) -> None:
        """Render on a speech server (a BackendConfig), or here again (None)."""
        if self._remote is not None:
            self._remote.close()
        self._remote, self._remote_problem = None, None
        if config is None:
            self._need_model()  # rendering here again: as at start-up, the model loads now
            return
        from studio.service.remote_renderer import RemoteRenderer

        try:
            self._remote = RemoteRenderer(config)
        except UserError as exc:  # said at the next render, where the user looks
            self._remote_problem = str(exc)

    def _render_remote(self, job: int, request: RenderRequest, cancel) -> None:
        from studio.engine.lexicon import load_pronunciations
        from studio.service.remote_renderer import Pieces

        warnings: list[str] = []
        started = time.perf_counter()
        first_audio: list[float] = []

        def on_chunk(chunk) -> None:
            if not first_audio:
                first_audio.append(time.perf_counter() - started)
            self.chunk_ready.emit(job, chunk)

        try:
            remote, voice, remote_voice = self._remote_voice(request)
            lexicon = load_pronunciations()
            seeds = remote.seeds(request)
            self.progress.emit(job, 0, len(seeds), 0, 1)
            pieces = Pieces(on_chunk) if request.stream else None

            def take(seed, stop, on_piece=None):
                return remote.render(request, remote_voice, seed, lexicon=lexicon, cancel=stop,
                                     on_piece=on_piece, warn=warnings.append)

            renders = self._remote_takes(job, seeds, take, cancel, pieces)
        except Exception as exc:
            self._job_stopped(job, exc, "remote render")
            return
        sha = hashlib.sha256(remote_voice.clip).hexdigest() if remote_voice.clip else None
        run = self._remote_run(remote, renders, time.perf_counter() - started)
        self._finish(job, request, renders, started, sha, voice, warnings, RenderResult(
            request=request, takes=(), seconds=0.0, prompt_source="remote",
            device=run.device, precision=run.precision, accel_requested="off",
            accel_active="off", fallback_reason=None,
            first_audio_seconds=first_audio[0] if first_audio else None), run)

    def _remote_takes(self, job: int, seeds, take, cancel, pieces) -> list:
        """Every take of one render at once: a server batches requests that arrive
        together (our serve rendered 7 in about the time of one on an H200). The first
        take renders on this thread, streamed to ``pieces`` when given, the others on
        helper threads. The user's cancel or any take's failure closes every request;
        the first failure is what the user reads."""
        from concurrent.futures import ThreadPoolExecutor

        from studio.engine.decode import Cancelled

        stop = threading.Event()  # every take's cancel: the user's, or a failed sibling's
        done = threading.Event()
        failures: list[Exception] = []  # the helpers', in the order they came

        def watch(future) -> None:
            exc = future.exception()
            if exc is not None and not isinstance(exc, Cancelled):
                failures.append(exc)
                stop.set()

        def link() -> None:  # the user's cancel, passed on to every take
            while not done.wait(0.1):
                if cancel.is_set():
                    stop.set()
                    return

        def first_failure(exc: BaseException) -> BaseException:
            return failures[0] if failures else exc

        with ThreadPoolExecutor(max(1, min(len(seeds), MAX_REMOTE_TAKES) - 1),
                                thread_name_prefix="remote-take") as pool:
            others = [pool.submit(take, seed, stop) for seed in seeds[1:]]
            for future in others:
                future.add_done_callback(watch)
            threading.Thread(target=link, name="remote-takes-cancel", daemon=True).start()
            try:
                try:
                    renders = [take(seeds[0], stop, pieces and pieces.add)]
                except Cancelled as exc:  # by the user, or because a sibling failed
                    raise first_failure(exc) from None
                if pieces is not None:
                    pieces.end()
                self.progress.emit(job, 1, len(seeds), 0, 1)
                for future in others:
                    try:
                        renders.append(future.result())
                    except Exception as exc:
                        raise first_failure(exc) from None
                    self.progress.emit(job, len(renders), len(seeds), 0, 1)
                return renders
            finally:
                stop.set()  # however this ends, no take goes on rendering
                done.set()

    def _remote_voice(self, request):
        """(renderer, the saved voice or None, the voice as the server gets it)."""
        from studio.service.remote_renderer import voice_of

        if self._remote is None:
            raise UserError(self._remote_problem)
        saved = self._saved_voice(request.voice_id)
        clip = self.voice_library().clip_path(saved.id) if saved is not None else None
        here = self.prompts is not None or self._deferred is not None
        return self._remote, saved, voice_of(request, saved, clip,
                                             self._transcribe_here if here else None)

    def _transcribe_here(self, path: Path) -> str:
        """A clip's transcript from the local ASR, loading the put-off model first."""
        self._need_model()
        if self.prompts is None:  # the load failed: model_failed has said why
            raise UserError(NOT_LOADED)
        return self.prompts.transcribe_file(path)

    @staticmethod
    def _remote_run(remote, renders, seconds: float):
        from studio import __version__
        from studio.library.takes import TakeRun

        audio_seconds = sum(r.audio.size / r.sample_rate for r in renders)
        last = renders[-1]
        return TakeRun(
            model_source=last.model or remote.backend.url, device="remote",
            precision=last.dialect, accel_requested="off", accel_active="off",
            fallback_reason=None, engine_version=__version__, seconds=seconds,
            rtf=seconds / audio_seconds if audio_seconds > 0 else 0.0,
            backend=remote.backend.url, server_model=last.model,
            reported=dict(last.reported))

    def _voice_prompt(self, request: RenderRequest, warnings: list):
        """(prompt, where it came from, the clip's sha256, the saved voice) of a request."""
        from studio.service.voices import VoiceChoice, resolve_voice

        voice = self._saved_voice(request.voice_id)
        if voice is not None:  # encoded when it was saved: read from disk
            library = self.voice_library()
            prompt, source = resolve_voice(self.engine, self.prompts,
                                           VoiceChoice(saved_prompt=library.prompt_path(voice.id)))
            return prompt, source, self.prompts.audio_sha256(library.clip_path(voice.id)), voice
        # A reference clip (also a deleted voice's take, from its clip), or a design
        prompt, source = resolve_voice(self.engine, self.prompts, VoiceChoice(
            reference=request.reference, ref_text=request.ref_text,
            preprocess=request.preprocess), warn=warnings.append)
        sha = self.prompts.audio_sha256(request.reference) if request.reference else None
        return prompt, source, sha, None

    @Slot(int, object, object)
    def render_lines(self, job: int, request: LinesRequest, cancel: threading.Event) -> None:
        """A script's lines: batched by voice and settings, each line saved as a take and
        sent (``line_rendered``) as its batch ends, so a cancel or a failure keeps the
        lines rendered before it."""
        from studio.service.lines import batches
        from studio.service.voices import synthesis_items

        if not self._here(job, request, cancel, self._render_lines_remote):
            return
        warnings: list[str] = []
        started = time.perf_counter()
        total, done, audio_seconds = len(request.lines), 0, 0.0
        try:
            lexicon = _lines_lexicon(request)
            for batch in batches(request.lines):
                first = request.lines[batch[0]]
                prompt, _source, sha, voice = self._voice_prompt(first, warnings)
                items = [item for i in batch for item in synthesis_items(
                    request.lines[i].text, request.lines[i].seeds[:1], language=first.language,
                    instruct=first.instruct, prompt=prompt, speed=first.speed,
                    duration=request.lines[i].duration, lexicon=lexicon)]

                def on_progress(p, done=done) -> None:
                    self.progress.emit(job, p.step, p.steps, done, total)

                batch_started = time.perf_counter()
                renders = self._synthesize(items, first.options, warnings,
                                           on_progress=on_progress, cancel=cancel)
                if voice is not None:
                    self._edit_voices(lambda library, v=voice.id: library.record_use(v))
                for i, render in zip(batch, renders):
                    take_id = self._keep_line(request.lines[i], render,
                                              time.perf_counter() - batch_started, sha, warnings)
                    done += 1
                    audio_seconds += render.audio.size / render.sample_rate
                    self.line_rendered.emit(job, LineDone(
                        request.keys[i], TakeAudio(render.audio, render.sample_rate,
                                                   render.seed, take_id), done - 1, total))
        except Exception as exc:
            self._job_stopped(job, exc, "render-lines")
            return
        self.lines_finished.emit(job, LinesResult(done, time.perf_counter() - started,
                                                  audio_seconds, tuple(dict.fromkeys(warnings))))

    def _synthesize(self, items, options, warnings: list, **hooks):
        """One engine call on the accelerated path, falling back (and saying why) as the
        accelerator decides."""
        renders = self.accelerator.run(lambda: self.engine.synthesize(
            items, options, warn=warnings.append, **hooks))
        report = accel_state(self.accelerator.report)
        if report != self.accel:  # the accelerated path failed; the standard one rendered
            self.accel = report
            if report.reason:
                warnings.append(report.reason)
            self.accel_changed.emit(report)
        return renders

    def _job_stopped(self, job: int, exc: Exception, what: str) -> None:
        """A render ended early: cancelled, refused with a sentence, or a bug (logged)."""
        from studio.engine.decode import Cancelled

        if isinstance(exc, Cancelled):
            self.cancelled.emit(job)
        elif isinstance(exc, UserError):
            self.failed.emit(job, str(exc))
        else:
            log.error("%s job %d failed", what, job, exc_info=exc)
            self.failed.emit(job, INTERNAL_ERROR)

    def _render_lines_remote(self, job: int, request: LinesRequest, cancel) -> None:
        """A script's lines on the server, one call a line (servers take one voice a
        call); each line kept and sent as it arrives, as here."""
        warnings: list[str] = []
        started = time.perf_counter()
        total, audio_seconds = len(request.lines), 0.0
        voices: dict = {}  # a clip speaker's voice (its transcript, maybe transcribed) once
        try:
            lexicon = _lines_lexicon(request)
            for index, line in enumerate(request.lines):
                self.progress.emit(job, 0, 1, index, total)
                which = (line.voice_id, line.reference, line.ref_text, line.instruct)
                if which not in voices:
                    voices[which] = self._remote_voice(line)
                remote, voice, remote_voice = voices[which]
                line_started = time.perf_counter()
                render = remote.render(line, remote_voice, remote.seeds(line)[0],
                                       lexicon=lexicon, cancel=cancel, warn=warnings.append)
                seconds = time.perf_counter() - line_started
                sha = (hashlib.sha256(remote_voice.clip).hexdigest()
                       if remote_voice.clip else None)
                if voice is not None:
                    self._edit_voices(lambda library, v=voice.id: library.record_use(v))
                take_id = self._keep_line(line, render, seconds, sha, warnings,
                                          self._remote_run(remote, [render], seconds))
                audio_seconds += render.audio.size / render.sample_rate
                self.line_rendered.emit(job, LineDone(
                    request.keys[index], TakeAudio(render.audio, render.sample_rate,
                                                   render.seed, take_id), index, total))
        except Exception as exc:
            self._job_stopped(job, exc, "remote render-lines")
            return
        self.lines_finished.emit(job, LinesResult(total, time.perf_counter() - started,
                                                  audio_seconds, tuple(dict.fromkeys(warnings))))

    def _keep_line(self, request, render, seconds, sha, warnings, run=None) -> str | None:
        try:
            _batch, ids = self._keep_takes(request, [render], seconds, sha, warnings, run)
        except Exception:  # the line's audio still reaches the view, unsaved
            log.exception("saving a line's take failed")
            warnings.append(TAKES_NOT_SAVED)
            return None
        return ids[0]

    def _keep_takes(self, request, renders, seconds, sha, warnings,
                    run=None) -> tuple[str, list]:
        """Save the takes (and their ASR check) before ``finished``; never fails the render.
        ``run``: how they were rendered (None: by this worker's engine)."""
        if run is None:
            audio_seconds = sum(r.audio.shape[-1] / r.sample_rate for r in renders)
            run = take_run(self._request.source, str(self.engine.device),
                           self.engine.precision, self.accel, seconds,
                           audio_seconds)
        cers = [None] * len(renders)
        if self.asr_check:
            prompts = self.prompts
            transcribe = (prompts.transcribe_audio
                          if prompts is not None and prompts.transcriber_factory else None)
            cers = self.keeper.check_asr(request.text, renders, transcribe, warnings.append)
        batch, ids = self.keeper.save(request, renders, run, sha, cers, warnings.append)
        if any(ids):
            self.takes_changed.emit()
        return batch, ids

    @Slot(int, object)
    def transcribe(self, job: int, reference: Path) -> None:
        self._need_model()
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
        """The last job: drop the model and close the libraries on this thread, then
        say ``released`` (the controller ends the thread's event loop on it)."""
        try:
            self._drop_model()
            self.keeper.close()
            if self._voices is not None:
                self._voices.close()
                self._voices = None
        finally:
            self.released.emit()

    # --------------------------------------------------------------- voices

    def voice_library(self):
        """The saved voices' writer, opened on this thread at first use."""
        if self._voices is None:
            from studio.library.voices import VoiceLibrary

            self._voices = VoiceLibrary(self._data_dir)
        return self._voices

    def _saved_voice(self, voice_id: str | None):
        from studio.library.voices import VoiceNotFound

        if voice_id is None:
            return None
        try:
            return self.voice_library().get(voice_id)
        except VoiceNotFound:
            return None

    @Slot(int, object)
    def save_voice(self, job: int, request: VoiceSaveRequest) -> None:
        """Encode the clip once, through the prompt cache, and save it as a voice; ends in
        voice_saved or failed. Nothing is written unless every check passed."""
        from studio.library import fields
        from studio.library.clips import check_voice_clip

        self._need_model()
        if self.engine is None:
            self.failed.emit(job, "The model is not loaded yet; wait for it before saving a voice.")
            return
        try:
            library = self.voice_library()
            try:
                name = fields.clean_name(request.name)
            except fields.InvalidField as exc:
                raise UserError(exc.sentence()) from None
            if library.name_taken(name):
                raise UserError(f"A voice named '{name}' already exists; choose another name.")
            check_voice_clip(request.clip)
            prompt, _source = self.prompts.obtain(request.clip, request.transcript,
                                                  request.preprocess)
            key = self.prompts.key_for(request.clip, request.transcript, request.preprocess)
            voice = library.create(name, request.clip, prompt, tags=request.tags,
                                   language=request.language, cache_key=key)
        except UserError as exc:
            self.failed.emit(job, str(exc))
            return
        except Exception:
            log.exception("saving voice job %d failed", job)
            self.failed.emit(job, INTERNAL_ERROR)
            return
        self.voices_changed.emit()
        self.voice_saved.emit(job, voice.id)

    def _edit_voices(self, change, note=None) -> None:
        """``note(result)``: the sentence to say once ``change`` returned ``result``."""
        def said(library):
            result = change(library)
            if note is not None:
                self.voices_note.emit(note(result))

        self._edit(self.voice_library, said, self.voices_changed, self.voices_failed)

    @Slot(str, str)
    def rename_voice(self, voice_id: str, name: str) -> None:
        self._edit_voices(lambda library: library.rename(voice_id, name))

    @Slot(str)
    def delete_voice(self, voice_id: str) -> None:
        """Undoable for the session (the takes panel's undo bar works the same way)."""
        self._edit_voices(lambda library: library.delete(voice_id, undoable=True))

    @Slot(str)
    def undelete_voice(self, voice_id: str) -> None:
        self._edit_voices(lambda library: library.undelete(voice_id),
                          lambda voice: f"Restored the voice '{voice.name}'.")

    @Slot(str, object)
    def update_voice(self, voice_id: str, changes) -> None:
        """``changes``: any of tags, notes, language (see VoiceLibrary.update)."""
        self._edit_voices(lambda library: library.update(voice_id, **dict(changes)))

    @Slot(str, str)
    def set_voice_transcript(self, voice_id: str, transcript: str) -> None:
        self._edit_voices(lambda library: library.set_transcript(voice_id, transcript))

    @Slot(str)
    def duplicate_voice(self, voice_id: str) -> None:
        self._edit_voices(lambda library: library.duplicate(voice_id),
                          lambda copy: f"Saved a copy as '{copy.name}'.")

    @Slot(object)
    def import_voice(self, bundle: Path) -> None:
        """An .ovoice file, checked whole before anything is written; a taken name gets
        " (2)" (the command line refuses it instead, and suggests --rename)."""
        from studio.library.bundle import import_voice

        def imported(library):
            spec = self.engine.info.audio if self.engine is not None else None
            return import_voice(library, bundle, codebooks=spec.codebooks if spec else None,
                                codebook_size=spec.mask_id if spec else None)

        self._edit_voices(imported, lambda voice: f"Imported the voice '{voice.name}'.")

    @Slot(object, object)
    def export_voice(self, voice_id: str, target: Path) -> None:
        from studio.library.bundle import export_voice

        self._edit_voices(lambda library: export_voice(library, voice_id, target),
                          lambda path: f"Exported the voice to {path}.")

    # ---------------------------------------------------------------- takes

    def _prune_on_start(self, days: float) -> None:
        """Open the writer now (its sweep recovers from a crash); at the session's first
        load, purge the takes deleted in an earlier session (undo lasts one session) and
        apply retention. Only then: a reload or a settings change never deletes takes."""
        if self._purged:
            self._edit_takes(lambda library: None)
            return
        self._purged = True
        self._edit_takes(lambda library: (library.purge_deleted(), library.prune(days)))
        self._edit_voices(lambda library: library.purge_deleted())  # undo lasts one session

    def _edit_takes(self, change) -> None:
        self._edit(self.keeper.library, change, self.takes_changed, self.takes_failed)

    @staticmethod
    def _edit(library, change, changed, failed) -> None:
        """Apply ``change`` to the library ``library()`` opens; say ``changed``, or the
        sentence through ``failed``."""
        try:
            change(library())
        except UserError as exc:
            failed.emit(str(exc))
            return
        except Exception:
            log.exception("a library change failed")
            failed.emit(INTERNAL_ERROR)
            return
        changed.emit()

    @Slot(str, bool)
    def star_take(self, take_id: str, starred: bool) -> None:
        self._edit_takes(lambda library: library.set_starred(take_id, starred))

    @Slot(str, str)
    def rename_take(self, take_id: str, name: str) -> None:
        self._edit_takes(lambda library: library.rename(take_id, name))

    @Slot(str, str)
    def note_take(self, take_id: str, notes: str) -> None:
        self._edit_takes(lambda library: library.set_notes(take_id, notes))

    @Slot(object)
    def delete_takes(self, ids) -> None:
        self._edit_takes(lambda library: library.delete(ids))

    @Slot(object)
    def undelete_takes(self, ids) -> None:
        self._edit_takes(lambda library: library.undelete(ids))

    @Slot()
    def purge_takes(self) -> None:
        self._edit_takes(lambda library: library.purge_deleted())

    @Slot(bool)
    def set_asr_check(self, enabled: bool) -> None:
        self.asr_check = bool(enabled)
        self.keeper.asr_problem = None
