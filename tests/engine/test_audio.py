"""studio.engine.audio (the clean-up steps) against the reference package's omnivoice.utils.audio.

The reference import is deliberately unguarded: without it these conformance
tests cannot mean anything, so a missing package must fail the run, not skip it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

with warnings.catch_warnings():
    # pydub warns at import when ffmpeg is absent; nothing here needs ffmpeg.
    warnings.simplefilter("ignore")
    from omnivoice.utils import audio as ref
    from pydub.silence import split_on_silence

from studio.engine import audio

# ---------------------------------------------------------------------------
# Synthetic signals, built in pieces of milliseconds
# ---------------------------------------------------------------------------


def _n(ms: float, sr: int) -> int:
    return round(ms * sr / 1000)


def silence(ms: float, sr: int) -> np.ndarray:
    return np.zeros(_n(ms, sr))


def tone(ms: float, sr: int, amp: float = 0.5, hz: float = 440.0) -> np.ndarray:
    return amp * np.sin(2 * np.pi * hz * np.arange(_n(ms, sr)) / sr)


def noise(ms: float, sr: int, db: float, seed: int = 0) -> np.ndarray:
    """White noise whose RMS sits at ``db`` dBFS."""
    return 10 ** (db / 20) * np.random.default_rng(seed).standard_normal(_n(ms, sr))


def clip(*pieces: np.ndarray, channels: int = 1) -> np.ndarray:
    mono = np.concatenate(pieces).astype(np.float32)
    # Give extra channels different levels so channel handling is exercised.
    return np.stack([mono * (1.0 - 0.3 * c) for c in range(channels)])


def _signals() -> dict[str, tuple[np.ndarray, int]]:
    sr = 24000
    return {
        "short_gaps": (
            clip(tone(400, sr), silence(150, sr), tone(300, sr), silence(250, sr), tone(200, sr)),
            sr,
        ),
        "long_gaps": (
            clip(tone(400, sr), silence(700, sr), tone(300, sr), silence(1200, sr), tone(200, sr)),
            sr,
        ),
        "gap_at_threshold": (
            clip(tone(300, sr), silence(300, sr), tone(300, sr), silence(310, sr), tone(90, sr)),
            sr,
        ),
        "edges": (clip(silence(900, sr), tone(500, sr), silence(1300, sr)), sr),
        "edges_odd_length": (clip(silence(333.3, sr), tone(501.7, sr), silence(777.7, sr)), sr),
        "floor_below_-50": (
            clip(noise(600, sr, -53), tone(300, sr), noise(800, sr, -53, 1), tone(200, sr)),
            sr,
        ),
        "floor_above_-50": (
            clip(noise(600, sr, -47), tone(300, sr), noise(800, sr, -47, 1), tone(200, sr)),
            sr,
        ),
        "floor_at_-50": (
            clip(noise(600, sr, -50), tone(300, sr), noise(800, sr, -50.2, 1), tone(200, sr)),
            sr,
        ),
        "quiet_tone": (clip(silence(500, sr), tone(800, sr, amp=0.0045), silence(500, sr)), sr),
        "blips_in_silence": (
            clip(
                tone(200, sr),
                silence(400, sr),
                tone(5, sr, 0.9),
                silence(450, sr),
                tone(3, sr),
                silence(600, sr),
            ),
            sr,
        ),
        "stereo": (
            clip(silence(250, sr), tone(400, sr), silence(900, sr), tone(300, sr), channels=2),
            sr,
        ),
        "three_channels": (clip(tone(300, sr), silence(650, sr), tone(300, sr), channels=3), sr),
        "full_scale": (
            clip(silence(200, sr), np.sign(tone(300, sr)), silence(500, sr), tone(200, sr, 1.2)),
            sr,
        ),
        "very_short": (clip(tone(7, sr)), sr),
        "five_samples": (clip(np.array([0.0, 0.3, -0.2, 0.1, 0.0])), sr),
        "one_sample": (clip(np.array([0.4])), sr),
        "sr_22050": (
            clip(silence(421, 22050), tone(333, 22050), silence(512, 22050), tone(250, 22050)),
            22050,
        ),
        "sr_44100": (
            clip(silence(150, 44100), tone(300, 44100), silence(800, 44100), channels=2),
            44100,
        ),
        "sr_odd": (
            clip(silence(333, 12345), tone(444, 12345), silence(555, 12345), tone(66, 12345)),
            12345,
        ),
        "sr_16000": (clip(noise(500, 16000, -55), tone(350, 16000), silence(410, 16000)), 16000),
    }


SIGNALS = _signals()
SETTINGS = [(300, 100, 300), (0, 100, 300), (200, 0, 0), (100, 500, 20), (500, 50, 1000)]


# ---------------------------------------------------------------------------
# remove_silence
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", SIGNALS)
def test_remove_silence_matches_reference(name: str) -> None:
    wave, sr = SIGNALS[name]
    for mid, lead, trail in SETTINGS:
        expected = ref.remove_silence(wave, sr, mid, lead, trail)
        got = audio.remove_silence(wave, sr, mid, lead, trail)
        assert got.dtype == np.float32
        assert got.shape == expected.shape, (mid, lead, trail)
        np.testing.assert_array_equal(got, expected, err_msg=f"{(mid, lead, trail)}")


def test_remove_silence_matches_reference_on_random_clips() -> None:
    rng = np.random.default_rng(1234)
    for _ in range(150):
        sr = int(rng.choice([16000, 22050, 24000, 44100, 48000, 12345]))
        pieces = []
        for _ in range(rng.integers(1, 6)):
            ms = float(rng.uniform(0, 700))
            kind = rng.integers(0, 3)
            if kind == 0:
                pieces.append(silence(ms, sr))
            elif kind == 1:
                pieces.append(
                    noise(ms, sr, float(rng.uniform(-58, -44)), int(rng.integers(1 << 30)))
                )
            else:
                pieces.append(
                    tone(ms, sr, float(rng.uniform(0.01, 0.9)), float(rng.uniform(60, 3000)))
                )
        wave = clip(*pieces, channels=int(rng.integers(1, 3)))
        mid, lead, trail = (int(v) for v in rng.choice([0, 10, 100, 300, 450], 3))
        expected = ref.remove_silence(wave, sr, mid, lead, trail)
        got = audio.remove_silence(wave, sr, mid, lead, trail)
        if expected.size == 0:  # all silent: see test_remove_silence_all_silent
            assert got.shape == (wave.shape[0], 0)
            continue
        np.testing.assert_array_equal(got, expected, err_msg=f"sr={sr} {(mid, lead, trail)}")


def _pydub_remove_silence(
    wave: np.ndarray, sr: int, mid: int, lead: int, trail: int, db: float
) -> np.ndarray:
    """The reference pipeline with its fixed -50 dB threshold swapped for ``db``."""
    seg = ref.numpy_to_audiosegment(wave, sr)
    pieces = split_on_silence(
        seg, min_silence_len=mid, silence_thresh=db, keep_silence=mid, seek_step=10
    )
    if not pieces:
        return np.zeros((wave.shape[0], 0), np.float32)
    joined = sum(pieces[1:], pieces[0])
    return ref.audiosegment_to_numpy(ref.remove_silence_edges(joined, lead, trail, db))


@pytest.mark.parametrize("db", [-40.0, -57.5, -30.0])
def test_remove_silence_threshold_follows_pydub(db: float) -> None:
    for name in ["floor_below_-50", "floor_above_-50", "quiet_tone", "edges", "stereo"]:
        wave, sr = SIGNALS[name]
        expected = _pydub_remove_silence(wave, sr, 300, 100, 300, db)
        got = audio.remove_silence(wave, sr, 300, 100, 300, threshold_db=db)
        np.testing.assert_array_equal(got, expected, err_msg=name)


@pytest.mark.parametrize("channels", [1, 2])
def test_remove_silence_all_silent_is_empty_not_an_error(channels: int) -> None:
    sr = 24000
    for wave in [
        clip(silence(1500, sr), channels=channels),
        clip(noise(900, sr, -65), channels=channels),
    ]:
        assert ref.remove_silence(wave, sr, 300, 100, 300).size == 0
        got = audio.remove_silence(wave, sr, 300, 100, 300)
        assert got.shape == (channels, 0) and got.dtype == np.float32
        # Without the pause split only the edges are trimmed, so lead_sil_ms survives.
        got = audio.remove_silence(wave, sr, 0, 100, 300)
        np.testing.assert_array_equal(got, ref.remove_silence(wave, sr, 0, 100, 300))
        assert got.shape == (channels, 2400)


def test_remove_silence_on_empty_input() -> None:
    assert audio.remove_silence(np.zeros((2, 0), np.float32), 24000).shape == (2, 0)


def test_remove_silence_accepts_1d() -> None:
    wave, sr = SIGNALS["long_gaps"]
    np.testing.assert_array_equal(audio.remove_silence(wave[0], sr), ref.remove_silence(wave, sr))


def test_remove_silence_is_fast() -> None:
    import time

    sr = 24000
    t = np.arange(30 * sr) / sr
    gate = np.sin(2 * np.pi * 0.7 * t) > 0
    wave = (0.3 * np.sin(2 * np.pi * 220 * t) * gate).astype(np.float32)[None]
    audio.remove_silence(wave, sr)  # warm up
    start = time.perf_counter()
    audio.remove_silence(wave, sr)
    assert time.perf_counter() - start < 0.5


# ---------------------------------------------------------------------------
# trim_long_audio
# ---------------------------------------------------------------------------


def _long_signals() -> dict[str, tuple[np.ndarray, int]]:
    sr = 16000
    speech = [tone(2400, sr), silence(300, sr), tone(5000, sr), silence(150, sr), tone(6000, sr)]
    return {
        "pauses": (clip(*speech, silence(400, sr), tone(9000, sr)), sr),
        "no_pause": (clip(tone(22000, sr)), sr),
        "early_pause_only": (clip(tone(1000, sr), silence(500, sr), tone(21000, sr)), sr),
        "leading_silence": (
            clip(silence(4000, sr), tone(9000, sr), silence(200, sr), tone(9000, sr)),
            sr,
        ),
        "noise_floor": (
            clip(noise(3000, sr, -45), tone(8000, sr), noise(700, sr, -42), tone(12000, sr)),
            sr,
        ),
        "stereo": (clip(tone(6000, sr), silence(250, sr), tone(16000, sr), channels=2), sr),
        "pause_at_max": (clip(tone(15000, sr), silence(500, sr), tone(6000, sr)), sr),
        "odd_rate": (clip(tone(7300, 12345), silence(333, 12345), tone(14000, 12345)), 12345),
    }


LONG = _long_signals()


@pytest.mark.parametrize("name", LONG)
def test_trim_long_audio_matches_reference(name: str) -> None:
    wave, sr = LONG[name]
    for args in [(15.0, 3.0, 20.0), (10.0, 8.0, 12.0), (12.5, 1.0, 5.0)]:
        expected = ref.trim_long_audio(wave, sr, *args)
        got = audio.trim_long_audio(wave, sr, *args)
        assert got.shape == expected.shape, args
        np.testing.assert_array_equal(got, expected, err_msg=f"{args}")


def test_trim_long_audio_leaves_short_and_silent_clips_alone() -> None:
    sr = 16000
    short = clip(tone(5000, sr, 0.123456))
    np.testing.assert_array_equal(audio.trim_long_audio(short, sr), short)
    quiet = clip(silence(25000, sr))
    np.testing.assert_array_equal(audio.trim_long_audio(quiet, sr), ref.trim_long_audio(quiet, sr))


# ---------------------------------------------------------------------------
# fade_and_pad and cross_fade_chunks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 3, 100, 4799, 4800, 10001])
@pytest.mark.parametrize("channels", [1, 2])
def test_fade_and_pad_matches_reference(length: int, channels: int) -> None:
    rng = np.random.default_rng(length)
    wave = rng.uniform(-1, 1, (channels, length)).astype(np.float32)
    original = wave.copy()
    for pad_s, fade_s, sr in [(0.1, 0.1, 24000), (0.0, 0.05, 24000), (0.25, 0.0, 16000)]:
        expected = ref.fade_and_pad_audio(wave, pad_s, fade_s, sr)
        got = audio.fade_and_pad(wave, sr, pad_s=pad_s, fade_s=fade_s)
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(wave, original)  # the input is never modified


@pytest.mark.parametrize("channels", [1, 2])
def test_cross_fade_chunks_matches_reference(channels: int) -> None:
    rng = np.random.default_rng(channels)
    lengths = [5000, 30, 2400, 0, 7000]
    chunks = [rng.uniform(-1, 1, (channels, n)).astype(np.float32) for n in lengths]
    originals = [c.copy() for c in chunks]
    for count in (1, 2, len(chunks)):
        for silence_s, sr in [(0.3, 24000), (0.0, 24000), (0.5, 16000)]:
            expected = ref.cross_fade_chunks([c.copy() for c in chunks[:count]], sr, silence_s)
            got = audio.cross_fade_chunks(chunks[:count], sr, silence_s=silence_s)
            np.testing.assert_array_equal(got, expected)
    for chunk, original in zip(chunks, originals):
        np.testing.assert_array_equal(chunk, original)  # inputs are never modified


def test_cross_fade_chunks_rejects_an_empty_list() -> None:
    with pytest.raises(ValueError):
        audio.cross_fade_chunks([], 24000)


# ---------------------------------------------------------------------------
# load_reference, mono, resampling
# ---------------------------------------------------------------------------


def test_load_reference_matches_reference(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    stereo = rng.uniform(-0.5, 0.5, (44100 // 2, 2)).astype(np.float32)
    path = tmp_path / "stereo.wav"
    sf.write(path, stereo, 44100, subtype="FLOAT")
    for target in (24000, 44100, 16000):
        expected = ref.load_audio(str(path), target)
        got = audio.load_reference(path, target)
        assert got.shape == expected.shape and got.dtype == np.float32
        np.testing.assert_array_equal(got, expected)


def test_mono_and_resample_accept_1d() -> None:
    rng = np.random.default_rng(9)
    wave = rng.uniform(-1, 1, 4800).astype(np.float32)
    assert audio.to_mono(wave).shape == (1, 4800)
    stereo = np.stack([wave, -0.5 * wave])
    np.testing.assert_array_equal(audio.to_mono(stereo), np.mean(stereo, axis=0, keepdims=True))
    one_d = audio.resample(wave, 48000, 24000)
    two_d = audio.resample(wave[None], 48000, 24000)
    assert one_d.shape == (2400,) and two_d.shape == (1, 2400)
    np.testing.assert_array_equal(one_d, two_d[0])
    assert audio.resample(wave, 24000, 24000) is wave
