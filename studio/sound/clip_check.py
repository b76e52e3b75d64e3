"""Checks on a reference clip before it is cloned: its length, clipping, and the noise
under the speech; and the best stretch of a long clip to keep.

numpy only (no Qt, no torch), so the GUI thread, the CLI and tests can call it. Speech
is found on 20 ms frames by level: a frame well above the clip's quietest tenth (its
noise floor) and above an absolute floor is voiced. The thresholds are named here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOO_SHORT_S = 2.0  # under this the model has too little of the voice to go on
BEST_S = (3.0, 10.0)  # the length that clones best
LONG_S = 15.0  # over this, a clip slows every render and drifts: trim it
TRIM_S = 10.0  # what "Trim to the best 10 s" keeps
FRAME_S = 0.02
CLIP_LEVEL = 0.999  # |sample| at or above this is full scale
CLIP_RUN = 3  # full-scale samples in a row: the waveform was cut off there
NOISE_WARNING = "Background noise is loud"  # how the noise sentence starts
NOISY_FLOOR_DBFS = -45.0  # a floor (between words) louder than this is audible hiss or room
LOW_SNR_DB = 20.0  # speech less than this above the floor: the noise competes with the voice
VOICED_OVER_FLOOR_DB = 12.0
VOICED_MIN_DBFS = -50.0
SNAP_S = 0.6  # how far a trimmed edge may move inward to land in a pause
# Digital silence is refused by the render (the engine's "completely silent"), so it is
# said as a fix; a clip where no speech stands out still renders (it sounds like the
# clip), so that is a warning: the views show it calmly, not as an error.
SILENT = "The clip is silent; choose a clip where the voice is audible."
NO_SPEECH = ("No speech stands out in the clip; the clone copies what it hears, so a clip "
             "where the voice is clear clones better.")


@dataclass(frozen=True)
class ClipCheck:
    seconds: float
    length: str  # "too short" · "short" · "best" · "longish" · "long"
    clipped_runs: int  # places where the waveform was cut off at full scale
    noise_floor_dbfs: float | None  # None: digital silence between words (or no frames)
    speech_dbfs: float | None
    warnings: tuple[str, ...]  # one sentence each, what is wrong and what to do
    speech: bool = True  # some speech stands out from the background
    silent: bool = False  # every sample is zero: nothing can be rendered from it

    @property
    def snr_db(self) -> float | None:
        if self.noise_floor_dbfs is None or self.speech_dbfs is None:
            return None
        return self.speech_dbfs - self.noise_floor_dbfs


def length_verdict(seconds: float) -> str:
    if seconds < TOO_SHORT_S:
        return "too short"
    if seconds < BEST_S[0]:
        return "short"
    if seconds <= BEST_S[1]:
        return "best"
    if seconds <= LONG_S:
        return "longish"
    return "long"


def _mono(audio: np.ndarray) -> np.ndarray:
    # float32 throughout: a 5 min clip is checked on the GUI thread (frame sums in float64).
    x = np.nan_to_num(np.asarray(audio, dtype=np.float32))
    return x.mean(axis=0) if x.ndim == 2 else x.reshape(-1)


def frame_levels(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Each 20 ms frame's level in dBFS (-120 for digital silence)."""
    x = _mono(audio)
    frame = max(1, round(FRAME_S * sample_rate))
    count = x.size // frame
    if count == 0:
        return np.zeros(0)
    frames = x[: count * frame].reshape(count, frame)
    power = np.einsum("ij,ij->i", frames, frames, dtype=np.float64) / frame
    return 10.0 * np.log10(np.maximum(power, 1e-12))


def _runs(mask: np.ndarray, at_least: int) -> int:
    """How many runs of True at least ``at_least`` long."""
    if not mask.any():
        return 0
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    lengths = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
    return int(np.count_nonzero(lengths >= at_least))


def _voiced(levels: np.ndarray) -> tuple[np.ndarray, float | None, float | None]:
    """The voiced frames, the noise floor and the speech level (dBFS)."""
    if levels.size == 0:
        return np.zeros(0, dtype=bool), None, None
    floor = float(np.percentile(levels, 10))
    speech = float(np.percentile(levels, 95))
    voiced = (levels > floor + VOICED_OVER_FLOOR_DB) & (levels > VOICED_MIN_DBFS)
    return voiced, (None if floor <= -100.0 else floor), (None if speech <= -100.0 else speech)


