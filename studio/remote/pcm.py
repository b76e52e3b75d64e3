"""A streamed answer's audio as it comes: 16-bit PCM in pieces of any size (a WAV
stream's header first), and the samples gathered under the bound the text allows, each
piece handed on as it arrives. The client reads raw streams and server-sent events into
these alike."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from studio.errors import UserError


class Samples:
    """A stream's 16-bit samples as they come: each handed on as float32, all kept as
    int16 (half the size), at most ``seconds`` of them at ``rate``."""

    def __init__(self, rate: int, seconds: float, too_much: Callable[[], UserError],
                 on_chunk: Callable[[np.ndarray, int], None] | None):
        self.rate, self._seconds, self._too_much, self._on_chunk = rate, seconds, too_much, on_chunk
        self._pieces: list[np.ndarray] = []
        self._count = 0

    def add(self, samples: np.ndarray) -> None:
        self._count += samples.size
        if self._count > self._seconds * self.rate:
            raise self._too_much()
        if samples.size:
            self._pieces.append(samples)
            if self._on_chunk is not None:
                self._on_chunk(samples.astype(np.float32) / 32768.0, self.rate)

    def audio(self) -> np.ndarray:
        audio = np.empty(self._count, np.float32)  # filled piece by piece: no second copy
        at = 0
        for piece in self._pieces:
            np.divide(piece, 32768.0, out=audio[at:at + piece.size], casting="unsafe")
            at += piece.size
        return audio


class PcmStream:
    """16-bit little-endian PCM in pieces of any size (a WAV stream's header first)."""

    def __init__(self, wav: bool):
        self._header = wav
        self._held = b""
        self.rate: int | None = None

    def feed(self, data: bytes) -> np.ndarray:
        """The whole int16 samples ``data`` completes."""
        self._held += data
        if self._header:
            if len(self._held) < 44:
                return np.zeros(0, np.int16)
            self.rate = int.from_bytes(self._held[24:28], "little")
            self._held, self._header = self._held[44:], False
        usable = len(self._held) - len(self._held) % 2
        samples = np.frombuffer(self._held[:usable], "<i2")
        self._held = self._held[usable:]
        return samples
