"""studio.service.judging on real espeak speech: best of N, sibling drift, missing weights."""

from __future__ import annotations

import numpy as np
import pytest

from studio.judges import assets
from studio.judges.scores import BAD, NOT_JUDGED, OK
from studio.judges.words import HeardWord
from studio.service.judging import Judges, TakeJudgement, ranked, store
from tests.judges.conftest import T1, T2
from tests.judges.test_sound import _with_noise

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _hears(text: str):
    return lambda audio, rate, language: [HeardWord(w) for w in text.split()]


@pytest.fixture
def judges(encoder, dnsmos):
    made = Judges(recognise=_hears(T1), covers=lambda language: language == "en")
    made._loaded.update(voice=encoder, sound=dnsmos)  # the session's loaded models
    return made


def test_best_of_n_picks_the_highest_combined_score(speak, judges):
    clean = speak(T1, "en+m3")
    noisy = (_with_noise(clean[0], 5.0), clean[1])
    other = speak(T1, "en+f3")
    results = judges.judge_takes([noisy, other, clean], T1, "en", reference=speak(T2, "en+m3"))
    scores = [round(r.combined, 3) for r in results]
    print("combined", scores)
    assert ranked(results)[0] == 2, scores  # the clean take in the reference's voice
    assert ranked(results) == sorted(range(3), key=lambda i: -results[i].combined)
    assert results[2].get("voice").verdict == OK and results[1].get("voice").verdict == BAD
    assert results[0].get("sound").score < results[2].get("sound").score
    assert all(r.get("words").verdict == OK for r in results)  # the fake heard every word


def test_a_take_that_drifts_from_its_siblings_is_flagged(speak, judges):
    takes = [speak(T1, "en+m3"), speak(T2, "en+m3"), speak(T1, "en+f3"), speak(T2, "en+f3"),
             speak(T1, "en+m3")]
    without_ref = judges.judge_takes(takes[:3], T1, "en")
    sims = [r.get("voice").details["siblings"] for r in without_ref]
    assert sims[2] < min(sims[:2]), sims  # the female take is least like the rest
    with_ref = judges.judge_takes([takes[0], takes[1], takes[2]], T1, "en",
                                  reference=speak(T2, "en+f3"))
    # against a female reference the two male takes are bad; the female one drifts from them
    assert "drifts from the other takes" in with_ref[2].get("voice").explanation


def test_missing_weights_leave_the_other_judges_and_say_why(speak, monkeypatch):
    monkeypatch.setattr(assets, "_installed_file", lambda *_: None)
    judges = Judges(recognise=_hears(T1), covers=lambda language: True)
    [result] = judges.judge_takes([speak(T1, "en+m3")], T1, "en")
    voice, words, sound = result.judgements
    assert voice.verdict == sound.verdict == NOT_JUDGED
    assert "pip install --no-deps Resemblyzer" in voice.explanation
    assert words.verdict == OK and result.combined == 1.0  # only the words counted
    none = Judges(recognise=None)
    none._loaded.update(voice=assets.UserError("x"), sound=assets.UserError("y"))
    [empty] = none.judge_takes([speak(T1, "en+m3")], T1, "en")
    assert empty.combined is None and ranked([empty, result]) == [1, 0]


def test_a_judgement_round_trips_through_the_take_library(tmp_path, speak, judges):
    from studio.library.take_record import TakeRun, TakeSettings
    from studio.library.takes import TakeLibrary

    audio, rate = speak(T1, "en+m3")
    [result] = judges.judge_takes([(audio, rate)], T1, "en")
    settings = TakeSettings(text=T1, language="en", instruct=None, mode="design",
                            voice_id=None, reference_path=None, reference_sha256=None,
                            ref_text=None, preprocess=True, speed=None, duration=None, seed=1,
                            options={})
    run = TakeRun("tiny", "cpu", "fp32", "off", "off", None, "0", 1.0, 0.1)
    with TakeLibrary(tmp_path) as library:
        take = library.add(settings, run, audio, rate, batch="b")
        stored = store(library, take.id, result)
    assert TakeJudgement.from_dict(stored.judgements) == TakeJudgement(
        result.judgements, round(result.combined, 4))
    assert np.isfinite(stored.judgements["combined"])
