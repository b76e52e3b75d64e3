"""Integrated loudness (ITU-R BS.1770-4, mono) and the gains that level two takes.

numpy only (no torch, no scipy), so the GUI thread can call it. The K-weighting
is two biquads: a high shelf (the head's acoustic effect, about +4 dB above
1.5 kHz) and a high pass near 38 Hz. Their coefficients come from the analogue
prototypes through the bilinear transform, so any sample rate works; at 48 kHz
they equal the table in BS.1770.

The cascade is applied as a convolution with its impulse response, truncated
where it has decayed to 1e-14 of its start (the slowest pole decides
how long that is): an FFT convolution is vectorised, and the truncation error
is far below the 24-bit quantisation of a stored take.
"""

from __future__ import annotations

import math

import numpy as np

BLOCK_S = 0.4  # gating block length
STEP_S = 0.1  # 75 % overlap between blocks
ABSOLUTE_GATE_LUFS = -70.0
RELATIVE_GATE_LU = -10.0
_OFFSET = -0.691  # makes a 997 Hz full-scale sine read -3.01 LUFS
_IR_TAIL = 1e-14

# Analogue prototypes of the K-weighting (the values behind BS.1770's 48 kHz table).
_SHELF_HZ, _SHELF_GAIN_DB, _SHELF_Q = 1681.974450955533, 3.999843853973347, 0.7071752369554196
_SHELF_VB_EXP = 0.4996667741545416
_HIGHPASS_HZ, _HIGHPASS_Q = 38.13547087602444, 0.5003270373238773