def check_clip(audio: np.ndarray, sample_rate: int) -> ClipCheck:
    """Length, clipping and noise of a reference clip, with a sentence per problem."""
    x = _mono(audio)
    seconds = x.size / sample_rate if sample_rate > 0 else 0.0
    length = length_verdict(seconds)
    levels = frame_levels(x, sample_rate)
    voiced, floor, speech = _voiced(levels)
    clipped = _runs(np.abs(x) >= CLIP_LEVEL, CLIP_RUN)
    warnings = []
    if length == "too short":
        warnings.append(f"The clip is only {seconds:.1f} s; record or choose 3-10 s of speech "
                        "so the voice comes through.")
    elif length == "long":
        warnings.append(f"The clip is {seconds:.0f} s; trim it to the best 10 s, which clones "
                        "as well and renders faster.")
    silent = not np.any(x)
    heard = not silent and speech is not None and bool(voiced.any())
    if silent:
        warnings.append(SILENT)
    elif not heard:
        warnings.append(NO_SPEECH)
    else:
        if clipped:
            warnings.append(f"The clip is distorted (cut off at full volume in {clipped} "
                            f"place{'s' if clipped != 1 else ''}); record it a little quieter.")
        if floor is not None and voiced.sum() < levels.size:
            if floor > NOISY_FLOOR_DBFS:
                warnings.append(f"{NOISE_WARNING} ({floor:.0f} dBFS between words); a "
                                "quieter room clones better, as the clone copies the noise too.")
            elif speech - floor < LOW_SNR_DB:
                warnings.append(f"The voice is only {speech - floor:.0f} dB above the background; "
                                "a closer microphone or a quieter room clones better.")
    return ClipCheck(seconds, length, clipped, floor, speech, tuple(warnings), heard, silent)


def best_window(audio: np.ndarray, sample_rate: int, seconds: float = TRIM_S
                ) -> tuple[float, float]:
    """The stretch of at most ``seconds`` with the most speech: voiced frames count, the
    louder the better as a tie-break, and clipped frames count against it; its edges then
    move inward (by up to 0.6 s) to a pause, so no word is cut in two.
    A clip no longer than ``seconds`` is kept whole."""
    x = _mono(audio)
    total = x.size / sample_rate
    if total <= seconds:
        return 0.0, total
    levels = frame_levels(x, sample_rate)
    voiced, floor, _speech = _voiced(levels)
    frame = max(1, round(FRAME_S * sample_rate))
    span = max(1, int(seconds / FRAME_S))
    if levels.size <= span:
        return 0.0, total
    base = floor if floor is not None else -120.0
    loudness = np.clip((levels - base) / 60.0, 0.0, 1.0)  # 0..1, a tie-break under voicing
    clipped = np.abs(x[: levels.size * frame]).reshape(levels.size, frame).max(axis=1) >= CLIP_LEVEL
    score = voiced.astype(np.float64) + 0.1 * loudness - 2.0 * clipped
    sums = np.convolve(score, np.ones(span), mode="valid")
    # Of the windows as good as the best, the middle one: speech shorter than the window
    # sits in its middle, with room to both sides.
    best = np.flatnonzero(sums >= sums.max() - 0.5)  # within half a voiced frame
    start = int(best[best.size // 2])
    end = start + span
    snap = int(SNAP_S / FRAME_S)
    start += _outermost_pause(levels[start:start + snap], voiced[start:start + snap])
    tail = slice(max(start + 1, end - snap), end)
    if levels[tail].size:
        end -= _outermost_pause(levels[tail][::-1], voiced[tail][::-1])
    return round(start * FRAME_S, 3), round(min(total, end * FRAME_S), 3)


def _outermost_pause(levels: np.ndarray, voiced: np.ndarray) -> int:
    """How far in (frames) an edge moves: to the first unvoiced frame, else the quietest."""
    pauses = np.flatnonzero(~voiced)
    return int(pauses[0]) if pauses.size else int(np.argmin(levels))
