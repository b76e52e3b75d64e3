"""Audio to a pipe as it renders: a WAV stream or raw PCM on standard output.

A WAV stream cannot know its length when it starts, so its header says "unknown"
(0xFFFFFFFF in both size fields), as ffmpeg and aplay write and read it. Samples are
16-bit little-endian mono, converted by libsndfile as a file's PCM_16 is, so a stream
read back equals the file the same render writes.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

import numpy as np

UNKNOWN = 0xFFFFFFFF
STREAM_FORMATS = ("wav", "pcm")
# Server-sent events of a speech stream, as OpenAI and vLLM-Omni 0.30 name them: each
# delta's JSON carries base64 audio in "audio"; done ends the stream, error stops it.
# Declared here (below serve and remote) so the server and the client share them.
SSE_MEDIA_TYPE = "text/event-stream"
SSE_DELTA = "speech.audio.delta"
SSE_DONE = "speech.audio.done"
SSE_ERROR = "speech.audio.error"


def wav_stream_header(sample_rate: int, channels: int = 1) -> bytes:
    """A 44-byte PCM WAV header whose RIFF and data sizes are unknown."""
    block = channels * 2
    return (b"RIFF" + struct.pack("<I", UNKNOWN) + b"WAVE"
            + b"fmt " + struct.pack("<IHHIIHH", 16, 1, channels, sample_rate,
                                    sample_rate * block, block, 16)
            + b"data" + struct.pack("<I", UNKNOWN))


def pcm16(audio: np.ndarray) -> bytes:
    """Float samples as 16-bit little-endian PCM, clipped, converted by libsndfile itself
    (its rounding is its own; a file and a stream of one render hold the same samples)."""
    from studio.sound.files import encode  # here: the command line starts without libsndfile

    return encode(audio, 8000, "RAW", "PCM_16", endian="LITTLE")


class PipeWriter:
    """Writes each piece to ``out`` (a binary stream) and flushes, so a reader hears it now."""

    def __init__(self, out: BinaryIO, sample_rate: int, fmt: str = "wav"):
        if fmt not in STREAM_FORMATS:
            raise ValueError(f"unknown stream format {fmt!r}")
        self.out = out
        if fmt == "wav":
            self._send(wav_stream_header(sample_rate))

    def write(self, audio: np.ndarray) -> None:
        self._send(pcm16(audio))

    def _send(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()
