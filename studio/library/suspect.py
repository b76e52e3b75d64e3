"""Suspect-take badges and the character error rate of an ASR round trip.

A badge is a hint that a take deserves a listen before it is used, never a
verdict. The thresholds are named here and documented in the user guide
("Suspect takes"); change both together.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from studio.sound.loudness import loudness_lufs

NEAR_SILENT = "near-silent"
CLIPPED = "clipped"
TOO_LOUD = "too-loud"
TOO_QUIET = "too-quiet"
LONG_SILENCE = "long-silence"
BADGES = (NEAR_SILENT, CLIPPED, TOO_LOUD, TOO_QUIET, LONG_SILENCE)

NEAR_SILENT_LUFS = -55.0  # quieter than this (or nothing above the -70 LUFS gate): near-silent
QUIET_LUFS = -35.0  # renders land around -20 to -25 LUFS; this is 10+ dB under that
LOUD_LUFS = -8.0  # louder than broadcast masters; speech this loud is distorted
CLIP_LEVEL = 0.999  # |sample| at or above this counts as full scale
CLIP_RUN = 3  # this many full-scale samples in a row: the waveform was cut off
FRAME_S = 0.05  # silence is judged on 50 ms frames
SILENCE_BELOW_DB = 40.0  # a frame this far under the take's speech level is silence
SILENCE_FLOOR_DBFS = -60.0  # ... and a frame under this level always is
LONG_SILENCE_S = 1.5  # a pause inside the take at least this long


def inspect(audio: np.ndarray, sample_rate: int) -> tuple[str, ...]:
    """The badges that apply to a mono take, in :data:`BADGES` order; () for a clean one."""
    x = np.nan_to_num(np.asarray(audio, dtype=np.float64).reshape(-1))
    if x.size == 0:
        return (NEAR_SILENT,)
    found = set()
    lufs = loudness_lufs(x, sample_rate)
    if lufs is None or lufs < NEAR_SILENT_LUFS:
        found.add(NEAR_SILENT)
    elif lufs < QUIET_LUFS:
        found.add(TOO_QUIET)
    elif lufs > LOUD_LUFS:
        found.add(TOO_LOUD)
    if _longest_run(np.abs(x) >= CLIP_LEVEL) >= CLIP_RUN:
        found.add(CLIPPED)
    if NEAR_SILENT not in found and longest_internal_silence(x, sample_rate) >= LONG_SILENCE_S:
        found.add(LONG_SILENCE)
    return tuple(badge for badge in BADGES if badge in found)


def _longest_run(mask: np.ndarray) -> int:
    if not mask.any():
        return 0
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return int((ends - starts).max())


def longest_internal_silence(audio: np.ndarray, sample_rate: int) -> float:
    """Seconds of the longest silent stretch between the first and the last sound."""
    frame = max(1, round(FRAME_S * sample_rate))
    count = audio.size // frame
    if count < 3:
        return 0.0
    frames = audio[: count * frame].reshape(count, frame)
    with np.errstate(divide="ignore"):
        level = 10.0 * np.log10(np.mean(frames * frames, axis=1))
    speech = float(np.percentile(level, 95))
    silent = (level < speech - SILENCE_BELOW_DB) | (level < SILENCE_FLOOR_DBFS)
    sound = np.flatnonzero(~silent)
    if sound.size < 2:
        return 0.0
    inner = silent[sound[0] : sound[-1] + 1]  # leading and trailing silence is padding
    return _longest_run(inner) * frame / sample_rate


_TAG = re.compile(r"\[[^\[\]]*\]")  # non-verbal tags like [laughter]: never transcribed


def normalise(text: str) -> str:
    """The characters that count for the error rate: tags, punctuation and spaces dropped,
    compatibility forms and case folded."""
    text = unicodedata.normalize("NFKC", _TAG.sub(" ", text)).casefold()
    return "".join(ch for ch in text if unicodedata.category(ch)[0] in "LN")


def cer(expected: str, heard: str) -> float:
    """Character error rate: Levenshtein distance over the normalised characters,
    divided by the expected length (0.0 is perfect; it can exceed 1.0)."""
    ref, hyp = normalise(expected), normalise(heard)
    if not ref:
        return 0.0 if not hyp else 1.0
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i]
        for j, h in enumerate(hyp, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h)))
        previous = current
    return previous[-1] / len(ref)
