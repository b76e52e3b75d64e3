"""The ACX check of a chapter: a clip made too loud fails (RMS and peak), the gain it
offers makes it pass; what a gain cannot fix (a limiter's job, noise, room tone) is said."""

from __future__ import annotations

import numpy as np
import pytest

from studio.sound.acx import apply_gain, check_chapter

RATE = 24000


def chapter(level: float, noise: float = 0.0, head: float = 0.75, tail: float = 0.75,
            seconds: float = 6.0, crest: float = 1.0) -> np.ndarray:
    """Room tone, speech-like sound (a tone under a syllable envelope), room tone."""
    rng = np.random.default_rng(1)
    t = np.arange(int(seconds * RATE)) / RATE
    envelope = 0.4 + 0.6 * np.sin(2 * np.pi * 3 * t) ** 2
    body = level * envelope * np.sin(2 * np.pi * 180 * t)
    if crest != 1.0:  # one click far over the rest: peaks a gain cannot bring down alone
        body[RATE] = crest * level
    audio = np.concatenate([np.zeros(int(head * RATE)), body, np.zeros(int(tail * RATE))])
    return (audio + noise * rng.standard_normal(audio.size)).astype(np.float32)


def test_a_clip_made_too_loud_fails_and_passes_after_the_offered_gain():
    loud = chapter(0.2) * 4.0  # peak near -2 dB, RMS near -15 dB
    report = check_chapter(loud, RATE, "Chapter 1")
    assert not report.passed
    assert any("RMS" in p for p in report.problems)
    assert any("peak" in p for p in report.problems)
    assert report.fix_gain_db is not None and report.fix_gain_db < 0
    assert "a gain of" in report.sentence() and report.sentence().startswith("Chapter 1:")
    fixed = check_chapter(apply_gain(loud, report.fix_gain_db), RATE, "Chapter 1")
    assert fixed.passed, fixed.problems
    assert -23 <= fixed.rms_db <= -18 and fixed.peak_db <= -3


def test_a_clip_within_the_rules_passes_as_it_is():
    report = check_chapter(chapter(0.2), RATE)
    assert report.passed, report.problems
    assert report.fix_gain_db is None
    assert report.head_s == pytest.approx(0.75, abs=0.02)
    assert report.tail_s == pytest.approx(0.75, abs=0.02)


def test_peaks_that_need_limiting_are_not_offered_a_gain():
    report = check_chapter(chapter(0.02, crest=40.0), RATE)
    assert not report.passed
    assert report.fix_gain_db is None
    assert any("peak limiter, not a gain change" in p for p in report.problems)


def test_noise_and_missing_room_tone_are_said_without_a_gain():
    noisy = check_chapter(chapter(0.1, noise=0.003), RATE)
    assert any("noise floor" in p and "not a gain" in p for p in noisy.problems)
    bare = check_chapter(chapter(0.1, head=0.0, tail=3.0), RATE)
    assert any("head has 0.00 s of room tone" in p for p in bare.problems)
    assert any("tail has 3.00 s" in p for p in bare.problems)


def test_the_normalising_gain_lands_quiet_and_loud_speech_inside_the_rms_window():
    from studio.sound.acx import normalising_gain

    for audio in (chapter(0.03), chapter(0.2) * 4.0):  # RMS near -33 dB and -15 dB
        assert not check_chapter(audio, RATE).passed
        fixed = check_chapter(apply_gain(audio, normalising_gain(audio, RATE)), RATE)
        assert fixed.passed, fixed.problems
        assert fixed.rms_db == pytest.approx(-20.5, abs=0.05)
