"""The worker's renders on a speech server (Settings → Backend: Remote): a Generate
click's takes, all sent at once, and a script's lines, one call a line; each kept as
takes as a local render's are.

A mixin of ``InferenceWorker``; every method runs on the worker thread. The server
calls themselves are ``studio.service.remote_renderer``'s.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from pathlib import Path

from studio.errors import UserError
from studio.service.requests import (
    LineDone,
    LinesRequest,
    LinesResult,
    RenderRequest,
    RenderResult,
)
from studio.worker.rendering import lines_lexicon
from studio.worker.sentences import NOT_LOADED

MAX_REMOTE_TAKES = 8  # a render's takes sent to a speech server at once


class RemoteRendering:
    # ---------------------------------------------------------------- remote

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

    def _render_remote(self, job, request: RenderRequest) -> None:
        from studio.engine.lexicon import load_pronunciations
        from studio.service.remote_renderer import Pieces

        warnings: list[str] = []
        started = time.perf_counter()
        first_audio: list[float] = []

        def on_chunk(chunk) -> None:
            if not first_audio:
                first_audio.append(time.perf_counter() - started)
            job.report("chunk", chunk)

        try:
            remote, voice, remote_voice = self._remote_voice(request)
            lexicon = load_pronunciations()
            seeds = remote.seeds(request)
            job.report("progress", 0, len(seeds), 0, 1)
            pieces = Pieces(on_chunk) if request.stream else None

            def take(seed, stop, on_piece=None):
                return remote.render(request, remote_voice, seed, lexicon=lexicon, cancel=stop,
                                     on_piece=on_piece, warn=warnings.append)

            renders = self._remote_takes(job, seeds, take, pieces)
        except Exception as exc:
            self._job_stopped(job, exc)
            return
        sha = hashlib.sha256(remote_voice.clip).hexdigest() if remote_voice.clip else None
        run = self._remote_run(remote, renders, time.perf_counter() - started)
        self._finish(job, request, renders, started, sha, voice, warnings, RenderResult(
            request=request, takes=(), seconds=0.0, prompt_source="remote",
            device=run.device, precision=run.precision, accel_requested="off",
            accel_active="off", fallback_reason=None,
            first_audio_seconds=first_audio[0] if first_audio else None), run)

    def _remote_takes(self, job, seeds, take, pieces) -> list:
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
                if job.stop.is_set():
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
                job.report("progress", 1, len(seeds), 0, 1)
                for future in others:
                    try:
                        renders.append(future.result())
                    except Exception as exc:
                        raise first_failure(exc) from None
                    job.report("progress", len(renders), len(seeds), 0, 1)
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
        from studio.library.take_record import TakeRun

        audio_seconds = sum(r.audio.size / r.sample_rate for r in renders)
        last = renders[-1]
        return TakeRun(
            model_source=last.model or remote.backend.url, device="remote",
            precision=last.dialect, accel_requested="off", accel_active="off",
            fallback_reason=None, engine_version=__version__, seconds=seconds,
            rtf=seconds / audio_seconds if audio_seconds > 0 else 0.0,
            backend=remote.backend.url, server_model=last.model,
            reported=dict(last.reported))

    def _render_lines_remote(self, job, request: LinesRequest) -> None:
        """A script's lines on the server, one call a line (servers take one voice a
        call); each line kept and sent as it arrives, as here."""
        warnings: list[str] = []
        started = time.perf_counter()
        total, audio_seconds = len(request.lines), 0.0
        voices: dict = {}  # a clip speaker's voice (its transcript, maybe transcribed) once
        render_batch = uuid.uuid4().hex  # the render's takes list together (as here)
        try:
            lexicon = lines_lexicon(request)
            for index, line in enumerate(request.lines):
                job.report("progress", 0, 1, index, total)
                which = (line.voice_id, line.reference, line.ref_text, line.instruct)
                if which not in voices:
                    voices[which] = self._remote_voice(line)
                remote, voice, remote_voice = voices[which]
                line_started = time.perf_counter()
                render = remote.render(line, remote_voice, remote.seeds(line)[0],
                                       lexicon=lexicon, cancel=job.stop, warn=warnings.append)
                seconds = time.perf_counter() - line_started
                sha = (hashlib.sha256(remote_voice.clip).hexdigest()
                       if remote_voice.clip else None)
                if voice is not None:
                    self._edit_voices(lambda library, v=voice.id: library.record_use(v))
                take = self._keep_line(job, line, render, seconds, sha, warnings, voice,
                                       self._remote_run(remote, [render], seconds),
                                       batch=render_batch)
                audio_seconds += render.audio.size / render.sample_rate
                job.report("line", LineDone(request.keys[index], take, index, total))
        except Exception as exc:
            self._job_stopped(job, exc)
            return
        job.report("done", LinesResult(total, time.perf_counter() - started,
                                                  audio_seconds, tuple(dict.fromkeys(warnings))))

