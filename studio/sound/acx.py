"""The ACX (Audible) submission check of one chapter, and the gain that fixes it where a
gain can.

ACX asks each chapter file for: RMS between -23 and -18 dB, sample peaks at or below
-3 dB, a noise floor at or below -60 dB, and room tone (silence) of 0.5 to 1 s at its
head and tail. RMS is taken over the whole file, unweighted, as ACX's own checker does;
the noise floor is the quietest half second (its RMS), which in speech is a pause.

Only loudness is fixed by a gain. A chapter too quiet to reach -23 dB RMS without its
peaks going over -3 dB needs a limiter, and a noise floor that the gain lifts over -60 dB
needs noise reduction: neither is a gain change, and the sentences say so. numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

RMS_RANGE_DB = (-23.0, -18.0)
RMS_TARGET_DB = -20.5  # the middle of the range: the gain (and an audiobook's normalising) aims here
PEAK_MAX_DB = -3.0
PEAK_MARGIN_DB = 0.1  # a fixed peak lands this far under the limit (rounding of encoders)
NOISE_MAX_DB = -60.0
ROOM_TONE_S = (0.5, 1.0)  # silence at the head and at the tail
SILENT_DB = -50.0  # a 10 ms frame this quiet counts as room tone, not speech
FRAME_S = 0.01
NOISE_WINDOW_S = 0.5


def db(value: float) -> float:
    return 20 * math.log10(value) if value > 0 else float("-inf")


@dataclass(frozen=True)
class AcxReport:
    """One chapter measured: its numbers, what fails (one sentence each) and the gain in
    dB that would fix its loudness (None: none is needed, or none can)."""

    title: str
    rms_db: float
    peak_db: float
    noise_db: float
    head_s: float
    tail_s: float
    problems: list[str] = field(default_factory=list)
    fix_gain_db: float | None = None

    @property
    def passed(self) -> bool:
        return not self.problems

    def sentence(self) -> str:
        """One sentence for the chapter: what fails and the fix where it is a gain."""
        if self.passed:
            return f"{self.title}: passes ACX."
        said = f"{self.title}: {'; '.join(self.problems)}"
        if self.fix_gain_db is not None:
            said += f"; a gain of {self.fix_gain_db:+.1f} dB fixes its loudness"
        return said + "."

    def as_dict(self) -> dict:
        def num(x: float) -> float | None:
            return round(x, 2) if math.isfinite(x) else None

        return {"title": self.title, "passed": self.passed, "rms_db": num(self.rms_db),
                "peak_db": num(self.peak_db), "noise_db": num(self.noise_db),
                "head_s": round(self.head_s, 3), "tail_s": round(self.tail_s, 3),
                "problems": list(self.problems), "fix_gain_db": self.fix_gain_db,
                "sentence": self.sentence()}


def _frame_db(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """The RMS in dB of each 10 ms frame."""
    size = max(1, round(FRAME_S * sample_rate))
    frames = audio[: audio.size // size * size].reshape(-1, size).astype(np.float64)
    power = np.mean(frames * frames, axis=1)
    with np.errstate(divide="ignore"):
        return 10 * np.log10(power)


def _noise_db(audio: np.ndarray, sample_rate: int) -> float:
    """The RMS of the quietest half second (the whole clip when it is shorter)."""
    size = max(1, round(NOISE_WINDOW_S * sample_rate))
    squares = audio.astype(np.float64) ** 2
    if squares.size <= size:
        return db(math.sqrt(float(squares.mean()))) if squares.size else float("-inf")
    sums = np.cumsum(np.concatenate([[0.0], squares]))
    least = float(np.min(sums[size:] - sums[:-size])) / size
    return db(math.sqrt(max(least, 0.0)))


def check_chapter(audio: np.ndarray, sample_rate: int, title: str = "The chapter"
                  ) -> AcxReport:
    """``audio`` (mono float, full scale 1.0) against ACX's rules."""
    audio = np.asarray(audio, np.float32).reshape(-1)
    if audio.size == 0:
        return AcxReport(title, float("-inf"), float("-inf"), float("-inf"), 0.0, 0.0,
                         ["it is empty"])
    rms = db(math.sqrt(float(np.mean(audio.astype(np.float64) ** 2))))
    peak = db(float(np.abs(audio).max()))
    noise = _noise_db(audio, sample_rate)
    loud = np.nonzero(_frame_db(audio, sample_rate) > SILENT_DB)[0]
    frames = audio.size / sample_rate / FRAME_S
    head = float(loud[0] if loud.size else frames) * FRAME_S
    tail = float(frames - loud[-1] - 1 if loud.size else frames) * FRAME_S
    problems = []
    low, high = RMS_RANGE_DB
    if not low <= rms <= high:
        problems.append(f"its RMS is {rms:.1f} dB, outside {low:g} to {high:g} dB")
    if peak > PEAK_MAX_DB:
        problems.append(f"its peak is {peak:.1f} dB, over {PEAK_MAX_DB:g} dB")
    if noise > NOISE_MAX_DB:
        problems.append(f"its noise floor is {noise:.1f} dB, over {NOISE_MAX_DB:g} dB "
                        "(noise reduction, not a gain, fixes that)")
    for where, seconds in (("head", head), ("tail", tail)):
        if not ROOM_TONE_S[0] <= seconds <= ROOM_TONE_S[1] + FRAME_S:
            problems.append(f"its {where} has {seconds:.2f} s of room tone, not "
                            f"{ROOM_TONE_S[0]:g} to {ROOM_TONE_S[1]:g} s (export it again "
                            "as an audiobook, which pads it)")
    fix = _fix_gain(rms, peak, noise, problems)
    return AcxReport(title, rms, peak, noise, head, tail, problems, fix)


