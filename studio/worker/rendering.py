"""The worker's local renders: a Generate click's takes and a script's lines on this
engine, each saved as takes before the job says it is done.

A mixin of ``InferenceWorker`` (its signals and state live there); every method runs
on the worker thread. A job is a ``studio.worker.job.Job``: its ``stop`` is the
cancel the decode loop checks, and its ``report`` says progress, chunks and the end.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid

from studio.errors import UserError
from studio.service.requests import (
    AccelState,
    JudgingSettings,
    LineDone,
    LinesRequest,
    LinesResult,
    RenderRequest,
    RenderResult,
    TakeAudio,
)
from studio.service.takes import take_run
from studio.worker.sentences import ATTEMPT_STAGE, INTERNAL_ERROR, NOT_LOADED, TAKES_NOT_SAVED

log = logging.getLogger(__name__)


def accel_state(report) -> AccelState:
    """An Accelerator's report (studio.engine.accel) as the dataclass the views receive."""
    return AccelState(report.requested, report.active, report.reason)


def lines_lexicon(request: LinesRequest):
    """The project's dictionary before the data folder's (read now: edits apply)."""
    from studio.engine.lexicon import load_pronunciations

    lexicon = load_pronunciations()
    if request.dictionary:
        return request.dictionary + lexicon if lexicon else request.dictionary
    return lexicon


