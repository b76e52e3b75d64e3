"""Judge rendered takes and rank them: the one entry point for the worker, the CLI and serve.

:class:`Judges` loads each judge on first use and keeps it (one owner thread). A judge
whose weights are missing is reported as "not judged" with its one sentence, and the
combined score is taken over the judges that ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from studio.errors import UserError
from studio.judges.scores import (
    BAD,
    NOT_JUDGED,
    WARN,
    Judgement,
    combined,
    not_judged,
)
from studio.judges.words import HeardWord, Recognise, judge_take_words

JUDGEMENT_VERSION = 1  # bump when a judge or its thresholds change meaning
DRIFT_BELOW = 0.75  # similarity to the mean of the sibling takes under which a take drifts

Audio = tuple[np.ndarray, int]  # (mono samples, sample rate)


@dataclass(frozen=True)
class TakeJudgement:
    judgements: tuple[Judgement, ...]
    combined: float | None

    def to_dict(self) -> dict:
        return {"version": JUDGEMENT_VERSION,
                "combined": None if self.combined is None else round(self.combined, 4),
                "judgements": [j.to_dict() for j in self.judgements]}

    @classmethod
    def from_dict(cls, data: dict) -> TakeJudgement:
        return cls(tuple(Judgement.from_dict(j) for j in data.get("judgements", [])),
                   data.get("combined"))

    def get(self, judge: str) -> Judgement | None:
        return next((j for j in self.judgements if j.judge == judge), None)


# The words judge's recogniser on a CPU. Measured against a Standard render of the same
# take (benchmarks/bench_judge_cost.py, docs/performance.md "Judging"), one thread:
# large-v3-turbo alone 10-13 % of the render's CPU time, over issue 28's 10 % budget;
# small 2-3 %, base about 1 %. A quiet machine renders up to ~2x faster than measured,
# which would put small near the budget with the other judges; base stays well under.
# OMNIVOICE_JUDGE_RECOGNISER=openai/whisper-small trades that margin for accuracy.
CPU_RECOGNISER = "openai/whisper-base"
RECOGNISER_ENV = "OMNIVOICE_JUDGE_RECOGNISER"  # a Whisper repo id or folder: always this


def recogniser_model(device: str = "cpu", asr_model: str | None = None) -> str:
    """Which Whisper the words judge uses: the environment's choice, else the studio's
    transcription model on a CUDA GPU and :data:`CPU_RECOGNISER` elsewhere."""
    import os

    from studio.engine.asr import DEFAULT_ASR_MODEL

    chosen = os.environ.get(RECOGNISER_ENV, "").strip()
    if chosen:
        return chosen
    if str(device).startswith("cuda"):
        return asr_model or DEFAULT_ASR_MODEL
    return CPU_RECOGNISER


def recogniser_missing(model: str) -> str:
    from studio.engine.asr import asr_size

    return (f"Words not judged: the speech recogniser {model} ({asr_size(model)}) is not on "
            f"this computer; download it with: omnivoice-desktop download {model}")


def judges_for(device: str = "cpu", asr_model: str | None = None,
               weights: dict[str, float] | None = None) -> Judges:
    """Judges whose words judge hears with :func:`recogniser_model`'s Whisper when it is
    on this computer, and otherwise says which model to download."""
    model = recogniser_model(device, asr_model)
    recognise = whisper_recogniser(model, device)
    return Judges(recognise=recognise, weights=weights,
                  missing=recogniser_missing(model) if recognise is None else None)


def whisper_recogniser(asr_model: str | None = None, device: str = "cpu") -> Recognise | None:
    """A recogniser over the studio's Whisper when its weights are on this computer
    (None otherwise: judging never starts a download)."""
    from studio.engine.asr import DEFAULT_ASR_MODEL, Transcriber, asr_source

    model = asr_model or DEFAULT_ASR_MODEL
    if asr_source(model) is None:
        return None
    transcriber = Transcriber(model, str(device))

    def recognise(audio: np.ndarray, sample_rate: int, language: str | None):
        return [HeardWord(t, s, e) for t, s, e in transcriber.words(audio, sample_rate, language)]

    return recognise


def _whisper_covers(language: str | None) -> bool:
    from studio.engine.asr import whisper_covers

    return whisper_covers(language)


class Judges:
    """The loaded judges. ``recognise``: words with times for (audio, rate, language), or
    None when no recogniser is available; ``covers`` says which languages it knows."""

    def __init__(self, recognise: Recognise | None = None,
                 covers: Callable[[str | None], bool] = _whisper_covers,
                 weights: dict[str, float] | None = None, missing: str | None = None):
        self.recognise, self.covers, self.weights = recognise, covers, weights
        self.missing = missing  # why there is no recogniser, when known
        self._loaded: dict[str, object] = {}

    def _get(self, name: str, build: Callable[[], object]):
        """The judge's model, or the UserError sentence saying why it is missing."""
        if name not in self._loaded:
            try:
                self._loaded[name] = build()
            except UserError as exc:
                self._loaded[name] = exc
        return self._loaded[name]

    def _encoder(self):
        from studio.judges.voice import SpeakerEncoder

        return self._get("voice", SpeakerEncoder)

    def _dnsmos(self):
        from studio.judges.sound import Dnsmos

        return self._get("sound", Dnsmos)

    def sound(self, audio: np.ndarray, sample_rate: int) -> Judgement:
        from studio.judges.sound import judge_sound

        model = self._dnsmos()
        if isinstance(model, UserError):
            return not_judged("sound", str(model))
        return judge_sound(audio, sample_rate, model)

    def voices(self, takes: Sequence[Audio], reference: Audio | None) -> list[Judgement]:
        """Voice match of each take to the reference clip, else to its siblings; a take
        that drifts from its siblings, or changes voice inside, is flagged."""
        from studio.judges.voice import cosine, find_switch, judge_voice

        encoder = self._encoder()
        if isinstance(encoder, UserError):
            return [not_judged("voice", str(encoder)) for _ in takes]
        embeddings = [encoder.embed(a, r) for a, r in takes]
        ref = encoder.embed(*reference) if reference is not None else None
        out = []
        for i, (audio, rate) in enumerate(takes):
            others = [e for k, e in enumerate(embeddings) if k != i]
            sibling = cosine(embeddings[i], np.mean(others, axis=0)) if others else None
            switch = find_switch(encoder, audio, rate, ref)
            if ref is not None:
                verdict = judge_voice(cosine(embeddings[i], ref), "the reference clip", switch)
            elif sibling is not None:
                verdict = judge_voice(sibling, "the other takes", switch)
            elif switch is not None:
                verdict = judge_voice(0.0, "its own first half", switch)
            else:
                verdict = not_judged("voice", "Voice not compared: no reference clip and no "
                                              "other takes of this text.")
            if sibling is not None and ref is not None and sibling < DRIFT_BELOW:
                verdict = Judgement(
                    "voice", verdict.score, BAD if verdict.verdict == BAD else WARN,
                    verdict.explanation[:-1] + f"; it drifts from the other takes "
                                               f"(similarity {sibling:.2f}).",
                    {**verdict.details, "siblings": round(sibling, 3)})
            elif sibling is not None and verdict.verdict != NOT_JUDGED:
                verdict = Judgement(verdict.judge, verdict.score, verdict.verdict,
                                    verdict.explanation,
                                    {**verdict.details, "siblings": round(sibling, 3)})
            out.append(verdict)
        return out

    def judge_takes(self, takes: Sequence[Audio], text: str, language: str | None = None,
                    reference: Audio | None = None) -> list[TakeJudgement]:
        """Every judge on each of N takes of one request (N = 1 is fine)."""
        takes = [(np.asarray(a, np.float32).reshape(-1), int(r)) for a, r in takes]
        voices = self.voices(takes, reference)
        results = []
        for (audio, rate), voice in zip(takes, voices):
            words = judge_take_words(text, audio, rate, language, self.recognise, self.covers,
                                     self.missing)
            found = (voice, words, self.sound(audio, rate))
            results.append(TakeJudgement(found, combined(list(found), self.weights)))
        return results


def take_seeds(base: int | None, count: int) -> list[int | None]:
    """The seeds of ``count`` takes of one request: base, base+1, ... (wrapping within the
    seed range), or a fresh seed each when no base is given."""
    from studio.engine.options import MAX_SEED

    if base is None:
        return [None] * count
    return [(base + k) % (MAX_SEED + 1) for k in range(count)]


def ranked(results: Sequence[TakeJudgement]) -> list[int]:
    """Indices best first: the highest combined score; unjudged takes last, in order."""
    return sorted(range(len(results)),
                  key=lambda i: (results[i].combined is None, -(results[i].combined or 0.0), i))


def store(library, take_id: str, result: TakeJudgement):
    """Keep the judgement with the take in the take library."""
    return library.set_judgements(take_id, result.to_dict())
