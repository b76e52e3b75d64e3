"""Checking a reference clip that is to become a voice: a file, audio, a length a voice can use."""

from __future__ import annotations

from pathlib import Path

from studio.errors import UserError
from studio.sound.files import clip_seconds

# A saved voice's clip: under a second carries too little of the voice to clone, and
# the model hears only the first part of a long one (3 to 10 s works best).
MIN_VOICE_SECONDS = 1.0
MAX_VOICE_SECONDS = 30.0


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