class LocalRendering:
    # --------------------------------------------------------------- render

    def render(self, job, request: RenderRequest) -> None:
        """A Generate click's takes, in one batched engine call; ends in ``done`` with a
        RenderResult, ``failed`` or ``cancelled``."""
        from studio.service.voices import synthesis_items

        if not self._here(job, request, self._render_remote):
            return
        if request.until_pass and len(request.seeds) > 1:
            self._render_until_pass(job, request)
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
                job.report("progress", p.step, p.steps, p.chunk, p.chunks)

            first_audio: list[float] = []

            def on_chunk(chunk) -> None:
                if chunk.item == 0:  # the first take streams while the batch renders
                    if not first_audio:
                        first_audio.append(time.perf_counter() - started)
                    job.report("chunk", chunk)

            streaming = request.stream and request.options.chunking == "quick-start"
            renders = self._synthesize(items, request.options, warnings, on_progress=on_progress,
                                       cancel=job.stop, on_chunk=on_chunk if streaming else None)
        except Exception as exc:
            self._job_stopped(job, exc)
            return
        self._finish(job, request, renders, started, sha, voice, warnings, RenderResult(
            request=request, takes=(), seconds=0.0, prompt_source=source,
            device=str(self.engine.device), precision=self.engine.precision,
            accel_requested=self.accel.requested, accel_active=self.accel.active,
            fallback_reason=self.accel.reason,
            first_audio_seconds=first_audio[0] if first_audio else None))

    def _here(self, job, request, remote) -> bool:
        """Whether the job renders on this engine; if not, it is answered already:
        cancelled before it ran, handed to ``remote`` (Settings → Backend), or refused
        while no model is loaded."""
        if job.stop.is_set():
            job.report("cancelled")
        elif self._remote is not None or self._remote_problem is not None:
            remote(job, request)
        else:
            self._need_model()
            if self.engine is not None:
                return True
            job.report("failed", NOT_LOADED)
        return False

    def _finish(self, job, request, renders, started, sha, voice, warnings, result,
                run=None) -> None:
        """Save a render's takes, judge them (Settings → Judging) and send ``done`` with
        ``result`` completed."""
        seconds = time.perf_counter() - started
        if voice is not None:
            self._edit_voices(lambda library: library.record_use(voice.id, len(renders)))
        batch, ids, heard = self._keep_or_warn(job, request, renders, seconds, sha, warnings,
                                               run)
        judged = [None] * len(renders)
        if self.judging_on(request):
            judged = self.judge_renders(job, request, renders, ids,
                                        self.judging_reference(request, voice), heard)
        from studio.service.judging import TakeJudgement, best_note

        note = best_note([TakeJudgement.from_dict(j) if j else None for j in judged])
        job.report("done", dataclasses.replace(
            result, seconds=seconds, warnings=tuple(dict.fromkeys(warnings)), batch=batch,
            judging_note=note,
            takes=tuple(TakeAudio(r.audio, r.sample_rate, r.seed, take_id, judgement)
                        for r, take_id, judgement in zip(renders, ids, judged))))

    def _keep_or_warn(self, job, request, renders, seconds, sha, warnings, run=None,
                      batch=None):
        """(batch, take ids, heard words) of the saved takes; a failed save keeps the
        audio for the user, unsaved, with a warning."""
        try:
            return self._keep_takes(request, renders, seconds, sha, warnings, run, batch)
        except Exception:
            log.exception("saving the takes of %r failed", job)
            warnings.append(TAKES_NOT_SAVED)
            return None, [None] * len(renders), []

    def _render_until_pass(self, job, request: RenderRequest) -> None:
        """Render until one passes: the request's seeds one at a time, each take saved and
        judged before the next, stopping at the first that passes (Settings → Judging's
        threshold, no judge saying bad); the result carries every take rendered."""
        from studio.engine.lexicon import load_pronunciations
        from studio.service.judging import TakeJudgement, pass_note, passes
        from studio.service.voices import synthesis_items

        warnings: list[str] = []
        started = time.perf_counter()
        limit = len(request.seeds)
        pass_at = (self.judging or JudgingSettings()).pass_at
        takes: list[TakeAudio] = []
        results: list[TakeJudgement] = []
        batch = uuid.uuid4().hex  # the takes of one request sit together in the library
        first_audio: list[float] = []
        try:
            prompt, source, sha, voice = self._voice_prompt(request, warnings)
            reference = self.judging_reference(request, voice)
            items = synthesis_items(request.text, request.seeds, language=request.language,
                                    instruct=request.instruct, prompt=prompt,
                                    speed=request.speed, duration=request.duration,
                                    lexicon=load_pronunciations())
            streaming = request.stream and request.options.chunking == "quick-start"
            for i, item in enumerate(items):
                job.report("stage", ATTEMPT_STAGE.format(n=i + 1, limit=limit))
                take_started = time.perf_counter()

                def on_chunk(chunk) -> None:
                    if not first_audio:
                        first_audio.append(time.perf_counter() - started)
                    job.report("chunk", chunk)

                [render] = self._synthesize(
                    [item], request.options, warnings, cancel=job.stop,
                    on_progress=lambda p: job.report("progress", p.step, p.steps, p.chunk,
                                                     p.chunks),
                    on_chunk=on_chunk if streaming and i == 0 else None)
                _batch, ids, heard = self._keep_or_warn(
                    job, request, [render], time.perf_counter() - take_started, sha,
                    warnings, batch=batch)
                [judged] = self.judge_renders(job, request, [render], ids, reference, heard,
                                              first=i, total=limit)
                takes.append(TakeAudio(render.audio, render.sample_rate, render.seed, ids[0],
                                       judged))
                results.append(TakeJudgement.from_dict(judged) if judged else
                               TakeJudgement((), None))
                if passes(results[-1], pass_at):
                    break
        except Exception as exc:
            if not takes:
                self._job_stopped(job, exc)
                return
            # Cancelled or failed after some takes: they are saved; say why it stopped.
            from studio.engine.decode import Cancelled

            if isinstance(exc, Cancelled):
                warnings.append(f"Cancelled after take {len(takes)} of at most {limit}; the "
                                f"takes rendered are kept.")
            else:
                log.error("%r stopped", job, exc_info=exc)
                warnings.append(str(exc) if isinstance(exc, UserError) else INTERNAL_ERROR)
        if voice is not None:
            self._edit_voices(lambda library: library.record_use(voice.id, len(takes)))
        job.report("done", RenderResult(
            request=request, takes=tuple(takes), seconds=time.perf_counter() - started,
            prompt_source=source, device=str(self.engine.device),
            precision=self.engine.precision, accel_requested=self.accel.requested,
            accel_active=self.accel.active, fallback_reason=self.accel.reason,
            warnings=tuple(dict.fromkeys(warnings)), batch=batch,
            first_audio_seconds=first_audio[0] if first_audio else None,
            judging_note=pass_note(results, pass_at, limit)))

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

    def render_lines(self, job, request: LinesRequest) -> None:
        """A script's lines: batched by voice and settings, each line saved as a take and
        sent (the job's ``line``) as its batch ends, so a cancel or a failure keeps the
        lines rendered before it."""
        from studio.service.lines import batches
        from studio.service.voices import synthesis_items

        if not self._here(job, request, self._render_lines_remote):
            return
        warnings: list[str] = []
        started = time.perf_counter()
        total, done, audio_seconds = len(request.lines), 0, 0.0
        # One library batch for the render: its takes list together, in line order,
        # though they are rendered grouped by voice.
        render_batch = uuid.uuid4().hex
        try:
            lexicon = lines_lexicon(request)
            for batch in batches(request.lines):
                first = request.lines[batch[0]]
                prompt, _source, sha, voice = self._voice_prompt(first, warnings)
                items = [item for i in batch for item in synthesis_items(
                    request.lines[i].text, request.lines[i].seeds[:1], language=first.language,
                    instruct=first.instruct, prompt=prompt, speed=first.speed,
                    duration=request.lines[i].duration, lexicon=lexicon)]

                def on_progress(p, done=done) -> None:
                    job.report("progress", p.step, p.steps, done, total)

                batch_started = time.perf_counter()
                renders = self._synthesize(items, first.options, warnings,
                                           on_progress=on_progress, cancel=job.stop)
                if voice is not None:
                    taken = len(renders)
                    self._edit_voices(lambda library, v=voice.id, n=taken: library.record_use(v, n))
                for i, render in zip(batch, renders):
                    take = self._keep_line(job, request.lines[i], render,
                                           time.perf_counter() - batch_started, sha, warnings,
                                           voice, batch=render_batch)
                    done += 1
                    audio_seconds += render.audio.size / render.sample_rate
                    job.report("line", LineDone(request.keys[i], take, done - 1, total))
        except Exception as exc:
            self._job_stopped(job, exc)
            return
        job.report("done", LinesResult(done, time.perf_counter() - started,
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

    def _job_stopped(self, job, exc: Exception) -> None:
        """A render ended early: cancelled, refused with a sentence, or a bug (logged)."""
        from studio.engine.decode import Cancelled

        if isinstance(exc, Cancelled):
            job.report("cancelled")
        elif isinstance(exc, UserError):
            job.report("failed", str(exc))
        else:
            log.error("%r failed", job, exc_info=exc)
            job.report("failed", INTERNAL_ERROR)

    def _keep_line(self, job, request, render, seconds, sha, warnings, voice,
                   run=None, batch=None) -> TakeAudio:
        """A script line's take saved (in ``batch``, its render's) and judged (alone:
        against the reference clip)."""
        _batch, ids, heard = self._keep_or_warn(job, request, [render], seconds, sha,
                                                warnings, run, batch=batch)
        judged = [None]
        if self.judging_on(request):
            judged = self.judge_renders(job, request, [render], ids,
                                        self.judging_reference(request, voice), heard)
        return TakeAudio(render.audio, render.sample_rate, render.seed, ids[0], judged[0])

    def _keep_takes(self, request, renders, seconds, sha, warnings, run=None,
                    batch=None) -> tuple[str, list, list]:
        """Save the takes (and their ASR check) before ``finished``; never fails the render.
        ``run``: how they were rendered (None: by this worker's engine); returns the
        batch, the take ids and the words the ASR check heard (kept while judging)."""
        if run is None:
            audio_seconds = sum(r.audio.shape[-1] / r.sample_rate for r in renders)
            run = take_run(self._request.source, str(self.engine.device),
                           self.engine.precision, self.accel, seconds,
                           audio_seconds)
        cers, heard = [None] * len(renders), []
        if self.asr_check:
            from studio.engine.languages import resolve_language

            transcribe = self.asr_transcriber(request, resolve_language(request.language)[0],
                                              heard)
            cers = self.keeper.check_asr(request.text, renders, transcribe, warnings.append)
        batch, ids = self.keeper.save(request, renders, run, sha, cers, warnings.append, batch)
        if any(ids) and not self.judging_on(request):  # else once judged (judge_renders)
            self.takes_changed.emit()
        return batch, ids, heard

