"""The clean-up steps applied to reference clips and generated speech: mono, resampling,
silence removal and trimming, fades and cross-fades. Files are read and written by
:mod:`studio.sound.files`.

Arrays are float32 and channels-first, ``(C, T)``; 1-D input is taken as one channel.

The silence tools reproduce what the reference gets from pydub, sample for sample,
without pydub: pydub measures time in whole milliseconds and loudness as the
integer RMS of 16-bit samples, and those roundings decide where cuts fall. So we
quantise to int16 the same way, turn milliseconds into frame indices the same way,
and compute every window's RMS at once from a cumulative sum of squares.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass

import numpy as np

from studio.sound.files import as_channels, read_audio

_FULL_SCALE = 32768.0  # int16 full scale, as pydub's max_possible_amplitude


def to_mono(wave: np.ndarray) -> np.ndarray:
    """Average the channels into ``(1, T)``."""
    wave = as_channels(wave)
    if wave.shape[0] == 1:
        return wave
    return np.mean(wave, axis=0, keepdims=True)


# torchaudio's sinc resampler builds one filter per output phase: new/gcd phases of
# about orig/gcd taps each. Common rates reduce to small kernels (44.1 -> 24 kHz: 80 x 171);
# an odd rate does not (24,001 -> 24,000 Hz: 24,000 x 24,013 floats, 2.3 GB), so past this
# many kernel values the same filter is evaluated per output sample instead.
_KERNEL_LIMIT = 1 << 20
_LOWPASS_WIDTH = 6  # torchaudio's defaults: zero crossings each side, and the rolloff
_ROLLOFF = 0.99
_BLOCK_VALUES = 1 << 18  # outputs x taps evaluated at once by the direct path


def resample(wave: np.ndarray, sample_rate: int, target_sr: int) -> np.ndarray:
    """Resample with torchaudio's windowed-sinc filter; keeps the input's rank.

    Time and memory grow with the clip's length only, never with how odd the rates
    are: ratios whose polyphase kernel would be large take :func:`_resample_direct`,
    the same filter evaluated output by output.
    """
    wave = np.asarray(wave, dtype=np.float32)
    sample_rate, target_sr = int(sample_rate), int(target_sr)
    if sample_rate == target_sr:
        return wave
    g = math.gcd(sample_rate, target_sr)
    orig, new = sample_rate // g, target_sr // g
    width = math.ceil(_LOWPASS_WIDTH * orig / (min(orig, new) * _ROLLOFF))
    if new * (2 * width + orig) > _KERNEL_LIMIT:
        return _resample_direct(wave, sample_rate, target_sr)
    import torch  # here, not at import: the studio reads clips long before it needs torch
    import torchaudio

    tensor = torch.from_numpy(np.ascontiguousarray(wave))
    out = torchaudio.functional.resample(tensor, orig_freq=sample_rate, new_freq=target_sr)
    return out.numpy()


def _resample_direct(wave: np.ndarray, sample_rate: int, target_sr: int) -> np.ndarray:
    """torchaudio's Hann-windowed sinc resampling, computed per output sample.

    Output ``m`` sits at input position ``c = m * orig / new``; it sums the input
    samples within ``width`` of ``c``, weighted by the same windowed sinc torchaudio
    puts in its kernels (equal to float32 rounding). Work is outputs x (2 width + 2)
    taps, done in blocks so memory stays a few MB whatever the rates.
    """
    g = math.gcd(sample_rate, target_sr)
    orig, new = sample_rate // g, target_sr // g
    base = min(orig, new) * _ROLLOFF
    width = math.ceil(_LOWPASS_WIDTH * orig / base)
    scale = base / orig  # input samples -> filter time, and the filter's gain
    length = wave.shape[-1]
    flat = np.ascontiguousarray(wave.reshape(-1, length))
    out_len = -(-new * length // orig)
    padded = np.pad(flat, ((0, 0), (width + 1, width + 2)))
    taps = np.arange(-width, width + 2)
    out = np.empty((flat.shape[0], out_len), dtype=np.float32)
    block = max(1, _BLOCK_VALUES // taps.size)
    for start in range(0, out_len, block):
        m = np.arange(start, min(out_len, start + block), dtype=np.int64)
        whole, part = np.divmod(m * orig, new)  # exact: c = whole + part / new
        t = (taps[None, :] - (part / new)[:, None]) * scale
        np.clip(t, -_LOWPASS_WIDTH, _LOWPASS_WIDTH, out=t)
        kernel = np.cos(t * (math.pi / _LOWPASS_WIDTH / 2)) ** 2 * scale
        t *= math.pi
        zero = t == 0
        kernel *= np.where(zero, 1.0, np.sin(t) / np.where(zero, 1.0, t))
        picked = padded[:, whole[:, None] + taps[None, :] + width + 1]
        out[:, start:start + m.size] = np.einsum("cbk,bk->cb", picked,
                                                 kernel.astype(np.float32))
    return out.reshape(wave.shape[:-1] + (out_len,))


def load_reference(path: str | os.PathLike, target_sr: int) -> np.ndarray:
    """Read a reference clip as mono ``(1, T)`` at ``target_sr``: average first, then resample."""
    wave, sample_rate = read_audio(path)
    return resample(to_mono(wave), sample_rate, target_sr)


# ---------------------------------------------------------------------------
# pydub's arithmetic, vectorised
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pcm:
    """int16 samples ``(C, N)`` plus the cumulative per-frame sum of squares."""

    samples: np.ndarray
    sample_rate: int
    cumsq: np.ndarray  # (N + 1,) int64, exact: squares of int16 never lose bits

    @classmethod
    def of(cls, samples: np.ndarray, sample_rate: int) -> _Pcm:
        squares = np.square(samples.astype(np.int64)).sum(axis=0)
        cumsq = np.zeros(samples.shape[1] + 1, dtype=np.int64)
        np.cumsum(squares, out=cumsq[1:])
        return cls(samples, sample_rate, cumsq)

    @property
    def frames(self) -> int:
        return self.samples.shape[1]

    @property
    def length_ms(self) -> int:
        # pydub's len(): duration in ms, rounded half to even by Python's round().
        return round(1000 * (float(self.frames) / self.sample_rate))

    def frame_at(self, ms: np.ndarray | int) -> np.ndarray:
        # pydub's ms -> frame conversion: multiply by the float rate per ms, truncate.
        return (np.asarray(ms, dtype=np.float64) * (self.sample_rate / 1000.0)).astype(np.int64)

    def window_bounds(self, start_ms: np.ndarray, end_ms: np.ndarray) -> tuple[np.ndarray, ...]:
        """Frame bounds of pydub slices ``[start_ms:end_ms]`` (both already >= 0).

        Returns (first, stop, real_stop): the slice holds frames first..real_stop
        followed by stop - real_stop zero frames, because pydub pads a slice that
        runs past the data (from its ms rounding) with silence. A slice that starts
        at or past the data, or is reversed, is empty.
        """
        length = self.length_ms
        first = self.frame_at(np.minimum(start_ms, length))
        stop = self.frame_at(np.minimum(end_ms, length))
        empty = (first >= stop) | (first >= self.frames)
        first = np.where(empty, 0, first)
        stop = np.where(empty, 0, stop)
        return first, stop, np.minimum(stop, self.frames)

    def rms(self, start_ms: np.ndarray, end_ms: np.ndarray) -> np.ndarray:
        """audioop.rms of each slice: truncated sqrt of the mean square over all samples.

        The padded zero frames count in the mean, exactly as they do in pydub.
        """
        first, stop, real_stop = self.window_bounds(start_ms, end_ms)
        sums = (self.cumsq[real_stop] - self.cumsq[first]).astype(np.float64)
        count = (stop - first) * self.samples.shape[0]
        return np.where(count > 0, np.floor(np.sqrt(sums / np.maximum(count, 1))), 0.0)

    def slice(self, start_ms: int, end_ms: int) -> np.ndarray:
        """The int16 samples of pydub's ``segment[start_ms:end_ms]``."""
        first, stop, real_stop = (
            int(b) for b in self.window_bounds(np.array(start_ms), np.array(end_ms))
        )
        body = self.samples[:, first:real_stop]
        if stop == real_stop:
            return body
        pad = np.zeros((self.samples.shape[0], stop - real_stop), dtype=np.int16)
        return np.concatenate([body, pad], axis=1)


