"""Checking reference clips: bytes that soundfile can decode, and a length a voice can use."""

from __future__ import annotations

import io
from pathlib import Path

import soundfile as sf

from studio.errors import UserError

# A saved voice's clip: under a second carries too little of the voice to clone, and
# the model hears only the first part of a long one (3 to 10 s works best).
MIN_VOICE_SECONDS = 1.0
MAX_VOICE_SECONDS = 30.0

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


def clip_seconds(path: str | Path) -> float | None:
    """The clip's length in seconds from its header, or None when it is not audio."""
    try:
        info = sf.info(str(path))
    except (sf.SoundFileError, RuntimeError, ValueError, TypeError, OSError, EOFError):
        return None
    return info.frames / info.samplerate if info.samplerate > 0 else None


def check_voice_clip(path: str | Path) -> float:
    """The length of a clip that is to become a voice; one sentence when it cannot."""
    source = Path(path)
    if not source.is_file():
        raise UserError(f"The reference clip {source} does not exist or is not a file; "
                        "choose the clip again.")
    seconds = clip_seconds(source)
    if seconds is None or seconds <= 0:
        raise UserError(f"The reference clip {source.name} is not audio that can be read; "
                        "use a WAV, FLAC or OGG file.")
    if not MIN_VOICE_SECONDS <= seconds <= MAX_VOICE_SECONDS:
        side = "short" if seconds < MIN_VOICE_SECONDS else "long"
        raise UserError(
            f"The reference clip {source.name} is {seconds:.1f} s long, too {side} for a voice; "
            f"use {MIN_VOICE_SECONDS:.0f} to {MAX_VOICE_SECONDS:.0f} s of speech "
            "(3 to 10 s works best), or trim it."
        )
    return seconds
