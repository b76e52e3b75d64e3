"""How judgements read, after the new-user review: a tie as shown is no win, a judge that
did not run is said once, and badges read as words."""

from __future__ import annotations

from studio.judges.scores import NOT_JUDGED, Judgement
from studio.views.ab_judgements import better_side, short_line
from studio.views.take_judgements import judge_line


def test_two_scores_shown_alike_mark_no_side():
    assert better_side(0.404, 0.396) is None  # both read "40": the ▲ looked like a mistake
    assert better_side(0.41, 0.39) == 0 and better_side(0.2, 0.9) == 1
    assert better_side(None, 0.5) is None


def test_a_judge_that_did_not_run_is_said_once():
    line = judge_line(Judgement("words", None, NOT_JUDGED, "Words not judged: no recogniser."))
    assert line == "– Words not judged: no recogniser."


def test_badges_read_as_words():
    sound = Judgement("sound", 0.1, "bad", ".", {"ovrl": 1.3, "badges": ["too-loud"]})
    assert short_line(sound) == "quality 1.3 of 5, too loud"