def _quantise(audio: np.ndarray) -> np.ndarray:
    """float32 -> int16 as the reference feeds pydub: scale, clip, truncate toward zero."""
    return (audio * np.float32(_FULL_SCALE)).clip(-32768, 32767).astype(np.int16)


def _dequantise(samples: np.ndarray) -> np.ndarray:
    return samples.astype(np.float32) / np.float32(_FULL_SCALE)


def _rms_floor_for_db(threshold_db: float) -> int:
    """Smallest integer RMS whose dBFS is not below ``threshold_db``.

    pydub tests ``20 * log(rms / 32768, 10) < threshold``; comparing integer RMS to a
    precomputed bound gives the same answers without any per-window logarithms.
    """

    def quiet(rms: int) -> bool:
        # log(x, 10) rather than log10: pydub's exact rounding decides borderline windows.
        return rms == 0 or 20 * math.log(rms / _FULL_SCALE, 10) < threshold_db

    bound = max(1, math.ceil(_FULL_SCALE * 10 ** (threshold_db / 20)))
    # A louder-than-full-scale threshold makes everything quiet; 32769 exceeds any int16 RMS.
    bound = min(bound, 32769)
    while bound > 1 and not quiet(bound - 1):
        bound -= 1
    while bound <= 32768 and quiet(bound):
        bound += 1
    return bound


