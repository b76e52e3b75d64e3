"""The status line's words for judged takes: which of N scored best, and what render until
one passes found, in the cards' and Settings' scale (out of 100)."""

from __future__ import annotations

from studio.judges.scores import BAD, OK, Judgement, not_judged
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
    # Short enough for the status line to show the rule too (it was only in the tooltip,
    # after "the best is 1/3 (score 29 of 100). ...").
    assert said == ("None of the 2 takes passed: the best, 1/2, scored 90; a pass needs 70 "
                    "and no judge saying poor.")


def _words_not_judged(score: float) -> TakeJudgement:
    return TakeJudgement((Judgement("sound", score, OK, "."),
                          not_judged("words", "Words not judged: no recogniser.")), score)


def test_none_passed_says_when_the_words_judge_could_not_run():
    said = pass_note([_words_not_judged(0.5), _words_not_judged(0.4)], 0.7, 2)
    assert said.startswith("None of the 2 takes passed: the best, 1/2, scored 50; a pass needs 70")
    assert said.endswith(" Words were not judged (no speech recogniser here, or it failed).")
    # Words judged on any take: nothing to add.
    assert "Words were" not in pass_note([_words_not_judged(0.5), _judged(0.4)], 0.7, 2)


def test_equal_scores_name_the_later_take_the_one_listed_first():
    """A CI journey: four takes with equal scores; the best named (and selected) was take
    1/4, listed after take 4/4 in the newest-first batch and again under Best score first."""
    assert best_note([_judged(0.5), _judged(0.7), _judged(0.7), None]) == \
        "Best: take 3/4, score 70 of 100."
