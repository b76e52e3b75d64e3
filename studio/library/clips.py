"""Checking that a reference clip's bytes are audio that soundfile can decode."""

from __future__ import annotations

import io

import soundfile as sf

_BLOCK_FRAMES = 65_536  # decode in blocks: a long clip never sits in memory as floats


def is_readable_audio(data: bytes) -> bool:
    """True when libsndfile recognises ``data`` and decodes at least one frame."""
    try:
        with sf.SoundFile(io.BytesIO(data)) as audio:
            if audio.samplerate <= 0 or audio.channels <= 0:
                return False
            decoded = 0
            for block in audio.blocks(blocksize=_BLOCK_FRAMES, dtype="float32", always_2d=True):
                decoded += block.shape[0]
            return decoded > 0
    except (sf.SoundFileError, RuntimeError, ValueError, TypeError, OSError, EOFError):
        return False
