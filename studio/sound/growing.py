"""A clip that grows while it renders, at a flat cost per piece (no Qt, no device).

Appending by concatenation copies the whole clip so far, so a streamed script of
thousands of pieces costs the square of its length. Here the samples live in a buffer
that doubles when full (each sample is copied O(1) times on average), and readers get a
read-only view of the filled part: what a view shows is never written again, so the
audio thread can keep reading an older view while the next piece is added.
"""

from __future__ import annotations

import math

import numpy as np

FIRST_CAPACITY = 1 << 16  # samples: under 3 s at 24 kHz before the first doubling


class GrowingWave:
    """float32 mono samples appended piece by piece; :meth:`view` is the filled part."""

    def __init__(self) -> None:
        self._data = np.zeros(0, dtype=np.float32)
        self.size = 0

    def extend(self, piece: np.ndarray) -> np.ndarray:
        """Add ``piece`` (float32, 1-D) and return the new view."""
        end = self.size + piece.size
        if end > self._data.size:
            grown = np.empty(max(FIRST_CAPACITY, 2 * self._data.size, end), dtype=np.float32)
            grown[: self.size] = self._data[: self.size]
            self._data = grown  # older views keep the old buffer alive, unchanged
        self._data[self.size:end] = piece
        self.size = end
        return self.view()

    def view(self) -> np.ndarray:
        filled = self._data[: self.size]
        filled.flags.writeable = False
        return filled


def resample_points(audio: np.ndarray, rate: int, target: int, start: int = 0,
                    final: bool = True) -> np.ndarray:
    """Points ``start:`` of ``audio`` resampled from ``rate`` to ``target`` by linear
    interpolation (float32).

    With ``final=False`` the audio is still growing: only the points that the samples
    still to come cannot change are given (a point past the last sample would be clamped
    to it, and the count rounds with the length). Resampling piece by piece this way and
    then once with ``final=True`` gives exactly the points of resampling the whole clip.
    """
    ratio = rate / target
    count = round(audio.size * target / rate)
    if not final:
        count = min(count, math.floor((audio.size - 1) * target / rate) + 1)
    if count <= start or audio.size == 0:
        return np.zeros(0, dtype=np.float32)
    points = np.arange(start, count, dtype=np.float64) * ratio
    first = int(points[0])  # only the samples these points fall between are read
    return np.interp(points, np.arange(first, audio.size), audio[first:]).astype(np.float32)
