"""A reference clip made ready for encoding, with the refusals that need no model.

numpy only (no torch): the engine runs it before it encodes a clip, and the studio's
Generate runs the same function first, so a silent or empty clip is said before any
download is offered, in the words the engine would use.
"""

from __future__ import annotations

import numpy as np

from studio.engine import audio as audio_ops
from studio.errors import UserError

MAX_REFERENCE_S = 60.0  # a prompt holds at most a minute of frames (prompt.MAX_PROMPT_FRAMES)


def prepared_reference(wave: np.ndarray, sample_rate: int, name: str, *, transcribed: bool,
                       preprocess: bool, hop: int) -> tuple[np.ndarray, float]:
    """(the clip as it is encoded, its original RMS) from a mono ``wave`` at the model's
    rate; ``transcribed``: no transcript was given, so the clip may be cut (and will be
    transcribed). Raises UserError for a clip that cannot make a prompt."""
    if wave.shape[-1] == 0:
        raise UserError(f"{name} holds no audio; record or choose a clip of 3 to 10 seconds.")
    if not np.isfinite(wave).all():
        raise UserError(f"{name} contains invalid (NaN or infinite) samples; export it again.")
    rms = float(np.sqrt(np.mean(wave**2)))
    if rms == 0.0:
        raise UserError(f"{name} is completely silent; choose a clip where the voice is audible.")
    if rms < 0.1:
        wave = wave * (0.1 / rms)
    if preprocess:
        if transcribed:
            # Only cut a long clip when no transcript has to stay aligned with it.
            wave = audio_ops.trim_long_audio(wave, sample_rate)
        wave = audio_ops.remove_silence(wave, sample_rate, 200, 100, 200)
        if wave.shape[-1] == 0:
            raise UserError(
                f"{name} is silent after silence trimming; use a louder clip, or turn off "
                "Auto-trim reference (--no-preprocess on the command line)."
            )
    seconds = wave.shape[-1] / sample_rate
    if seconds > MAX_REFERENCE_S:  # only with a transcript: without one it was cut above
        raise UserError(
            f"The reference clip is {seconds:.0f} s long, more than the {MAX_REFERENCE_S:.0f} s "
            "a prompt can use (3 to 10 s clones best); trim it, or leave the transcript "
            "empty to have it cut at a pause and transcribed."
        )
    if wave.shape[-1] < hop:
        raise UserError(f"{name} is too short to encode; use a clip of 3 to 10 seconds.")
    return wave, rms
