"""Reading a reference clip from bytes someone else sent, within bounds.

A clip's header is read first and its rate, channels and duration checked before a
sample is decoded; the decode then runs in blocks and stops as soon as it passes the
bounds, because a compressed file's header may lie about its length or not state it
(a FLAC bomb of 250 KB can unpack to gigabytes). So what a decode may allocate is at
most ``max_samples`` float32 values, whatever the bytes claim. A refusal is one
sentence: :class:`ClipTooLong` for a clip over the bounds (HTTP 413 in ``serve``),
:class:`ClipUnusable` for one that cannot be used (422).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.errors import UserError
from studio.sound.files import open_reader

_UNKNOWN_FRAMES = 1 << 62  # libsndfile's SF_COUNT_MAX for a stream that states no length


class ClipTooLong(UserError):
    """The clip is longer, or holds more samples, than the bounds allow."""


class ClipUnusable(UserError):
    """The bytes are not a clip that can be used (not audio, odd rate, no samples)."""


@dataclass(frozen=True)
class ClipLimits:
    max_seconds: float = 60.0  # what a prompt can hold (engine.reference.MAX_REFERENCE_S)
    min_rate: int = 8_000
    max_rate: int = 192_000
    max_channels: int = 8
    max_samples: int = 60 * 48_000 * 2  # frames x channels: a minute of 48 kHz stereo, 23 MB


@dataclass(frozen=True)
class ClipHeader:
    rate: int
    channels: int
    frames: int | None  # None: the file does not say


def _open(data: bytes, name: str):
    try:
        return open_reader(data)
    except Exception:  # libsndfile says only that it could not; the sentence says what to send
        raise ClipUnusable(f"{name} is not audio that can be read; send a WAV, FLAC or OGG "
                           "clip.") from None


def _check(header: ClipHeader, limits: ClipLimits, name: str) -> None:
    if not limits.min_rate <= header.rate <= limits.max_rate:
        raise ClipUnusable(f"{name} has a sample rate of {header.rate:,} Hz; send a clip "
                           f"recorded at {limits.min_rate:,} to {limits.max_rate:,} Hz.")
    if not 1 <= header.channels <= limits.max_channels:
        raise ClipUnusable(f"{name} has {header.channels:,} channels; send a mono or stereo "
                           f"clip (at most {limits.max_channels}).")
    if header.frames is not None:
        _check_length(header.frames, header, limits, name)


def _check_length(frames: int, header: ClipHeader, limits: ClipLimits, name: str,
                  decoding: bool = False) -> None:
    """``frames`` as the header states them, or (``decoding``) as many as were decoded so
    far, which says only that the clip is at least that long."""
    seconds, samples = frames / header.rate, frames * header.channels
    if seconds > limits.max_seconds:
        length = "longer than" if decoding else f"{seconds:,.0f} s long, over"
        raise ClipTooLong(f"{name} is {length} the limit of {limits.max_seconds:.0f} s; send "
                          "3 to 10 s of speech, which clones best.")
    if samples > limits.max_samples:
        count = "more than" if decoding else f"{samples:,} samples, over"
        raise ClipTooLong(f"{name} holds {count} the limit of {limits.max_samples:,} "
                          "samples; send it as mono or at 48 kHz or less.")


def probe_clip(data: bytes, limits: ClipLimits = ClipLimits(),
               name: str = "The reference clip") -> ClipHeader:
    """The clip's header, checked against ``limits``; nothing is decoded."""
    with _open(data, name) as source:
        frames = source.frames if 0 <= source.frames < _UNKNOWN_FRAMES else None
        header = ClipHeader(int(source.samplerate), int(source.channels), frames)
    _check(header, limits, name)
    return header


def read_clip(data: bytes, limits: ClipLimits = ClipLimits(),
              name: str = "The reference clip") -> tuple[np.ndarray, int]:
    """The clip as float32 ``(C, T)`` and its rate, decoded a second at a time and
    stopped as soon as it passes ``limits`` (whatever its header said)."""
    with _open(data, name) as source:
        frames = source.frames if 0 <= source.frames < _UNKNOWN_FRAMES else None
        header = ClipHeader(int(source.samplerate), int(source.channels), frames)
        _check(header, limits, name)
        blocks, total = [], 0
        while True:
            try:
                block = source.read(header.rate, dtype="float32", always_2d=True)
            except Exception:
                raise ClipUnusable(f"{name} is damaged partway through; export it "
                                   "again.") from None
            if not len(block):
                break
            total += len(block)
            _check_length(total, header, limits, name, decoding=True)
            blocks.append(block)
    if total == 0:
        raise ClipUnusable(f"{name} holds no samples; send a clip of 3 to 10 seconds of "
                           "speech.")
    wave = np.concatenate(blocks).T
    if not np.isfinite(wave).all():
        raise ClipUnusable(f"{name} contains invalid (NaN or infinite) samples; export it "
                           "again.")
    return np.ascontiguousarray(wave), header.rate
