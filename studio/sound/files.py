"""Reading and writing audio files: the one module of the studio that calls libsndfile
(through soundfile).

Two levels. The plain calls (:func:`decode`, :func:`header`, :func:`open_reader`,
:func:`decodable_frames`, :func:`write`, :func:`encode`) pass libsndfile's errors on,
caught by their callers as :data:`UNREADABLE` or :data:`UNWRITABLE`, because each caller
says its own sentence (a take, a server's answer, a dropped clip). :func:`read_audio`,
:func:`write_audio_atomic` and :class:`AudioFileWriter` are for a file a person chose:
every failure is one :class:`UserError`, and a write goes to a temp name renamed at the
end, so a failure leaves the old file as it was.

Arrays handed in are float32 ``(C, T)`` (1-D is one channel); :func:`decode` gives
libsndfile's ``(T, C)``.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from types import MappingProxyType
from typing import BinaryIO

import numpy as np
import soundfile as sf

from studio.atomic import atomic_path
from studio.errors import UserError

FileError = sf.SoundFileError  # libsndfile's own error, for callers that catch only it
# What libsndfile raises for a file or bytes it cannot read: its own error, and the
# built-ins it lets through for a truncated header or an object that is not a file.
UNREADABLE = (sf.SoundFileError, RuntimeError, ValueError, TypeError, OSError, EOFError)
# What writing raises: a full disk, a closed file, a subtype the container refuses.
UNWRITABLE = (OSError, sf.SoundFileError, RuntimeError, ValueError)

BLOCK_FRAMES = 65_536  # decode in blocks: a long clip never sits in memory as floats

# Formats we write, by extension: (libsndfile format, subtype). 16-bit PCM is what
# every player and editor opens; Vorbis is the only codec libsndfile has for OGG.
_WRITE_FORMATS = MappingProxyType(
    {
        ".wav": ("WAV", "PCM_16"),
        ".flac": ("FLAC", "PCM_16"),
        ".ogg": ("OGG", "VORBIS"),
        ".mp3": ("MP3", "MPEG_LAYER_III"),  # a script's mix (libsndfile 1.1 and later)
    }
)

Source = str | os.PathLike | BinaryIO | bytes


def _source(source: Source):
    return io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source


def as_channels(wave: np.ndarray) -> np.ndarray:
    """View 1-D input as one channel; everything downstream is float32 (C, T)."""
    wave = np.asarray(wave, dtype=np.float32)
    if wave.ndim == 1:
        return wave[np.newaxis, :]
    if wave.ndim != 2:
        raise ValueError(f"expected audio shaped (T,) or (C, T), got {wave.shape}")
    return wave


# ---------------------------------------------------------------------------
# Plain calls: libsndfile's errors pass through
# ---------------------------------------------------------------------------


def decode(source: Source) -> tuple[np.ndarray, int]:
    """The whole file as float32 ``(T, C)`` and its sample rate."""
    data, rate = sf.read(_source(source), dtype="float32", always_2d=True)
    return data, int(rate)


def header(source: Source):
    """The file's header (``frames``, ``samplerate``, ``channels``); nothing is decoded."""
    return sf.info(_source(source))


def open_reader(source: Source) -> sf.SoundFile:
    """The file open for reading in blocks (``with open_reader(x) as f: f.read(n, ...)``)."""
    return sf.SoundFile(_source(source))


def decodable_frames(source: Source) -> tuple[int, int]:
    """How many frames of ``source`` decode, and its sample rate; (0, 0) when unreadable.

    Every block is decoded, because a header can claim frames the file does not hold."""
    try:
        with open_reader(source) as audio:
            if audio.samplerate <= 0 or audio.channels <= 0:
                return 0, 0
            blocks = audio.blocks(BLOCK_FRAMES, dtype="float32", always_2d=True)
            return sum(block.shape[0] for block in blocks), int(audio.samplerate)
    except UNREADABLE:
        return 0, 0


def is_readable_audio(data: bytes) -> bool:
    """True when libsndfile recognises ``data`` and decodes at least one frame."""
    return decodable_frames(data)[0] > 0


def clip_seconds(path: str | Path) -> float | None:
    """The clip's length in seconds from its header, or None when it is not audio."""
    try:
        info = header(str(path))
    except UNREADABLE:
        return None
    return info.frames / info.samplerate if info.samplerate > 0 else None


def can_write(container: str, subtype: str) -> bool:
    """Whether this machine's libsndfile writes ``container`` with ``subtype``."""
    return container in sf.available_formats() and subtype in sf.available_subtypes(container)


def write(target: str | os.PathLike | BinaryIO, audio: np.ndarray, sample_rate: int,
          container: str, subtype: str, **options) -> None:
    """Write ``audio`` (``(T,)`` or ``(T, C)``, as libsndfile takes it) to ``target``."""
    sf.write(target, audio, int(sample_rate), format=container, subtype=subtype, **options)


def encode(audio: np.ndarray, sample_rate: int, container: str, subtype: str,
           **options) -> bytes:
    """Mono ``audio`` clipped to +-1 as the bytes of a file in ``container``."""
    buffer = io.BytesIO()
    samples = np.clip(np.asarray(audio, np.float32).reshape(-1), -1.0, 1.0)
    write(buffer, samples, sample_rate, container, subtype, **options)
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# A file a person chose: one sentence for every failure, atomic writes
# ---------------------------------------------------------------------------


def readable_formats() -> str:
    """Name the formats this libsndfile build can decode (MP3 arrived in 1.1.0)."""
    names = ["WAV", "FLAC", "OGG"]
    if "MP3" in sf.available_formats():
        names.append("MP3")
    return ", ".join(names[:-1]) + " or " + names[-1]