def _leading_silence_ms(pcm: _Pcm, threshold_db: float, chunk_ms: int = 10) -> int:
    """pydub's detect_leading_silence: start of the first chunk not below the threshold."""
    length = pcm.length_ms
    starts = np.arange(0, length, chunk_ms, dtype=np.int64)
    loud = pcm.rms(starts, np.minimum(starts + chunk_ms, length)) >= _rms_floor_for_db(threshold_db)
    hits = np.flatnonzero(loud)
    return int(starts[hits[0]]) if hits.size else length


def _silent_ranges(
    pcm: _Pcm, min_silence_ms: int, threshold_db: float, seek_ms: int
) -> list[list[int]]:
    """pydub's detect_silence: [start, end] ms ranges of windows at or below the threshold."""
    length = pcm.length_ms
    if length < min_silence_ms:
        return []
    last_start = length - min_silence_ms
    starts = np.arange(0, last_start + 1, seek_ms, dtype=np.int64)
    if last_start % seek_ms:
        # The stepped scan would miss the audio's tail; pydub adds one final window.
        starts = np.append(starts, last_start)
    limit = 10 ** (float(threshold_db) / 20) * _FULL_SCALE
    quiet = starts[pcm.rms(starts, starts + min_silence_ms) <= limit]
    if quiet.size == 0:
        return []
    # Quiet windows chain into one range unless the next one is both off the seek
    # grid and starts past the current window's end: overlapping quiet windows stay
    # joined even when a blip between them made the windows in between loud.
    gaps = np.diff(quiet)
    breaks = np.flatnonzero((gaps != seek_ms) & (gaps > min_silence_ms))
    firsts = np.concatenate([quiet[:1], quiet[breaks + 1]])
    lasts = np.concatenate([quiet[breaks], quiet[-1:]])
    return [[int(a), int(b) + min_silence_ms] for a, b in zip(firsts, lasts)]


def _nonsilent_ranges(
    pcm: _Pcm, min_silence_ms: int, threshold_db: float, seek_ms: int
) -> list[list[int]]:
    """pydub's detect_nonsilent: the complement of the silent ranges, in ms."""
    silent = _silent_ranges(pcm, min_silence_ms, threshold_db, seek_ms)
    length = pcm.length_ms
    if not silent:
        return [[0, length]]
    if silent[0] == [0, length]:
        return []
    edges = [0] + [b for pair in silent for b in pair] + [length]
    ranges = [[edges[i], edges[i + 1]] for i in range(0, len(edges) - 1, 2)]
    if silent[-1][1] == length:
        ranges.pop()
    if ranges[0] == [0, 0]:
        ranges.pop(0)
    return ranges


def _split_on_silence(
    pcm: _Pcm, min_silence_ms: int, threshold_db: float, keep_ms: int
) -> np.ndarray:
    """pydub's split_on_silence (seek 10 ms) with the pieces joined back together."""
    ranges = [
        [a - keep_ms, b + keep_ms]
        for a, b in _nonsilent_ranges(pcm, min_silence_ms, threshold_db, 10)
    ]
    # Where the kept margins of two neighbours overlap, they meet halfway instead.
    for left, right in itertools.pairwise(ranges):
        if right[0] < left[1]:
            left[1] = right[0] = (left[1] + right[0]) // 2
    length = pcm.length_ms
    pieces = [pcm.slice(max(a, 0), min(b, length)) for a, b in ranges]
    if not pieces:
        return pcm.samples[:, :0]
    return np.concatenate(pieces, axis=1)


def _trim_edges(
    samples: np.ndarray, sample_rate: int, lead_ms: int, trail_ms: int, threshold_db: float
) -> np.ndarray:
    """Cut edge silence down to ``lead_ms`` / ``trail_ms``, as the reference does with pydub.

    The tail is handled the way pydub does it, on the reversed audio, so its ms
    rounding (which can add zero frames or drop a few at the far end) matches too.
    """
    pcm = _Pcm.of(samples, sample_rate)
    start = max(0, _leading_silence_ms(pcm, threshold_db) - lead_ms)
    head_cut = pcm.slice(start, pcm.length_ms)

    reversed_pcm = _Pcm.of(head_cut[:, ::-1], sample_rate)
    start = max(0, _leading_silence_ms(reversed_pcm, threshold_db) - trail_ms)
    return reversed_pcm.slice(start, reversed_pcm.length_ms)[:, ::-1]


# ---------------------------------------------------------------------------
# Public processing steps
# ---------------------------------------------------------------------------


