"""Judge rendered takes and rank them: the one entry point for the worker, the CLI and serve.

:class:`Judges` loads each judge on first use and keeps it (one owner thread). A judge
whose weights are missing is reported as "not judged" with its one sentence, and the
combined score is taken over the judges that ran.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

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
from studio.judges.words import HeardWord, Recognise, judge_take_words, judge_words

log = logging.getLogger(__name__)
JUDGEMENT_VERSION = 1  # bump when a judge or its thresholds change meaning
DRIFT_BELOW = 0.75  # similarity to the mean of the sibling takes under which a take drifts

Audio = tuple[np.ndarray, int]  # (mono samples, sample rate)
Heard = Sequence[HeardWord]  # a transcript with word times, made already (the ASR check)
LABELS = {"voice": "Voice", "words": "Words", "sound": "Sound"}


def judge_failed(judge: str, exc: Exception) -> Judgement:
    """A judge that raised: its sentence (a UserError's), or a bug said plainly and logged;
    the take and the other judges stand."""
    if isinstance(exc, UserError):
        return not_judged(judge, str(exc))
    log.error("the %s judge failed", judge, exc_info=exc)
    return not_judged(judge, f"{LABELS[judge]} not judged: the judge failed; the log file in "
                             f"the data folder has the details.")


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
            f"this computer; download it in Settings → Judging, or run "
            f"omnivoice-desktop download {model}.")


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
                    reference: Audio | None = None,
                    heard: Sequence[Heard | None] | None = None,
                    on_take: Callable[[int, int], None] | None = None) -> list[TakeJudgement]:
        """Every judge on each of N takes of one request (N = 1 is fine). ``heard``: a
        transcript per take made already (None where there is none), so the recogniser
        does not run twice; ``on_take(i, n)`` before take i's words and sound. A judge
        that fails is "not judged" with its sentence."""
        takes = [(np.asarray(a, np.float32).reshape(-1), int(r)) for a, r in takes]
        heard = list(heard or []) + [None] * (len(takes) - len(heard or []))
        try:
            voices = self.voices(takes, reference)
        except Exception as exc:
            voices = [judge_failed("voice", exc)] * len(takes)
        results = []
        for i, ((audio, rate), voice, words_heard) in enumerate(zip(takes, voices, heard)):
            if on_take is not None and i:
                on_take(i, len(takes))
            found = (voice, self.words(text, audio, rate, language, words_heard),
                     self._guarded("sound", self.sound, audio, rate))
            results.append(TakeJudgement(found, combined(list(found), self.weights)))
        return results

    def words(self, text: str, audio: np.ndarray, rate: int, language: str | None,
              heard: Heard | None = None) -> Judgement:
        if heard is not None and self.covers(language):
            return self._guarded("words", judge_words, text, heard)
        return self._guarded("words", judge_take_words, text, audio, rate, language,
                             self.recognise, self.covers, self.missing)

    @staticmethod
    def _guarded(judge: str, run: Callable[..., Judgement], *args) -> Judgement:
        try:
            return run(*args)
        except Exception as exc:
            return judge_failed(judge, exc)


def take_seeds(base: int | None, count: int) -> list[int | None]:
    """The seeds of ``count`` takes of one request: base, base+1, ... (wrapping within the
    seed range), or a fresh seed each when no base is given."""
    from studio.engine.options import MAX_SEED

    if base is None:
        return [None] * count
    if not 0 <= base <= MAX_SEED:  # left as given: the seed check refuses it in one sentence
        return [base + k for k in range(count)]
    return [(base + k) % (MAX_SEED + 1) for k in range(count)]


def ranked(results: Sequence[TakeJudgement]) -> list[int]:
    """Indices best first: the highest combined score, equal scores the later take first
    (as the takes panel lists a batch, newest first, so the best named is the best listed
    first in either order); unjudged takes last, in order."""
    return sorted(range(len(results)),
                  key=lambda i: (results[i].combined is None, -(results[i].combined or 0.0),
                                 -i if results[i].combined is not None else i))


def rescore(library, weights: dict[str, float]) -> int:
    """Every judged take's combined score under new weights (the judges' own scores stay):
    a ranking never mixes takes scored under two weightings. How many changed."""

    def again(stored: dict) -> dict:
        result = TakeJudgement.from_dict(stored)
        new = combined(list(result.judgements), weights)
        return {**stored, "combined": None if new is None else round(new, 4)}

    return library.rewrite_judgements(again)


def store(library, take_id: str, result: TakeJudgement):
    """Keep the judgement with the take in the take library."""
    return library.set_judgements(take_id, result.to_dict())


def reference_audio(path: Path | str | None) -> Audio | None:
    """A clone's (or a saved voice's) clip as mono samples; None when there is none or it
    cannot be read any more (the voice is then compared with the sibling takes)."""
    if path is None:
        return None
    from studio.sound.files import read_audio

    try:
        clip, rate = read_audio(Path(path))
    except Exception as exc:  # a clip deleted or changed since the render: judge without it
        log.info("the reference clip %s cannot be read for judging: %r", path, exc)
        return None
    clip = np.asarray(clip, np.float32)
    return (clip.mean(axis=0) if clip.ndim > 1 else clip), int(rate)


def judge_request(judges: Judges, takes: Sequence[Audio], text: str, language: str | None,
                  reference: Path | str | None = None,
                  heard: Sequence[Heard | None] | None = None,
                  on_take: Callable[[int, int], None] | None = None) -> list[TakeJudgement]:
    """The takes of one request judged together (siblings), against the reference clip of
    a clone or saved voice, in the request's language: the one way the worker and
    ``synth --takes`` judge."""
    from studio.engine.languages import resolve_language

    language, _ = resolve_language(language)  # "English" -> "en"; the render warned already
    return judges.judge_takes(takes, text, language, reference_audio(reference), heard,
                              on_take)


def passes(result: TakeJudgement, pass_at: float) -> bool:
    """No judge says bad ("poor" on the cards) and the combined score reaches ``pass_at``."""
    return (result.combined is not None and result.combined >= pass_at
            and all(j.verdict != BAD for j in result.judgements))


def _out_of_100(value: float) -> str:
    return f"{round(100 * value):d}"  # as the cards and Settings show scores


def pass_note(results: Sequence[TakeJudgement], pass_at: float, limit: int) -> str:
    """What render-until-one-passes found, for the status line; takes are named as their
    cards name them ("2/4": the second of the four rendered)."""
    count = len(results)
    passed = next((i for i, r in enumerate(results) if passes(r, pass_at)), None)
    if passed is not None:
        return (f"Take {passed + 1}/{count} passed (score "
                f"{_out_of_100(results[passed].combined)} of 100, no judge said poor).")
    rule = f"a pass needs {_out_of_100(pass_at)} and no judge saying poor"
    if not results:
        return f"No take was judged; {rule}."
    best = ranked(results)[0]
    score = results[best].combined
    best_was = (f"the best, {best + 1}/{count}, scored {_out_of_100(score)}" if score is not None
                else "none could be scored")
    note = f"None of the {count} takes passed: {best_was}; {rule}."
    if all(_words_not_run(r) for r in results):  # the words never counted: say so
        note += " Words were not judged (no speech recogniser here, or it failed)."
    return note


def _words_not_run(result: TakeJudgement) -> bool:
    words = result.get("words")
    return words is not None and words.verdict == NOT_JUDGED


def best_note(results: Sequence[TakeJudgement | None]) -> str | None:
    """Which of N judged takes scored best, for the status line; None for one take or
    none scored."""
    scored = [r if r is not None else TakeJudgement((), None) for r in results]
    if len(scored) < 2:
        return None
    best = ranked(scored)[0]
    if scored[best].combined is None:
        return None
    return (f"Best: take {best + 1}/{len(scored)}, score "
            f"{_out_of_100(scored[best].combined)} of 100.")
