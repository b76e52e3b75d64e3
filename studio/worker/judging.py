"""The worker's take judging: one ``Judges`` (loaded on this thread at the first take it
judges), each render's takes judged after they are saved and before the job's ``done``,
the judgement stored with its take.

A mixin of ``InferenceWorker``; every method runs on the worker thread. The judging
itself is studio.service.judging's (the same call ``synth --takes`` makes).
"""

from __future__ import annotations

import logging

from studio.judges.words import HeardWord
from studio.service.requests import JudgingSettings

log = logging.getLogger(__name__)


class TakeJudging:
    judging: JudgingSettings | None  # Settings → Judging; None: never judge

    def set_judging(self, settings: JudgingSettings | None) -> None:
        """Settings → Judging changed: applies from the next render; new weights at once,
        to the takes judged already too (their combined scores again, then relisted)."""
        old = self.judging
        self.judging = settings
        if settings is None:
            return
        if self._judges is not None:
            self._judges.weights = dict(settings.weights)
        if old is not None and dict(old.weights) != dict(settings.weights):
            from studio.service.judging import rescore

            try:
                if rescore(self.keeper.library(), dict(settings.weights)):
                    self.takes_changed.emit()
            except Exception:  # the takes keep their scores; the next judgement uses these
                log.exception("scoring the judged takes with the new weights failed")

    def judging_on(self, request=None) -> bool:
        """Whether this render's takes are judged: Settings says so, or the request
        renders until one passes (which needs the verdicts)."""
        asked = request is not None and getattr(request, "until_pass", False)
        return asked or (self.judging is not None and self.judging.enabled)

    def judges(self):
        """The one Judges, made here on first use. Its words judge hears with the Whisper
        service.judging.recogniser_model picks for this device (base on a CPU, where the
        studio's turbo costs more than judging may), when it is on disk; the worker's own
        Whisper serves when that is the one picked."""
        from studio.service.judging import Judges

        settings = self.judging or JudgingSettings()
        if self._judges is None:
            self._judges = Judges(weights=dict(settings.weights))
        if self._judges.recognise is None:  # again until found: a download lands meanwhile
            self._judges.recognise, self._judges.missing = self._recogniser()
        return self._judges

    def _recogniser(self):
        """(recognise, why there is none) for the words judge."""
        from studio.service.judging import (
            recogniser_missing,
            recogniser_model,
            whisper_recogniser,
        )

        asr_model = self._request.asr_model if self._request is not None else None
        device = str(self.engine.device) if self.engine is not None else "cpu"
        model = recogniser_model(device, asr_model)
        prompts = self.prompts
        if model == asr_model and prompts is not None and prompts.transcriber_factory:
            from studio.engine.asr import asr_source

            if asr_source(model) is None:  # judging never starts a download
                return None, recogniser_missing(model)

            def recognise(audio, rate, language):
                return [HeardWord(*w) for w in prompts.transcribe_words(audio, rate, language)]

            return recognise, None
        recognise = whisper_recogniser(model, device)
        return recognise, None if recognise is not None else recogniser_missing(model)

    def asr_transcriber(self, request, language: str | None, heard: list):
        """The ASR check's transcriber; while judging, it keeps each take's words with
        their times in ``heard`` (in take order) for the words judge to reuse."""
        prompts = self.prompts
        if prompts is None or not prompts.transcriber_factory:
            return None
        if not self.judging_on(request):
            return prompts.transcribe_audio

        def transcribe(audio, rate) -> str:
            words = [HeardWord(*w) for w in prompts.transcribe_words(audio, rate, language)]
            heard.append(words)
            return " ".join(w.text for w in words)

        return transcribe

    def judge_renders(self, job, request, renders, ids, reference, heard=None,
                      first: int = 0, total: int | None = None) -> list[dict | None]:
        """Each rendering's judgement as a dict (stored with its saved take), judged
        together as siblings; reported as "Judging take i of N". A failing judge is
        "not judged" in the judgement; nothing here fails the render. The take list
        hears of the saved takes here (``takes_changed``), once they are judged."""
        from studio.service.judging import judge_request, store

        total = total or len(renders)

        def on_take(i: int, _n: int) -> None:
            job.report("stage", f"Judging take {first + i + 1} of {total} …")

        on_take(0, len(renders))
        try:
            results = judge_request(self.judges(), [(r.audio, r.sample_rate) for r in renders],
                                    request.text, request.language, reference, heard,
                                    on_take=on_take)
        except Exception:  # a bug outside the judges (they are guarded one by one)
            log.exception("judging the takes of %r failed", job)
            results = None
        for take_id, result in zip(ids, results or ()):
            if take_id is None:
                continue
            try:
                store(self.keeper.library(), take_id, result)
            except Exception:  # the judgement still reaches the window with the take
                log.exception("storing the judgement of take %s failed", take_id)
        if any(ids):  # the takes are listed once, with their judgements
            self.takes_changed.emit()
        if results is None:
            return [None] * len(renders)
        return [r.to_dict() for r in results]

    def judging_reference(self, request, voice):
        """The clip a take's voice is compared with: the saved voice's, or the clone's."""
        if voice is not None:
            try:
                return self.voice_library().clip_path(voice.id)
            except Exception:
                log.exception("the saved voice's clip cannot be found for judging")
                return None
        return request.reference
