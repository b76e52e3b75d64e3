"""Words: the diff logic with fixed transcripts, and a word cut out of real speech heard
by a real Whisper (tiny.en, from a wheel: the studio's own Whisper cannot be fetched in CI)."""

from __future__ import annotations

import numpy as np
import pytest

from studio.judges.scores import BAD, NOT_JUDGED, OK
from studio.judges.words import (
    HeardWord,
    judge_take_words,
    judge_words,
    word_diff,
    word_spans,
    words_of,
)

ASKED = "The quick brown fox jumps over the lazy dog."


def _timed(text: str, step: float = 0.4) -> list[HeardWord]:
    return [HeardWord(w, i * step, i * step + 0.3) for i, w in enumerate(text.split())]


def test_a_dropped_word_is_found_at_its_index_and_time():
    diff = word_diff(ASKED, _timed("the quick fox jumps over the lazy dog"))
    assert [(c.kind, c.asked_index, c.asked) for c in diff.changes] == [("dropped", 2, "brown")]
    # between "quick" (ends 0.7 s) and "fox" (starts 0.8 s)
    assert (diff.changes[0].start, diff.changes[0].end) == (0.7, 0.8)
    assert abs(diff.wer - 1 / 9) < 1e-9


def test_added_and_substituted_words_and_normalisation():
    diff = word_diff(ASKED, "The QUICK, brown box jumps over the very lazy dog!")
    kinds = [(c.kind, c.asked_index, c.asked, c.heard) for c in diff.changes]
    assert kinds == [("substituted", 3, "fox", "box"), ("added", None, "", "very")]
    assert word_diff(ASKED, "the quick brown fox jumps over the lazy dog").changes == ()


def test_an_added_word_says_which_asked_word_it_came_before():
    diff = word_diff(ASKED, "The quick brown fox jumps over the very lazy dog")
    assert [(c.kind, c.heard, c.before) for c in diff.changes] == [("added", "very", 7)]
    assert words_of(ASKED)[7] == "lazy"
    at_end = word_diff("Stop here.", "stop here please")
    assert [(c.heard, c.before) for c in at_end.changes] == [("please", 2)]


def test_word_spans_point_into_the_asked_text_past_tags():
    text = "[laughter] Well, [sigh] it's done."
    spans = word_spans(text)
    assert [text[a:b] for a, b in spans] == ["Well", "it's", "done"] == words_of(text)


def test_verdicts_and_one_line():
    perfect = judge_words(ASKED, ASKED)
    assert perfect.verdict == OK and perfect.score == 1.0
    bad = judge_words(ASKED, "the dog")
    assert bad.verdict == BAD and "dropped" in bad.explanation


def test_a_fake_recogniser_and_an_uncovered_language():
    heard = []

    def recognise(audio, rate, language):
        heard.append(language)
        return _timed("the quick fox jumps over the lazy dog")

    audio = np.zeros(100, np.float32)
    verdict = judge_take_words(ASKED, audio, 24000, "en", recognise, lambda lang: True)
    assert heard == ["en"] and verdict.details["dropped"] == 1
    assert "\u201cbrown\u201d at 0.7 s" in verdict.explanation
    none = judge_take_words(ASKED, audio, 24000, "qxu", recognise, lambda lang: lang == "en")
    assert none.verdict == NOT_JUDGED and none.score is None and "'qxu'" in none.explanation
    assert heard == ["en"]  # never guessed
    absent = judge_take_words(ASKED, audio, 24000, "en", None, lambda lang: True)
    assert absent.verdict == NOT_JUDGED and "not on this computer" in absent.explanation


@pytest.fixture(scope="module")
def whisper():
    from tests.judges.tiny_whisper import TinyWhisper

    return TinyWhisper()


def test_a_word_cut_out_of_real_speech_is_heard_as_dropped_where_it_was(speak, whisper):
    """Two espeak-ng renders spliced so that "market" is never said; a real Whisper
    (tiny.en) hears the take and the words judge finds the word dropped at the splice."""
    asked = "Every morning she walks to the market before breakfast."
    head, rate = speak("Every morning she walks to the", "en-us")
    tail, _ = speak("before breakfast.", "en-us")
    splice = head.size / rate
    whole, _ = speak(asked, "en-us")
    heard_whole = judge_take_words(asked, whole, rate, "en", whisper, lambda _lang: True)
    assert heard_whole.details["dropped"] == 0, heard_whole.explanation  # it hears espeak
    judged = judge_take_words(asked, np.concatenate([head, tail]), rate, "en", whisper,
                              lambda _lang: True)
    print(judged.explanation, "| splice at", round(splice, 2), "s")
    dropped = [c for c in judged.details["changes"] if c["kind"] == "dropped"]
    assert [(c["asked_index"], c["asked"]) for c in dropped] == [(6, "market")]
    assert abs(dropped[0]["start"] - splice) < 0.3, (dropped[0], splice)
    assert judged.verdict != OK
