"""The status line's words for judged takes: which of N scored best, and what render until
one passes found, in the cards' and Settings' scale (out of 100)."""

from __future__ import annotations

from studio.judges.scores import BAD, OK, Judgement
from studio.service.judging import TakeJudgement, best_note, pass_note


def _judged(score: float | None, verdict: str = OK) -> TakeJudgement:
    return TakeJudgement((Judgement("sound", score, verdict, "."),), score)


def test_the_best_of_several_is_named_with_its_score_out_of_100():
    assert best_note([_judged(0.61), _judged(0.835), None]) == "Best: take 2/3, score 84 of 100."


def test_one_take_or_none_scored_says_nothing():
    assert best_note([_judged(0.9)]) is None
    assert best_note([None, _judged(None)]) is None


def test_until_one_passes_says_which_passed_or_what_passing_takes():
    assert pass_note([_judged(0.5), _judged(0.81)], 0.7, 4) == \
        "Take 2/2 passed (score 81 of 100, no judge said poor)."
    said = pass_note([_judged(0.9, BAD), _judged(0.6)], 0.7, 2)
    assert said == ("None of the 2 takes passed; the best is 1/2 (score 90 of 100). A take "
                    "passes when no judge says poor and its score reaches 70.")
