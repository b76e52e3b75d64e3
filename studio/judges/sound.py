"""Sound: DNSMOS P.835 (a no-reference MOS estimate) plus the suspect-take checks.

Our own onnxruntime runner over the ONNX file from the speechmos wheel: 16 kHz raw
samples, 9.01 s windows side by side (the last one ends at the clip's end; a shorter clip
is repeated to fill one), and the published P.835 quadratic mapping from the network's raw
outputs to MOS. Windows side by side, not hopped by 1 s as the published script does:
each window costs 0.2-0.4 CPU s, and a 60 s take takes 7 windows instead of 52, a 7 s one
(repeated to 14 s and hopped before) 1 instead of 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.engine.audio import resample
from studio.judges.assets import dnsmos_model
from studio.judges.onnx import one_thread_session
from studio.judges.scores import BAD, OK, WARN, Judgement, verdict_for
from studio.library.suspect import CLIPPED, NEAR_SILENT, inspect

RATE = 16000
WINDOW = int(9.01 * RATE)  # the network's fixed input length
# Quadratic calibration (highest power first) of the non-personalised P.835 model.
_SIG = (-0.08397278, 1.22083953, 0.0052439)
_BAK = (-0.13166888, 1.60915514, -0.39604546)
_OVRL = (-0.06766283, 1.11546468, 0.04602535)

OVRL_OK = 2.6  # clean espeak speech scores 2.7-3.2; with +20 dB white noise 2.4-2.5
OVRL_WARN = 2.0  # +5 dB white noise 1.9; noise alone 1.1
HARD_FAILS = (NEAR_SILENT, CLIPPED)  # these make a take bad whatever the MOS says


@dataclass(frozen=True)
class Mos:
    ovrl: float
    sig: float
    bak: float


class Dnsmos:
    """One onnxruntime session (a single intra-op thread: it must not fight torch)."""

    def __init__(self):
        self._session = one_thread_session(dnsmos_model())
        self._input = self._session.get_inputs()[0].name

    def __call__(self, audio: np.ndarray, sample_rate: int) -> Mos:
        x = np.clip(resample(np.asarray(audio, np.float32).reshape(-1), sample_rate, RATE),
                    -1.0, 1.0)
        if x.size == 0:
            x = np.zeros(WINDOW, np.float32)
        if x.size < WINDOW:
            x = np.tile(x, -(-WINDOW // x.size))[:WINDOW]
        starts = [*range(0, x.size - WINDOW + 1, WINDOW)]
        if starts[-1] + WINDOW < x.size:
            starts.append(x.size - WINDOW)
        batch = np.stack([x[s:s + WINDOW] for s in starts]).astype(np.float32)
        raw = self._session.run(None, {self._input: batch})[0].mean(axis=0)
        sig, bak, ovrl = (float(np.polyval(p, v)) for p, v in zip((_SIG, _BAK, _OVRL), raw))
        return Mos(ovrl=ovrl, sig=sig, bak=bak)


def judge_sound(audio: np.ndarray, sample_rate: int, dnsmos: Dnsmos) -> Judgement:
    """DNSMOS overall quality folded with the silent / clipped / loudness badges."""
    badges = inspect(audio, sample_rate)
    mos = dnsmos(audio, sample_rate)
    score = min(1.0, max(0.0, (mos.ovrl - 1.0) / 4.0))
    verdict = verdict_for(mos.ovrl, OVRL_OK, OVRL_WARN)
    if any(b in HARD_FAILS for b in badges):
        verdict, score = BAD, 0.0
    elif badges and verdict == OK:
        verdict = WARN
    line = f"Quality {mos.ovrl:.1f} of 5 (speech {mos.sig:.1f}, background {mos.bak:.1f})"
    line += f"; {', '.join(b.replace('-', ' ') for b in badges)}." if badges else "."
    return Judgement("sound", score, verdict, line,
                     {"ovrl": round(mos.ovrl, 3), "sig": round(mos.sig, 3),
                      "bak": round(mos.bak, 3), "badges": list(badges)})