def read_audio(path: str | os.PathLike) -> tuple[np.ndarray, int]:
    """Read an audio file as float32 ``(C, T)`` and its sample rate.

    Every way the file can be unusable is reported as one :class:`UserError` sentence.
    """
    source = Path(path)
    try:
        is_dir = source.is_dir()
        exists = is_dir or source.exists()
    except OSError:
        exists = is_dir = False  # an unreachable path reads as missing to the user
    if not exists:
        raise UserError(f"The audio file {source} does not exist; check the path and try again.")
    if is_dir:
        raise UserError(f"{source} is a folder, not an audio file; choose an audio file inside it.")
    from studio.safe_read import check_regular

    check_regular(source, "audio file")  # libsndfile would read /dev/zero or wait on a pipe
    try:
        data, sample_rate = decode(os.fspath(source))
    except PermissionError:
        raise UserError(
            f"The audio file {source} cannot be opened because permission is denied; "
            "copy it somewhere you can read it."
        ) from None
    except (sf.SoundFileError, RuntimeError, ValueError, TypeError, OSError):
        # libsndfile says little that helps a user; what helps is the list of formats.
        raise UserError(
            f"The audio file {source} is damaged or in a format that cannot be read; "
            f"convert it to {readable_formats()}."
        ) from None
    if data.shape[0] == 0:
        raise UserError(
            f"The audio file {source} contains no samples; choose a recording that has sound."
        )
    if not np.isfinite(data).all():
        raise UserError(
            f"The audio file {source} contains invalid samples (NaN or infinity); "
            "export it again from your audio editor."
        )
    return np.ascontiguousarray(data.T), sample_rate


def write_audio_atomic(path: str | os.PathLike, audio_1d: np.ndarray, sample_rate: int) -> None:
    """Write a clip as WAV, FLAC (16-bit), OGG Vorbis or MP3, chosen by the extension.

    The data goes to a unique temp file beside the target, is flushed to disk and
    then renamed over the target, so a crash or error never leaves a half-written
    file at ``path``. ``(C, T)`` input is accepted too. Samples beyond +-1 are clipped.
    """
    frames = as_channels(audio_1d)
    with AudioFileWriter(path, sample_rate, channels=frames.shape[0]) as writer:
        writer.write(frames)


class AudioFileWriter:
    """A clip written piece by piece (:meth:`write` as each is ready), under a temp name
    that becomes ``path`` when the ``with`` block ends without an error; on an error or
    an interruption the temp file goes and ``path`` is untouched."""

    def __init__(self, path: str | os.PathLike, sample_rate: int, channels: int = 1, *,
                 sync: bool = True):
        # sync: each write reaches the disk at once (a stream someone may follow); a long
        # file written in blocks leaves it to the end, one fsync instead of hundreds.
        self.sync = sync
        self.target = Path(path)
        suffix = self.target.suffix.lower()
        if suffix not in _WRITE_FORMATS:
            raise UserError(
                f"Cannot save {self.target.name}: the file name must end in .wav, .flac, .ogg "
                "or .mp3."
            )
        folder = self.target.parent
        if not folder.is_dir():
            raise UserError(f"Cannot save {self.target.name}: the folder {folder} does not exist.")
        if self.target.is_dir():
            raise UserError(f"Cannot save to {self.target}: it is a folder; choose a file name.")
        self.format, self.subtype = _WRITE_FORMATS[suffix]
        self.sample_rate, self.channels = sample_rate, channels
        self._temp = None
        self._file = None

    def __enter__(self) -> AudioFileWriter:
        self._temp = atomic_path(self.target)
        tmp = self._temp.__enter__()
        try:
            # Opened by name, so libsndfile does its own I/O and a full disk is its error,
            # not tracebacks from inside a Python file object's callbacks.
            self._file = sf.SoundFile(tmp, "w", self.sample_rate, self.channels,
                                      format=self.format, subtype=self.subtype)
        except BaseException as exc:
            self._temp.__exit__(type(exc), exc, exc.__traceback__)
            raise self._save_error(exc) from None
        return self

    def write(self, audio: np.ndarray) -> None:
        """Append ``(T,)`` or ``(C, T)`` samples; beyond +-1 they are clipped (no PCM wrap)."""
        frames = np.clip(as_channels(audio), -1.0, 1.0).T
        try:
            self._file.write(frames)
            if self.sync:
                self._file.flush()
        except UNWRITABLE as exc:
            raise self._save_error(exc) from None

    def __exit__(self, kind, exc, tb) -> bool:
        problem = None
        try:
            self._file.close()  # writes the final header
        except UNWRITABLE as error:
            problem = error
        if problem is not None and kind is None:
            self._temp.__exit__(type(problem), problem, None)
            raise self._save_error(problem) from None
        try:
            self._temp.__exit__(kind, exc, tb)
        except OSError as error:
            raise self._save_error(error) from None
        return False

    def _save_error(self, exc: BaseException) -> BaseException:
        if isinstance(exc, UserError) or not isinstance(exc, Exception):
            return exc
        if isinstance(exc, OSError):
            why = exc.strerror or str(exc)
        elif str(exc).rstrip(".").endswith("System error"):  # libsndfile's word for ENOSPC & co
            why = "the disk is full or the file cannot be written"
        else:
            why = str(exc).rstrip(".")
        return UserError(f"Cannot save {self.target}: {why}; free some space or choose another "
                         "folder.")
