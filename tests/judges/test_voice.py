"""Voice match on real speech: espeak-ng's male and female voices."""

from __future__ import annotations

import numpy as np
import pytest

from studio.errors import UserError
from studio.judges import assets
from studio.judges.scores import BAD, OK
from studio.judges.voice import cosine, find_switch, judge_voice
from tests.judges.conftest import T1, T2

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_other_voice_scores_lower_than_the_same_voice(speak, encoder):
    ref = encoder.embed(*speak(T1, "en+m3"))
    same = cosine(ref, encoder.embed(*speak(T2, "en+m3")))  # same voice, other words
    other = cosine(ref, encoder.embed(*speak(T2, "en+f3")))  # other voice, same words
    print(f"same voice {same:.3f}, other voice {other:.3f}")  # 0.932 / 0.666 here
    assert same > other + 0.15
    assert judge_voice(same, "the reference clip").verdict == OK
    assert judge_voice(other, "the reference clip").verdict == BAD


def test_a_voice_switch_mid_take_is_flagged_near_its_time(speak, encoder):
    first, rate = speak(T1, "en+m3")
    second, rate2 = speak(T2, "en+f3")
    assert rate == rate2
    take = np.concatenate([first, second])
    ref = encoder.embed(*speak(T2, "en+m3"))
    switch = find_switch(encoder, take, rate, ref)
    assert switch is not None
    print(f"switch found at {switch.at_s:.2f} s; the second voice starts at "
          f"{first.size / rate:.2f} s")
    # the trimmed take starts a little after 0; the switch lies where the first voice ends
    assert abs(switch.at_s - first.size / rate) < 1.5, switch
    verdict = judge_voice(0.8, "the reference clip", switch)
    assert verdict.verdict == BAD and "changes at about" in verdict.explanation
    # without a reference, the take's own first half stands in for it
    assert find_switch(encoder, take, rate) is not None


def test_one_voice_throughout_is_not_a_switch(speak, encoder):
    take = np.concatenate([speak(T1, "en+m3")[0], speak(T2, "en+m3")[0]])
    rate = speak(T1, "en+m3")[1]
    ref = encoder.embed(*speak(T2, "en+m3"))
    assert find_switch(encoder, take, rate, ref) is None
    assert find_switch(encoder, take, rate) is None


def test_missing_weights_say_one_sentence(monkeypatch):
    monkeypatch.setattr(assets, "_installed_file", lambda *_: None)
    with pytest.raises(UserError, match="Resemblyzer.*pip install --no-deps Resemblyzer"):
        assets.ge2e_weights()
    with pytest.raises(UserError, match="speechmos"):
        assets.dnsmos_model()
