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


def k_weighted(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """``audio`` through the K-weighting filter (same length, float64)."""
    x = np.asarray(audio, dtype=np.float64).reshape(-1)
    if x.size == 0:
        return x
    h = _impulse_response(k_weighting(sample_rate))
    size = x.size + h.size - 1
    nfft = 1 << (size - 1).bit_length()
    y = np.fft.irfft(np.fft.rfft(x, nfft) * np.fft.rfft(h, nfft), nfft)
    return y[: x.size]


def _to_lufs(mean_square: np.ndarray | float) -> np.ndarray | float:
    with np.errstate(divide="ignore"):
        return _OFFSET + 10.0 * np.log10(mean_square)


def loudness_lufs(audio: np.ndarray, sample_rate: int) -> float | None:
    """Gated integrated loudness of a mono signal in LUFS, or None for silence.

    A signal shorter than one 400 ms block is measured as one block.
    None means no block reaches the absolute gate (-70 LUFS).
    """
    if sample_rate <= 0:
        raise ValueError(f"sample rate must be positive, got {sample_rate}")
    y = k_weighted(np.nan_to_num(np.asarray(audio, dtype=np.float64)), sample_rate)
    if y.size == 0:
        return None
    block, step = round(BLOCK_S * sample_rate), round(STEP_S * sample_rate)
    power = np.concatenate(([0.0], np.cumsum(y * y)))
    if y.size < block:
        z = np.array([power[-1] / y.size])
    else:
        starts = np.arange(0, y.size - block + 1, step)
        z = (power[starts + block] - power[starts]) / block
    z = z[_to_lufs(z) > ABSOLUTE_GATE_LUFS]
    if z.size == 0:
        return None
    relative = _to_lufs(float(z.mean())) + RELATIVE_GATE_LU
    z = z[_to_lufs(z) > relative]
    return float(_to_lufs(float(z.mean())))


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