def remove_silence(
    audio: np.ndarray,
    sample_rate: int,
    mid_sil_ms: int = 300,
    lead_sil_ms: int = 100,
    trail_sil_ms: int = 300,
    threshold_db: float = -50.0,
) -> np.ndarray:
    """Shorten pauses longer than ``mid_sil_ms`` and trim the edges to the given margins.

    Same result as the reference's ``remove_silence``, including its int16 rounding
    of every sample. ``mid_sil_ms=0`` leaves inner pauses alone.

    Audio that is silent throughout comes back as an empty ``(C, 0)`` array when
    ``mid_sil_ms > 0`` (the reference returns an empty array as well, and its callers
    then crash); callers must handle that case. With ``mid_sil_ms=0`` only the edges
    are trimmed, so up to ``lead_sil_ms`` of silence remains, as in the reference.

    One deliberate difference: below 11025 Hz the reference's pydub joins the pieces
    into an 11025 Hz segment, silently resampling the audio while the caller keeps
    the old rate; here the sample rate is never changed.
    """
    audio = as_channels(audio)
    samples = _quantise(audio)
    if mid_sil_ms > 0:
        pcm = _Pcm.of(samples, sample_rate)
        samples = _split_on_silence(pcm, int(mid_sil_ms), threshold_db, int(mid_sil_ms))
    samples = _trim_edges(samples, sample_rate, int(lead_sil_ms), int(trail_sil_ms), threshold_db)
    return _dequantise(samples)


def trim_long_audio(
    audio: np.ndarray,
    sample_rate: int,
    max_s: float = 15.0,
    min_s: float = 3.0,
    threshold_s: float = 20.0,
) -> np.ndarray:
    """Cut a clip longer than ``threshold_s`` at a pause, keeping at most ``max_s`` seconds.

    The cut goes at the latest start of speech (after a pause of >= 100 ms below -40 dBFS)
    that lies within ``max_s``; if that would keep less than ``min_s``, it is a hard cut
    at ``max_s``. Short or all-silent clips are returned unchanged; a cut clip has been
    through int16 like the reference's.
    """
    audio = as_channels(audio)
    if audio.shape[-1] / sample_rate <= threshold_s:
        return audio
    pcm = _Pcm.of(_quantise(audio), sample_rate)
    speech = _nonsilent_ranges(pcm, 100, -40.0, 10)
    if not speech:
        return audio
    max_ms, min_ms = int(max_s * 1000), int(min_s * 1000)
    split = 0
    for start, end in speech:
        if split < start <= max_ms:
            split = start
        if end > max_ms:
            break
    if split < min_ms:
        split = min(max_ms, pcm.length_ms)
    return _dequantise(pcm.slice(0, split))


def fade_and_pad(
    audio: np.ndarray, sample_rate: int, pad_s: float = 0.1, fade_s: float = 0.1
) -> np.ndarray:
    """Fade both ends linearly over ``fade_s`` and add ``pad_s`` of silence on each side.

    The fades stop clicks at the cut points; a clip shorter than two fades gets half each.
    """
    audio = as_channels(audio)
    if audio.shape[-1] == 0:
        return audio
    out = audio.copy()
    fade = min(int(fade_s * sample_rate), out.shape[-1] // 2)
    if fade > 0:
        out[:, :fade] *= np.linspace(0, 1, fade, dtype=np.float32)
        out[:, -fade:] *= np.linspace(1, 0, fade, dtype=np.float32)
    pad = int(pad_s * sample_rate)
    if pad > 0:
        silence = np.zeros((out.shape[0], pad), dtype=np.float32)
        out = np.concatenate([silence, out, silence], axis=-1)
    return out


def cross_fade_chunks(
    chunks: list[np.ndarray], sample_rate: int, silence_s: float = 0.3
) -> np.ndarray:
    """Join chunks with a gap: each joint fades out, holds silence, then fades in.

    ``silence_s`` is split in thirds: fade-out, silence and fade-in each get one
    (the fades eat into the chunks, so the added length is one third).
    """
    if not chunks:
        raise ValueError("cross_fade_chunks needs at least one chunk")
    parts = [as_channels(chunk) for chunk in chunks]
    if len(parts) == 1:
        return parts[0]
    third = int(silence_s * sample_rate) // 3
    gap = np.zeros((parts[0].shape[0], third), dtype=np.float32)
    merged = parts[0].copy()
    for chunk in parts[1:]:
        # The running result fades out again at every joint, as in the reference.
        n_out = min(third, merged.shape[-1])
        if n_out > 0:
            merged[:, -n_out:] *= np.linspace(1, 0, n_out, dtype=np.float32)
        incoming = chunk.copy()
        n_in = min(third, incoming.shape[-1])
        if n_in > 0:
            incoming[:, :n_in] *= np.linspace(0, 1, n_in, dtype=np.float32)
        merged = np.concatenate([merged, gap, incoming], axis=-1)
    return merged
