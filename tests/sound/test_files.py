"""studio.sound.files: reading and writing audio files, each failure one sentence, and
a failed write leaving the old file as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from studio.errors import UserError
from studio.sound import files


def test_read_audio_shape_and_rate(tmp_path: Path) -> None:
    data = np.random.default_rng(3).uniform(-1, 1, (1000, 3)).astype(np.float32)
    path = tmp_path / "three.flac"
    sf.write(path, data, 22050)
    wave, sr = files.read_audio(path)
    assert sr == 22050 and wave.shape == (3, 1000) and wave.dtype == np.float32
    assert wave.flags.c_contiguous
    np.testing.assert_allclose(wave, data.T, atol=1 / 32768)


def _assert_one_sentence(exc: pytest.ExceptionInfo[UserError]) -> str:
    message = str(exc.value)
    assert message.endswith(".") and "\n" not in message and "Traceback" not in message
    assert exc.value.__cause__ is None
    return message


def test_read_audio_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError) as exc:
        files.read_audio(tmp_path / "nope.wav")
    assert "does not exist" in _assert_one_sentence(exc)


def test_read_audio_directory(tmp_path: Path) -> None:
    with pytest.raises(UserError) as exc:
        files.read_audio(tmp_path)
    assert "folder" in _assert_one_sentence(exc)


@pytest.mark.parametrize(
    "name, content",
    [
        ("garbage.wav", b"RIFF\x00\x01not really a wave file at all" * 10),
        ("notes.txt", b"just some text\n"),
        ("empty_file.flac", b""),
        ("truncated.mp3", b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(50)),
    ],
)
def test_read_audio_unreadable(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(UserError) as exc:
        files.read_audio(path)
    message = _assert_one_sentence(exc)
    assert "WAV" in message and "FLAC" in message and "OGG" in message


def test_read_audio_zero_length(tmp_path: Path) -> None:
    path = tmp_path / "zero.wav"
    sf.write(path, np.zeros((0, 1), np.float32), 24000)
    with pytest.raises(UserError) as exc:
        files.read_audio(path)
    assert "no samples" in _assert_one_sentence(exc)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_read_audio_non_finite(tmp_path: Path, bad: float) -> None:
    data = np.zeros((100, 1), np.float32)
    data[40] = bad
    path = tmp_path / "bad.wav"
    sf.write(path, data, 24000, subtype="FLOAT")
    with pytest.raises(UserError) as exc:
        files.read_audio(path)
    assert "NaN" in _assert_one_sentence(exc)


# ---------------------------------------------------------------------------
# write_audio_atomic
# ---------------------------------------------------------------------------


def _speech_like(sr: int) -> np.ndarray:
    t = np.arange(sr) / sr
    return (0.4 * np.sin(2 * np.pi * 330 * t) * np.hanning(t.size)).astype(np.float32)


@pytest.mark.parametrize("ext", [".wav", ".flac", ".ogg", ".WAV"])
def test_write_round_trip(tmp_path: Path, ext: str) -> None:
    sr = 24000
    wave = _speech_like(sr)
    path = tmp_path / f"out{ext}"
    files.write_audio_atomic(path, wave, sr)
    back, back_sr = sf.read(path, dtype="float32")
    assert back_sr == sr and back.shape == wave.shape
    if ext == ".ogg":  # lossy: the waveform survives, not the exact samples
        assert np.corrcoef(back, wave)[0, 1] > 0.99
    else:
        np.testing.assert_allclose(back, wave, atol=1 / 32768)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_write_clips_out_of_range_samples(tmp_path: Path) -> None:
    path = tmp_path / "loud.wav"
    files.write_audio_atomic(path, np.array([1.5, -1.5, 0.25], np.float32), 16000)
    back, _ = sf.read(path, dtype="float32")
    assert back[0] > 0.99 and back[1] == -1.0


def test_write_multichannel(tmp_path: Path) -> None:
    wave = np.stack([_speech_like(8000), -_speech_like(8000)])
    path = tmp_path / "two.flac"
    files.write_audio_atomic(path, wave, 8000)
    back, _ = sf.read(path, dtype="float32")
    np.testing.assert_allclose(back.T, wave, atol=1 / 32768)


def test_write_replaces_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "out.wav"
    path.write_bytes(b"old")
    files.write_audio_atomic(path, _speech_like(8000), 8000)
    assert sf.info(path).frames == 8000


def test_mp3_is_written_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "out.mp3"
    files.write_audio_atomic(path, _speech_like(24000), 24000)
    assert sf.info(path).format == "MP3" and abs(sf.info(path).frames - 24000) < 2400


@pytest.mark.parametrize("name", ["out.aiff", "out", "out.wav.txt"])
def test_write_rejects_other_extensions(tmp_path: Path, name: str) -> None:
    with pytest.raises(UserError) as exc:
        files.write_audio_atomic(tmp_path / name, _speech_like(8000), 8000)
    assert ".wav" in _assert_one_sentence(exc)
    assert list(tmp_path.iterdir()) == []


def test_write_missing_folder_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(UserError) as exc:
        files.write_audio_atomic(tmp_path / "missing" / "out.wav", _speech_like(8000), 8000)
    assert "does not exist" in _assert_one_sentence(exc)
    assert list(tmp_path.iterdir()) == []


def test_write_onto_a_folder(tmp_path: Path) -> None:
    (tmp_path / "taken.wav").mkdir()
    with pytest.raises(UserError):
        files.write_audio_atomic(tmp_path / "taken.wav", _speech_like(8000), 8000)
    assert [p.name for p in tmp_path.iterdir()] == ["taken.wav"]


def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("encoder exploded")


@pytest.mark.parametrize("where", ["write", "replace", "interrupt"])
def test_write_failure_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    path = tmp_path / "out.flac"
    path.write_bytes(b"previous take")
    if where == "write":
        monkeypatch.setattr(files.sf.SoundFile, "write", _boom)
        expected: type[BaseException] = UserError
    elif where == "replace":

        def no_replace(*args: object) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(files.os, "replace", no_replace)
        expected = UserError
    else:

        def interrupted(*args: object, **kwargs: object) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(files.sf.SoundFile, "write", interrupted)
        expected = KeyboardInterrupt
    with pytest.raises(expected):
        files.write_audio_atomic(path, _speech_like(8000), 8000)
    # The old file is untouched and no temp file is left behind.
    assert [p.name for p in tmp_path.iterdir()] == ["out.flac"]
    assert path.read_bytes() == b"previous take"


@pytest.mark.skipif(os.name != "posix", reason="umask is a POSIX notion")
def test_written_file_gets_ordinary_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "perm.wav"
        files.write_audio_atomic(path, _speech_like(8000), 8000)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


# ---------------------------------------------------------------------------
# The plain calls the library, the remote client and serve use
# ---------------------------------------------------------------------------


def test_decodable_frames_counts_the_frames_that_decode(tmp_path: Path) -> None:
    path = tmp_path / "whole.wav"
    sf.write(path, _speech_like(8000), 8000)
    assert files.decodable_frames(path) == (8000, 8000)
    cut = tmp_path / "cut.wav"
    cut.write_bytes(path.read_bytes()[:44 + 2 * 3000])  # cut short: its header says 8000
    assert files.decodable_frames(cut) == (3000, 8000)
    assert files.decodable_frames(b"not audio") == (0, 0)
    assert files.decodable_frames(tmp_path / "missing.wav") == (0, 0)


def test_readable_audio_and_clip_seconds(tmp_path: Path) -> None:
    path = tmp_path / "one.flac"
    sf.write(path, _speech_like(8000), 8000)
    assert files.is_readable_audio(path.read_bytes())
    assert not files.is_readable_audio(b"RIFF" + bytes(40))
    assert files.clip_seconds(path) == pytest.approx(1.0)
    assert files.clip_seconds(tmp_path / "missing.wav") is None


def test_encode_clips_and_reads_back(tmp_path: Path) -> None:
    wave = np.array([0.5, 1.5, -2.0, 0.0], np.float32)
    data = files.encode(wave, 16000, "WAV", "PCM_16")
    back, rate = files.decode(data)
    assert rate == 16000 and back.shape == (4, 1)
    np.testing.assert_allclose(back[:, 0], [0.5, 1.0 - 1 / 32768, -1.0, 0.0], atol=1 / 32768)
    raw = files.encode(wave, 8000, "RAW", "PCM_16", endian="LITTLE")
    assert np.frombuffer(raw, "<i2").tolist() == [16384, 32767, -32768, 0]


def test_can_write_names_what_this_libsndfile_has() -> None:
    assert files.can_write("WAV", "PCM_16") and files.can_write("FLAC", "PCM_24")
    assert not files.can_write("WAV", "NO_SUCH_SUBTYPE")
    assert not files.can_write("NO_SUCH_FORMAT", "PCM_16")
