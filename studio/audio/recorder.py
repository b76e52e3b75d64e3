"""The recorder: a reference clip from a microphone, with a level meter.

The input callback runs on PortAudio's thread and only copies each block into a
buffer allocated before the stream starts, then advances an integer count: no
allocation, no locks, no Qt. The buffer holds at most :data:`MAX_SECONDS` (60 s, far
more than a voice reference needs, whose useful length is 3-10 s); when it is full
the callback drops what follows, and the main-thread timer stops the stream and
emits ``limit_reached`` with a sentence saying so. The same timer reads the last
block from the buffer to emit ``level_changed`` for the meter.

When the device refuses the requested sample rate, recording happens at the device's
own rate, and :meth:`Recorder.stop` returns that rate with the samples.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal, Slot

from studio.audio import backend
from studio.audio.backend import AudioError, Stream, StreamOpener

MAX_SECONDS = 60.0
SILENCE_DB = -100.0  # what the meter shows for digital silence
TICK_MS = 33

RECORDING = "recording"
STOPPED = "stopped"

DEVICE_LOST = "Recording stopped: the audio input device stopped responding."


def clean(audio: np.ndarray) -> np.ndarray:
    """Make device input safe to use: NaN/inf become 0, samples are clipped to +-1.

    A float32 input should already be in range; a faulty driver (ALSA's null
    device, for one, hands over uninitialised memory) is not.
    """
    out = np.nan_to_num(audio, nan=0.0, posinf=0.0, neginf=0.0)
    return np.clip(out, -1.0, 1.0, out=out)


def level_dbfs(block: np.ndarray) -> float:
    """RMS level of ``block`` in dB relative to full scale, floored at :data:`SILENCE_DB`."""
    if block.size == 0:
        return SILENCE_DB
    with np.errstate(invalid="ignore"):  # garbage from a faulty driver; clean() zeroes it
        data = clean(block.astype(np.float64))
    mean_square = float(np.dot(data, data)) / data.size
    if mean_square <= 0.0:
        return SILENCE_DB
    return max(SILENCE_DB, 10.0 * math.log10(mean_square))


def limit_sentence(seconds: float) -> str:
    return (
        f"Recording stopped at the {seconds:g}-second limit; "
        "a voice reference needs only 3 to 10 seconds."
    )


class Recorder(QObject):
    """Records mono float32 from an input device.

    Signals (main thread): ``state_changed(str)`` "recording" or "stopped";
    ``level_changed(float)`` dBFS of the last block, ~30 Hz while recording;
    ``limit_reached(str)`` the buffer is full and recording stopped (the samples are
    kept for :meth:`stop`); ``error(str)`` one sentence.
    """

    state_changed = Signal(str)
    level_changed = Signal(float)
    limit_reached = Signal(str)
    error = Signal(str)

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        open_stream: StreamOpener | None = None,
        max_seconds: float = MAX_SECONDS,
    ):
        super().__init__(parent)
        if max_seconds <= 0:
            raise ValueError(f"max_seconds must be positive, got {max_seconds}")
        self._open_stream = open_stream or backend.open_input_stream
        self.max_seconds = float(max_seconds)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._stream: Stream | None = None
        self._rate = 24000
        # Shared with the callback: the main thread replaces them only while no stream runs.
        self._buffer = np.zeros(0, dtype=np.float32)
        self._written = 0
        self._last_block = 0
        self._full = False
        self.overflows = 0  # callbacks that reported an input overflow

    # ------------------------------------------------------------------ queries

    def is_recording(self) -> bool:
        return self._stream is not None

    def sample_rate(self) -> int:
        return self._rate

    def elapsed(self) -> float:
        """Seconds recorded so far."""
        return self._written / self._rate

    # ------------------------------------------------------------------ the callback

    def _callback(self, indata, frames, time_info, status) -> None:
        """PortAudio's thread: copy the block into the buffer, nothing else."""
        if status:
            self.overflows += 1
        buffer = self._buffer
        start = self._written
        count = min(frames, buffer.size - start)
        if count > 0:
            buffer[start : start + count] = indata[:count, 0]
            self._last_block = count
            self._written = start + count  # published after the samples are in place
        if count < frames:
            self._full = True

    # ------------------------------------------------------------------ control

    def start(self, device: int | None = None, sample_rate: int = 24000) -> bool:
        """Start recording; returns False (and emits ``error``) when it cannot."""
        if self._stream is not None:
            return True
        rate = int(sample_rate)
        if rate <= 0:
            raise ValueError(f"sample_rate must be positive, got {sample_rate}")
        try:
            stream = self._open_stream(self._callback, rate, device)
        except AudioError as exc:
            self.error.emit(str(exc))
            return False
        self._rate = int(round(float(stream.samplerate)))
        self._buffer = np.zeros(int(math.ceil(self.max_seconds * self._rate)), dtype=np.float32)
        self._written = 0
        self._last_block = 0
        self._full = False
        try:
            stream.start()
        except Exception as exc:  # PortAudioError; sounddevice is not imported here
            backend.close_quietly(stream)
            self.error.emit(
                "Recording failed: the audio input device could not start "
                f"({backend.describe_error(exc)})."
            )
            return False
        self._stream = stream
        self._timer.start()
        self.state_changed.emit(RECORDING)
        return True

    def stop(self) -> tuple[np.ndarray, int]:
        """Stop and return the samples (float32 mono, finite, within +-1) and their rate.

        After the limit stopped recording by itself, this returns what was kept.
        Called again, it returns an empty array: the recording is handed over once.
        """
        was_recording = self._stream is not None
        self._halt()
        audio = clean(self._buffer[: self._written].copy())
        self._buffer = np.zeros(0, dtype=np.float32)
        self._written = 0
        self._last_block = 0
        if was_recording:
            self.level_changed.emit(SILENCE_DB)
            self.state_changed.emit(STOPPED)
        return audio, self._rate

    def close(self) -> None:
        """Release the device and drop any recording."""
        self.stop()

    # ------------------------------------------------------------------ internals

    def _halt(self) -> None:
        self._timer.stop()
        stream, self._stream = self._stream, None
        # abort() returns once the callback has finished, so the buffer is final after it.
        backend.close_quietly(stream)

    def _level(self) -> float:
        end = self._written
        return level_dbfs(self._buffer[max(0, end - self._last_block) : end])

    @Slot()
    def _tick(self) -> None:
        stream = self._stream
        if stream is None:
            self._timer.stop()
            return
        if self._full:
            self._halt()
            self.level_changed.emit(SILENCE_DB)
            self.state_changed.emit(STOPPED)
            self.limit_reached.emit(limit_sentence(self.max_seconds))
            return
        if not stream.active:
            self._halt()
            self.level_changed.emit(SILENCE_DB)
            self.state_changed.emit(STOPPED)
            self.error.emit(DEVICE_LOST)
            return
        self.level_changed.emit(self._level())
