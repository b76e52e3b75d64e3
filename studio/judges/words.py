"""Words: a word diff and word error rate between the text asked for and what was heard.

The transcript comes from a recogniser (the studio's Whisper, :mod:`studio.engine.asr`);
this module only compares. Words are normalised like the suspect check's characters
(tags, punctuation and case dropped) and aligned with difflib.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from studio.judges.scores import Judgement, not_judged, verdict_for
from studio.library.suspect import normalise

WER_OK = 0.10  # at most one word in ten wrong: recognisers slip on names and numbers
WER_WARN = 0.30


@dataclass(frozen=True)
class HeardWord:
    text: str
    start: float | None = None  # seconds, when the recogniser gives word times
    end: float | None = None


@dataclass(frozen=True)
class WordChange:
    kind: str  # "dropped", "added" or "substituted"
    asked_index: int | None  # index into the asked text's words (None for an added word)
    asked: str  # the asked word ("" for an added word)
    heard: str  # the heard word ("" for a dropped word)
    start: float | None = None  # where in the take, when known
    end: float | None = None
    before: int | None = None  # an added word: the asked word it came before (len: at the end)


@dataclass(frozen=True)
class WordDiff:
    asked_words: tuple[str, ...]
    changes: tuple[WordChange, ...]

    @property
    def wer(self) -> float:
        """(substituted + dropped + added) / asked words; 0.0 for a perfect take."""
        if not self.asked_words:
            return 0.0 if not self.changes else 1.0
        return len(self.changes) / len(self.asked_words)


# A "word" is a run of letters/digits/apostrophes; non-verbal tags never count.
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_TAG = re.compile(r"\[[^\[\]]*\]")


def word_spans(text: str) -> list[tuple[int, int]]:
    """Where each word of :func:`words_of` sits in ``text`` (start, end), so a view can mark
    the asked text itself. Tags are blanked to their own length: the offsets stay true."""
    blanked = _TAG.sub(lambda m: " " * len(m.group()), text)
    return [m.span() for m in _WORD.finditer(blanked)]


def words_of(text: str) -> list[str]:
    return [text[a:b] for a, b in word_spans(text)]


def word_diff(asked: str, heard: Sequence[HeardWord] | str) -> WordDiff:
    """Dropped, added and substituted words, with asked-word indices and heard times."""
    if isinstance(heard, str):
        heard = [HeardWord(w) for w in words_of(heard)]
    else:  # a recogniser's chunk may hold punctuation or several words
        heard = [HeardWord(w, h.start, h.end) for h in heard for w in words_of(h.text)]
    asked_words = words_of(asked)
    keys_a = [normalise(w) for w in asked_words]
    keys_h = [normalise(h.text) for h in heard]
    changes: list[WordChange] = []
    matcher = difflib.SequenceMatcher(a=keys_a, b=keys_h, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        pairs = min(a1 - a0, b1 - b0) if op == "replace" else 0
        for k in range(pairs):
            h = heard[b0 + k]
            changes.append(WordChange("substituted", a0 + k, asked_words[a0 + k], h.text,
                                      h.start, h.end))
        for i in range(a0 + pairs, a1):  # asked but not heard: between its neighbours
            before = heard[b0 + pairs - 1].end if b0 + pairs > 0 else 0.0
            after = heard[b0 + pairs].start if b0 + pairs < len(heard) else None
            changes.append(WordChange("dropped", i, asked_words[i], "", before, after))
        for j in range(b0 + pairs, b1):
            h = heard[j]
            changes.append(WordChange("added", None, "", h.text, h.start, h.end, a1))
    return WordDiff(tuple(asked_words), tuple(changes))


def _at(change: WordChange) -> str:
    return f" at {change.start:.1f} s" if change.start is not None else ""


def judge_words(asked: str, heard: Sequence[HeardWord] | str) -> Judgement:
    diff = word_diff(asked, heard)
    wer = diff.wer
    counts = {k: sum(c.kind == k for c in diff.changes) for k in ("dropped", "added",
                                                                 "substituted")}
    if not diff.changes:
        line = f"All {len(diff.asked_words)} words heard as asked."
    else:
        first = diff.changes[0]
        shown = first.asked or first.heard
        parts = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        line = (f"Word error rate {wer:.0%} ({parts}); first: {first.kind} "
                f"\u201c{shown}\u201d{_at(first)}.")
    details = {"wer": round(wer, 4), **counts,
               "changes": [c.__dict__ for c in diff.changes]}
    return Judgement("words", max(0.0, 1.0 - wer), verdict_for(-wer, -WER_OK, -WER_WARN),
                     line, details)


Recognise = Callable[..., Sequence[HeardWord]]


def judge_take_words(asked: str, audio, sample_rate: int, language: str | None,
                     recognise: Recognise | None, covers: Callable[[str | None], bool],
                     missing: str | None = None) -> Judgement:
    """Transcribe and compare, or say plainly why the words were not judged (``missing``:
    the sentence for an absent recogniser, naming what to download)."""
    if recognise is None:
        return not_judged("words", missing or "Words not judged: the speech recognition "
                                              "model is not on this computer.")
    if not covers(language):
        return not_judged("words", f"Words not judged: no speech recogniser here covers "
                                   f"the language {language!r}.")
    return judge_words(asked, recognise(audio, sample_rate, language))