def k_weighting(sample_rate: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The two biquads ``(b, a)`` (with ``a[0] == 1``) of the K-weighting at ``sample_rate``."""
    k = math.tan(math.pi * _SHELF_HZ / sample_rate)
    vh = 10.0 ** (_SHELF_GAIN_DB / 20.0)
    vb = vh**_SHELF_VB_EXP
    a0 = 1.0 + k / _SHELF_Q + k * k
    shelf_b = np.array(
        [vh + vb * k / _SHELF_Q + k * k, 2.0 * (k * k - vh), vh - vb * k / _SHELF_Q + k * k]
    ) / a0
    shelf_a = np.array([a0, 2.0 * (k * k - 1.0), 1.0 - k / _SHELF_Q + k * k]) / a0

    k = math.tan(math.pi * _HIGHPASS_HZ / sample_rate)
    a0 = 1.0 + k / _HIGHPASS_Q + k * k
    high_b = np.array([1.0, -2.0, 1.0])
    high_a = np.array([a0, 2.0 * (k * k - 1.0), 1.0 - k / _HIGHPASS_Q + k * k]) / a0
    return [(shelf_b, shelf_a), (high_b, high_a)]


def _impulse_response(sections: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    radius = max(float(np.abs(np.roots(a)).max()) for _, a in sections)
    length = int(math.log(_IR_TAIL) / math.log(radius)) + 3 if radius > 0 else 3
    signal = np.zeros(length)
    signal[0] = 1.0
    for b, a in sections:
        signal = _biquad(b, a, signal)
    return signal


def _biquad(b: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Direct form I over a short signal (only the impulse response goes through here)."""
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    b0, b1, b2 = (float(v) for v in b)
    _, a1, a2 = (float(v) for v in a)
    for n, xn in enumerate(x.tolist()):
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        y[n] = yn
        x2, x1, y2, y1 = x1, xn, y1, yn
    return y


def _to_lufs(mean_square: np.ndarray | float) -> np.ndarray | float:
    with np.errstate(divide="ignore"):
        return _OFFSET + 10.0 * np.log10(mean_square)


def loudness_lufs(audio: np.ndarray, sample_rate: int) -> float | None:
    """Gated integrated loudness of a mono signal in LUFS, or None for silence.

    A signal shorter than one 400 ms block is measured as one block.
    None means no block reaches the absolute gate (-70 LUFS).
    """
    meter = LoudnessMeter(sample_rate)
    meter.add(audio)
    return meter.lufs()


class LoudnessMeter:
    """:func:`loudness_lufs` of a signal fed piece by piece (:meth:`add`, :meth:`add_silence`),
    in memory that does not grow with its length: the K-weighting is an overlap-add
    convolution carrying its tail from piece to piece, and only the energy at each gating
    block's edges is kept (two floats per 100 ms). Silence after the filter's tail costs
    no arithmetic, so a long timeline of short lines is measured at the speed of its lines.
    """

    def __init__(self, sample_rate: int):
        if sample_rate <= 0:
            raise ValueError(f"sample rate must be positive, got {sample_rate}")
        self._h = _impulse_response(k_weighting(sample_rate))
        self._tail = np.zeros(self._h.size - 1)
        self._live = False  # the tail holds something other than zeros
        self._block, self._step = round(BLOCK_S * sample_rate), round(STEP_S * sample_rate)
        self._length = 0
        self._energy = 0.0  # sum of the filtered signal's squares so far
        self._starts: list[float] = []  # energy at each block start (k * step) passed
        self._ends: list[float] = []  # energy at each block end (k * step + block) passed

    def add(self, audio: np.ndarray) -> None:
        x = np.nan_to_num(np.asarray(audio, dtype=np.float64).reshape(-1))
        if x.size == 0:
            return
        size = x.size + self._h.size - 1
        nfft = 1 << (size - 1).bit_length()
        full = np.fft.irfft(np.fft.rfft(x, nfft) * np.fft.rfft(self._h, nfft), nfft)[:size]
        full[: self._tail.size] += self._tail
        self._tail = full[x.size:].copy()
        self._live = True
        y = full[: x.size]
        self._advance(x.size, np.concatenate(([0.0], np.cumsum(y * y))))

    def add_silence(self, frames: int) -> None:
        if frames <= 0:
            return
        if self._live:  # the filter still rings: feed real zeros until it has decayed
            ringing = min(frames, self._tail.size)
            self.add(np.zeros(ringing))
            frames -= ringing
            if ringing == self._tail.size:
                self._live = False
        self._advance(frames, None)

    def lufs(self) -> float | None:
        if self._length == 0:
            return None
        if self._length < self._block:
            z = np.array([self._energy / self._length])
        else:
            blocks = (self._length - self._block) // self._step + 1
            z = (np.array(self._ends[:blocks]) - np.array(self._starts[:blocks])) / self._block
        z = z[_to_lufs(z) > ABSOLUTE_GATE_LUFS]
        if z.size == 0:
            return None
        relative = _to_lufs(float(z.mean())) + RELATIVE_GATE_LU
        z = z[_to_lufs(z) > relative]
        return float(_to_lufs(float(z.mean())))

    def _advance(self, frames: int, energy: np.ndarray | None) -> None:
        """Record the energy at every block edge in the next ``frames`` samples;
        ``energy[i]`` is what the filtered samples from here to ``i`` add (None: silence)."""
        start, end = self._length, self._length + frames
        for marks, offset in ((self._starts, 0), (self._ends, self._block)):
            # edges k * step + offset in [start, end], not recorded yet
            first = len(marks) * self._step + offset
            if first > end:
                continue
            edges = np.arange(first, end + 1, self._step)
            if energy is None:
                marks.extend([self._energy] * edges.size)
            else:
                marks.extend((self._energy + energy[edges - start]).tolist())
        self._energy += 0.0 if energy is None else float(energy[-1])
        self._length = end


def gain_db(gain: float) -> float:
    return 20.0 * math.log10(gain)


def match_gains(lufs_a: float | None, lufs_b: float | None) -> tuple[float, float]:
    """Linear gains that bring both takes to the quieter one's loudness.

    The louder take is turned down (never up, so nothing can clip); a silent or
    unmeasured take (None) leaves both as they are.
    """
    if lufs_a is None or lufs_b is None or not (math.isfinite(lufs_a) and math.isfinite(lufs_b)):
        return 1.0, 1.0
    target = min(lufs_a, lufs_b)
    return 10.0 ** ((target - lufs_a) / 20.0), 10.0 ** ((target - lufs_b) / 20.0)
