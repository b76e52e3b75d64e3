"""A clip from untrusted bytes: the header is checked before any decode, and the decode
stops at the bounds whatever the header claimed (issue 26, groups 1 and 2)."""

from __future__ import annotations

import io
import struct
import tracemalloc

import numpy as np
import pytest
import soundfile as sf

from studio.sound.clip_bounds import (
    ClipLimits,
    ClipTooLong,
    ClipUnusable,
    probe_clip,
    read_clip,
)


def wav(frames: int, rate: int, channels: int = 1) -> bytes:
    buf = io.BytesIO()
    sf.write(buf, np.zeros((frames, channels), np.int16), rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()


def flac_bomb(seconds: int = 1_300, rate: int = 8_000, channels: int = 8,
              hide_length: bool = False) -> bytes:
    """Silence: tens of KB that decode to seconds x rate x channels float32 samples."""
    buf = io.BytesIO()
    with sf.SoundFile(buf, "w", rate, channels, format="FLAC", subtype="PCM_16") as out:
        block = np.zeros((rate * 20, channels), np.float32)
        for _ in range(seconds // 20):
            out.write(block)
    data = bytearray(buf.getvalue())
    if hide_length:  # STREAMINFO's 36-bit total-samples field = 0: "unknown"
        data[21] &= 0xF0
        data[22:26] = b"\0\0\0\0"
    return bytes(data)


@pytest.mark.parametrize("rate", [1, 7_999, 192_001, 2**31 - 1])
def test_a_rate_outside_the_range_is_refused_from_the_header(rate):
    with pytest.raises(ClipUnusable, match=f"{rate:,} Hz"):
        probe_clip(wav(2_000, rate))


def test_too_many_channels_are_refused():
    data = bytearray(wav(100, 24_000))
    data[22:24] = struct.pack("<H", 1_000)  # the fmt chunk's channel count
    with pytest.raises(ClipUnusable, match="1,000 channels"):
        probe_clip(bytes(data))


def test_a_clip_over_the_duration_is_too_long():
    with pytest.raises(ClipTooLong, match="61 s long, over the limit of 60 s"):
        probe_clip(wav(61 * 8_000, 8_000))


def test_a_clip_over_the_sample_budget_is_too_long():
    with pytest.raises(ClipTooLong, match="mono or at 48 kHz"):
        probe_clip(wav(30 * 192_000, 192_000, channels=2))


def test_a_flac_bomb_is_refused_from_its_header():
    data = flac_bomb()
    assert len(data) < 300_000
    with pytest.raises(ClipTooLong, match="1,300 s long"):
        probe_clip(data)


def test_a_flac_bomb_that_hides_its_length_stops_decoding_at_the_bound():
    data = flac_bomb(hide_length=True)
    assert probe_clip(data).frames is None  # nothing to refuse in the header
    tracemalloc.start()
    try:
        with pytest.raises(ClipTooLong, match="is longer than the limit of 60 s"):
            read_clip(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    bound = ClipLimits().max_samples * 4
    assert peak < 3 * bound, peak  # 1,300 s x 8 channels would be 333 MB


def test_not_audio_and_no_samples_are_unusable():
    with pytest.raises(ClipUnusable, match="not audio"):
        read_clip(b"this is not audio at all" * 20)
    with pytest.raises(ClipUnusable, match="no samples"):
        read_clip(wav(0, 24_000))


def test_invalid_samples_are_unusable():
    buf = io.BytesIO()
    sf.write(buf, np.array([0.1, np.nan, 0.2], np.float32), 24_000, format="WAV",
             subtype="FLOAT")
    with pytest.raises(ClipUnusable, match="NaN"):
        read_clip(buf.getvalue())


def test_a_good_clip_reads_as_soundfile_reads_it():
    rng = np.random.default_rng(3)
    wave = (0.2 * rng.standard_normal((int(2.5 * 44_100), 2))).astype(np.float32)
    buf = io.BytesIO()
    sf.write(buf, wave, 44_100, format="FLAC", subtype="PCM_24")
    expected, rate = sf.read(io.BytesIO(buf.getvalue()), dtype="float32", always_2d=True)
    got, got_rate = read_clip(buf.getvalue(), name="The ref_audio")
    assert got_rate == rate == 44_100
    np.testing.assert_array_equal(got, expected.T)
    assert probe_clip(buf.getvalue()).frames == wave.shape[0]
