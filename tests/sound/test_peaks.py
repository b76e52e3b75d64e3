"""waveform_peaks: exact per-bucket min/max, short and empty audio, speed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from studio.sound.peaks import waveform_peaks


def naive_peaks(audio: np.ndarray, buckets: int) -> np.ndarray:
    out = np.zeros((buckets, 2), np.float32)
    length = audio.size
    for i in range(buckets):
        a, b = i * length // buckets, (i + 1) * length // buckets
        chunk = audio[a:b] if b > a else audio[a : a + 1]
        out[i] = chunk.min(), chunk.max()
    return out


@pytest.mark.parametrize(
    ("length", "buckets"), [(1000, 10), (1001, 10), (24000, 7), (4801, 4800), (5, 5), (97, 1)]
)
def test_peaks_match_a_plain_loop(length, buckets):
    audio = np.random.default_rng(length).standard_normal(length).astype(np.float32)
    peaks = waveform_peaks(audio, buckets)
    assert peaks.shape == (buckets, 2) and peaks.dtype == np.float32
    np.testing.assert_array_equal(peaks, naive_peaks(audio, buckets))
    assert peaks[:, 0].min() == audio.min() and peaks[:, 1].max() == audio.max()


def test_a_single_click_is_never_lost():
    audio = np.zeros(100_003, np.float32)
    audio[54_321] = 0.9
    peaks = waveform_peaks(audio, 640)
    assert (peaks[:, 1] == np.float32(0.9)).sum() == 1


def test_short_audio_is_stretched_over_the_buckets():
    audio = np.array([0.1, -0.2, 0.3], np.float32)
    peaks = waveform_peaks(audio, 6)
    np.testing.assert_array_equal(peaks[:, 0], peaks[:, 1])
    np.testing.assert_array_equal(peaks[:, 0], np.repeat(audio, 2))


def test_empty_audio_and_zero_buckets():
    np.testing.assert_array_equal(waveform_peaks(np.zeros(0, np.float32), 4), np.zeros((4, 2)))
    assert waveform_peaks(np.ones(10, np.float32), 0).shape == (0, 2)
    np.testing.assert_array_equal(waveform_peaks(np.zeros((1, 0), np.float32), 3), np.zeros((3, 2)))
    with pytest.raises(ValueError):
        waveform_peaks(np.ones(10, np.float32), -1)
    with pytest.raises(ValueError):
        waveform_peaks(np.ones((1, 2, 3), np.float32), 2)


def test_channels_first_input_draws_the_envelope():
    left = np.array([0.5, -0.1, 0.0, 0.2], np.float32)
    right = np.array([-0.5, 0.1, 0.3, 0.0], np.float32)
    peaks = waveform_peaks(np.stack([left, right]), 2)
    np.testing.assert_array_equal(peaks, np.array([[-0.5, 0.5], [0.0, 0.3]], np.float32))
    np.testing.assert_array_equal(waveform_peaks(left[None, :], 2), waveform_peaks(left, 2))


def test_ten_minutes_take_milliseconds():
    audio = np.random.default_rng(0).random(600 * 24000, dtype=np.float32) - 0.5
    start = time.perf_counter()
    waveform_peaks(audio, 1920)
    assert time.perf_counter() - start < 0.25
