from __future__ import annotations

from studio.judges.scores import WEIGHTS, Judgement, combined, not_judged


def test_combined_is_the_weighted_mean_of_judged_scores():
    voice, sound = Judgement("voice", 0.9, "ok", ""), Judgement("sound", 0.5, "ok", "")
    words = not_judged("words", "no model")
    got = combined([voice, sound, words])
    w = WEIGHTS
    assert abs(got - (w["voice"] * 0.9 + w["sound"] * 0.5) / (w["voice"] + w["sound"])) < 1e-9
    assert combined([words]) is None
    assert combined([voice, sound], {"voice": 0.0, "sound": 1.0}) == 0.5


def test_round_trip_through_a_dict():
    j = Judgement("voice", 0.8, "ok", "line", {"similarity": 0.8})
    assert Judgement.from_dict(j.to_dict()) == j
