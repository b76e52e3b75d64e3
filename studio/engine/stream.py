"""Joining chunk audio as it arrives, so a render can be heard while it goes on.

The reference post-processes the whole text at once: silence trimmed over the joined
audio, a design voice normalised by the peak of all of it, fades on both ends. None of
that can be known before the last chunk. A :class:`Joiner` does the same steps one
chunk at a time, and the non-streamed quick-start render is built by the same Joiner,
so the streamed pieces joined equal it sample for sample:

* silence is trimmed within each chunk (pauses over 0.5 s shortened, 0.1 s kept at the
  edges), where the reference trims across the joints as well;
* a design voice's gain comes from the first chunk's peak (to 0.5, as the reference's
  whole-text peak); a later, louder chunk is clipped at full scale rather than
  lowering what was already played;
* the joints fade and pause as the reference's (0.1 s out, 0.1 s silence, 0.1 s in),
  so the last 0.1 s of each chunk is held back until the next one arrives.

A text of one chunk goes through exactly the reference's steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.engine.audio import remove_silence

JOINT_S = 0.3  # fade out, silence, fade in: a third each (audio.cross_fade_chunks)


@dataclass(frozen=True)
class StreamChunk:
    """Finished audio of one chunk of one item, handed over as soon as it is decoded."""

    item: int  # which item of the batch (a take)
    index: int  # chunk index, 0-based
    chunks: int  # how many chunks this item has
    audio: np.ndarray  # (T,) float32: the samples now final, in order
    start: int  # where ``audio`` starts in the finished take, in samples
    sample_rate: int

    @property
    def total(self) -> int:
        """Samples handed over so far, this chunk's included."""
        return self.start + self.audio.shape[-1]

    @property
    def last(self) -> bool:
        return self.index == self.chunks - 1


def _ramp(n: int, up: bool) -> np.ndarray:
    return np.linspace(0, 1, n, dtype=np.float32) if up else np.linspace(1, 0, n, dtype=np.float32)


class Joiner:
    """One item's chunks in, its final samples out, in order.

    ``ref_rms`` is the clone prompt's level (None for a design voice); ``chunks`` how
    many will come, so the last one gets the closing fade and padding.
    """

    def __init__(self, sample_rate: int, chunks: int, ref_rms: float | None, *,
                 postprocess: bool = True, pad_s: float = 0.1, fade_s: float = 0.1,
                 lead_s: float = 0.0):
        if chunks < 1:
            raise ValueError("a Joiner needs at least one chunk")
        self.sample_rate, self.chunks, self.ref_rms = sample_rate, chunks, ref_rms
        self.postprocess = postprocess
        self.pad = int(pad_s * sample_rate)
        self.fade = int(fade_s * sample_rate)
        self.third = int(JOINT_S * sample_rate) // 3
        self.lead = round(lead_s * sample_rate)  # a pause tag before the first words
        self._pause = 0  # samples of silence the last chunk asked for after it (pause tag)
        self.count = 0  # chunks added
        self.emitted = 0  # samples handed out
        self._gain: float | None = None
        self._held = np.zeros(0, np.float32)  # the tail the next joint fades out
        self._parts: list[np.ndarray] = []

    def add(self, piece: np.ndarray, pause_after: float = 0.0) -> np.ndarray:
        """Add the next chunk's decoded audio; returns the samples that are now final.

        ``pause_after`` (seconds, from a pause tag) replaces the joint's short silence
        after this chunk with exactly that much (or, after the last, adds it at the end).
        """
        if self.count >= self.chunks:
            raise ValueError("more chunks than announced")
        wave = self._level(self._trim(np.asarray(piece, np.float32).reshape(-1)))
        first, last = self.count == 0, self.count == self.chunks - 1
        self.count += 1
        fade = min(self.fade, wave.size // 2)
        if first and fade:
            wave[:fade] *= _ramp(fade, up=True)
        if last and fade:
            wave[-fade:] *= _ramp(fade, up=False)
        pause = round(pause_after * self.sample_rate)
        if first:
            lead = [np.zeros(self.pad + self.lead, np.float32)]
        else:
            n_out, n_in = min(self.third, self._held.size), min(self.third, wave.size)
            held = self._held.copy()
            if n_out:
                held[-n_out:] *= _ramp(n_out, up=False)
            if n_in:
                wave[:n_in] *= _ramp(n_in, up=True)
            lead = [held, np.zeros(self._pause or self.third, np.float32)]
        self._pause = pause
        merged = np.concatenate(lead + [wave])
        if last:
            out = np.concatenate([merged, np.zeros(pause + self.pad, np.float32)])
            self._held = np.zeros(0, np.float32)
        else:
            # The next joint fades out the last third of everything joined so far (the
            # padding excepted), which may reach back past a chunk shorter than a third.
            keep = min(self.third, wave.size) if first else self.third
            out, self._held = merged[: merged.size - keep], merged[merged.size - keep:]
        out = np.ascontiguousarray(out, dtype=np.float32)
        self._parts.append(out)
        self.emitted += out.size
        return out

    def audio(self) -> np.ndarray:
        """Everything handed out so far, joined (the take, once the last chunk is in)."""
        if not self._parts:
            return np.zeros(0, np.float32)
        return np.concatenate(self._parts)

    def _trim(self, wave: np.ndarray) -> np.ndarray:
        if not self.postprocess:
            return wave.copy()
        trimmed = remove_silence(wave, self.sample_rate, 500, 100, 100).reshape(-1)
        # An all-silent chunk keeps its length (take checks flag silent takes).
        return trimmed if trimmed.size else wave.copy()

    def _level(self, wave: np.ndarray) -> np.ndarray:
        rms = self.ref_rms
        if rms is not None:
            # A quiet reference was raised to 0.1 to encode; give the voice its level back.
            return wave * np.float32(rms / 0.1) if rms < 0.1 else wave
        if self._gain is None:
            peak = float(np.abs(wave).max()) if wave.size else 0.0
            self._gain = 0.5 / peak if peak > 1e-6 else 1.0
        out = wave * np.float32(self._gain)
        if self.count:  # chunk 0 peaks at 0.5; a louder later chunk is clipped, not rescaled
            np.clip(out, -1.0, 1.0, out=out)
        return out
