"""BS.1770 loudness: the standard's filter and calibration, gating, and A/B matching."""

from __future__ import annotations

import numpy as np
import pytest

from studio.sound.loudness import gain_db, k_weighting, loudness_lufs, match_gains


def sine(freq: float, seconds: float, rate: int, amplitude: float = 1.0) -> np.ndarray:
    return amplitude * np.sin(2 * np.pi * freq * np.arange(int(seconds * rate)) / rate)


def test_k_weighting_at_48_khz_is_the_table_in_bs_1770():
    (shelf_b, shelf_a), (high_b, high_a) = k_weighting(48000)
    assert np.allclose(shelf_b, [1.53512485958697, -2.69169618940638, 1.19839281085285], atol=1e-8)
    assert np.allclose(shelf_a, [1.0, -1.69065929318241, 0.73248077421585], atol=1e-8)
    assert np.allclose(high_b, [1.0, -2.0, 1.0]) and np.allclose(
        high_a, [1.0, -1.99004745483398, 0.99007225036621], atol=1e-8)


def test_a_full_scale_997_hz_sine_reads_minus_3_01_lufs():
    assert loudness_lufs(sine(997, 5, 48000), 48000) == pytest.approx(-3.01, abs=0.02)


@pytest.mark.parametrize("rate", [16000, 24000, 44100, 48000])
def test_loudness_is_linear_in_level_at_any_rate(rate):
    loud = loudness_lufs(sine(440, 3, rate, 0.5), rate)
    quiet = loudness_lufs(sine(440, 3, rate, 0.5 / 4), rate)
    assert loud - quiet == pytest.approx(20 * np.log10(4), abs=0.01)


def test_gating_ignores_silence_and_quiet_passages(speech):
    voice = speech(4.0, 24000)
    padded = np.concatenate([np.zeros(24000 * 6, np.float32), voice, np.zeros(24000 * 3, np.float32)])
    assert loudness_lufs(padded, 24000) == pytest.approx(loudness_lufs(voice, 24000), abs=0.2)
    hum = np.concatenate([voice, 0.001 * voice])  # 60 dB down: under the relative gate
    assert loudness_lufs(hum, 24000) == pytest.approx(loudness_lufs(voice, 24000), abs=0.2)


def test_silence_and_empty_audio_have_no_loudness():
    assert loudness_lufs(np.zeros(48000), 24000) is None
    assert loudness_lufs(np.zeros(0), 24000) is None
    assert loudness_lufs(1e-6 * sine(440, 1, 24000), 24000) is None  # under the -70 LUFS gate
    assert loudness_lufs(0.1 * sine(440, 0.1, 24000), 24000) is not None  # shorter than a block


def test_match_gains_levels_two_takes_within_half_a_db(speech):
    a = speech(3.0, 24000, seed=1)
    b = 5.0 * speech(2.0, 24000, seed=2)  # about 14 dB louder, other content
    la, lb = loudness_lufs(a, 24000), loudness_lufs(b, 24000)
    assert lb - la > 10
    gain_a, gain_b = match_gains(la, lb)
    assert gain_a == 1.0 and gain_b < 1.0  # the louder one is turned down, nothing goes up
    matched_a, matched_b = loudness_lufs(a * gain_a, 24000), loudness_lufs(b * gain_b, 24000)
    assert abs(matched_a - matched_b) < 0.5
    assert gain_db(gain_b) == pytest.approx(la - lb)


def test_match_gains_leaves_silent_takes_alone():
    assert match_gains(None, -20.0) == (1.0, 1.0)
    assert match_gains(-20.0, None) == (1.0, 1.0)
    assert match_gains(-20.0, -20.0) == (1.0, 1.0)


@pytest.mark.parametrize("rate", [11025, 24000, 48000])
def test_the_meter_fed_in_pieces_and_silences_reads_the_whole_signal(rate):
    """A long mix is measured streamed: pieces of any length and runs of silence (some
    shorter than the filter's ring) read what the whole signal in memory reads."""
    from studio.sound.loudness import LoudnessMeter

    rng = np.random.default_rng(rate)
    parts = []
    meter = LoudnessMeter(rate)
    for n in range(12):
        if n % 3 == 2:
            silence = int(rng.integers(1, rate * 4))
            meter.add_silence(silence)
            parts.append(np.zeros(silence))
        else:
            clip = 0.2 * rng.standard_normal(int(rng.integers(1, rate * 2)))
            meter.add(clip)
            parts.append(clip)
    whole = np.concatenate(parts)
    assert meter.lufs() == pytest.approx(loudness_lufs(whole, rate), abs=1e-9)
    short = LoudnessMeter(rate)
    short.add(whole[:100])
    assert short.lufs() == pytest.approx(loudness_lufs(whole[:100], rate), abs=1e-9)
    assert LoudnessMeter(rate).lufs() is None