def _fix_gain(rms: float, peak: float, noise: float, problems: list[str]) -> float | None:
    """The gain (dB) that brings RMS and peak within the rules, or None (with a sentence
    added when loudness fails and no gain can fix it)."""
    low, high = RMS_RANGE_DB
    if not math.isfinite(rms):
        return None
    if low <= rms <= high and peak <= PEAK_MAX_DB:
        return None
    gain = RMS_TARGET_DB - rms
    gain = min(gain, PEAK_MAX_DB - PEAK_MARGIN_DB - peak)  # the peak decides the most
    if rms + gain < low:
        problems.append("it is too quiet to reach -23 dB RMS with its peaks under -3 dB, "
                        "which needs a peak limiter, not a gain change")
        return None
    if noise + gain > NOISE_MAX_DB and noise <= NOISE_MAX_DB:
        problems.append("the gain it needs lifts its noise floor over -60 dB, which needs "
                        "noise reduction, not a gain change")
        return None
    return round(gain, 2)


def normalising_gain(audio: np.ndarray, sample_rate: int) -> float:
    """The gain (dB) that puts ``audio``'s RMS at RMS_TARGET_DB (the middle of ACX's
    window), less where its peak would pass the limit or a noise floor under -60 dB
    would rise over it; 0.0 for silence."""
    audio = np.asarray(audio, np.float32).reshape(-1)
    rms = db(math.sqrt(float(np.mean(audio.astype(np.float64) ** 2)))) if audio.size else 0.0
    if not math.isfinite(rms) or not audio.size:
        return 0.0
    gain = min(RMS_TARGET_DB - rms,
               PEAK_MAX_DB - PEAK_MARGIN_DB - db(float(np.abs(audio).max())))
    noise = _noise_db(audio, sample_rate)
    if noise <= NOISE_MAX_DB:
        gain = min(gain, NOISE_MAX_DB - noise)
    return round(gain, 2)


def apply_gain(audio: np.ndarray, gain_db: float) -> np.ndarray:
    """``audio`` made ``gain_db`` louder (float32)."""
    return (np.asarray(audio, np.float32) * np.float32(10 ** (gain_db / 20))).astype(np.float32)
