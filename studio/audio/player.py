"""The player: one clip loaded at a time, a transport, and signals the views listen to.

Real-time rules (as in Friture):

* The stream callback runs on PortAudio's thread. It only copies from the preloaded
  array into the output buffer and advances an integer playhead. It never blocks,
  never calls PortAudio, never touches Qt and never stops its own stream.
* The main thread polls the playhead with a QTimer (~30 Hz) to emit
  ``position_changed``; when the callback has reached the end it raises a flag, and
  the timer, on the main thread, closes the stream and emits ``finished``.
* Hand-over between the threads uses single attribute assignments, which are atomic
  under the GIL: the main thread swaps in a new ``(array, gain)`` pair (A/B
  switching, loudness matching) or posts a seek as one ``(serial, frame)`` tuple;
  only the callback writes the playhead while the stream runs. When the stream is
  stopped, the main thread owns everything.
* The gain is applied by ``np.multiply(..., out=outdata)``: no buffer is allocated
  in the callback, and a clip and its gain always change together.

The playhead counts samples handed to the device, so while playing the position runs
ahead of what is heard by the output latency (tens of milliseconds). Pausing aborts
the stream at once (no blocking drain) and steps the playhead back by the part that
had not been heard yet, so resuming repeats nothing and skips nothing. At the end the
stream keeps running on silence for one latency, so the tail is heard in full.

When a device refuses the clip's sample rate, the stream opens at the device's own
rate and the clip is resampled linearly for playback (a preview, not an export).

A clip still being rendered is played as a stream (:meth:`Player.begin_stream`): each
:meth:`Player.append` adds the piece to a growing buffer (studio.sound.growing, a flat
cost per piece) and swaps in the longer view (one assignment, as an A/B switch), so
the callback carries on past the old end without a gap. If playback catches up with
the render, the callback sends silence and holds the playhead (``buffering_changed``)
until more arrives; it never plays past what has arrived.

Long because the real-time hand-over rules above tie the transport, streaming and device
handling to one QObject's state; its Qt-free parts are in :mod:`studio.sound.growing`.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal, Slot

from studio.audio import backend
from studio.audio.backend import AudioError, Stream, StreamOpener
from studio.sound.growing import GrowingWave, resample_points

STOPPED = "stopped"
PLAYING = "playing"
PAUSED = "paused"

TICK_MS = 33  # ~30 Hz: smooth enough for a playhead line, cheap for the main thread

NOTHING_LOADED = "Nothing to play: choose a take first."
EMPTY_CLIP = "Nothing to play: this clip is empty."
DEVICE_LOST = "Playback stopped: the audio output device stopped responding."


def as_mono(audio: np.ndarray) -> np.ndarray:
    """A private float32 mono copy: ``(T,)`` kept, ``(C, T)`` averaged, NaN/inf made 0."""
    wave = np.asarray(audio, dtype=np.float32)
    if wave.ndim == 2:
        wave = wave.mean(axis=0, dtype=np.float32) if wave.shape[0] else wave.reshape(-1)
    elif wave.ndim != 1:
        raise ValueError(f"expected audio shaped (T,) or (C, T), got {wave.shape}")
    out = np.nan_to_num(wave, nan=0.0, posinf=0.0, neginf=0.0).astype(np.float32, copy=True)
    out.flags.writeable = False
    return out


def resample_linear(audio: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Linear-interpolation resampling, good enough to audition on a fussy device."""
    if rate == target or audio.size == 0:
        return audio
    out = resample_points(audio, rate, target)
    out.flags.writeable = False
    return out


def _check_gain(gain: float) -> float:
    value = float(gain)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"gain must be a finite number >= 0, got {gain}")
    return value


def _check_rate(sample_rate: int) -> int:
    rate = int(sample_rate)
    if rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    return rate


class Player(QObject):
    """Plays one mono clip through a sounddevice OutputStream.

    Signals (all emitted on the main thread):
      ``state_changed(str)``: "stopped", "playing" or "paused";
      ``position_changed(float)``: the playhead in seconds, ~30 Hz while playing and
      after every seek, pause, stop and load;
      ``finished()``: playback reached the end by itself (after ``state_changed("stopped")``);
      ``error(str)``: one sentence for the status bar; the player never raises for
      audio problems;
      ``loaded(object)``: the key of the clip now loaded.

    ``open_stream`` replaces :func:`backend.open_output_stream` (tests pass fakes).
    Call :meth:`close` before quitting; it releases the device.
    """

    state_changed = Signal(str)
    position_changed = Signal(float)
    finished = Signal()
    error = Signal(str)
    loaded = Signal(object)
    buffering_changed = Signal(bool)  # a streamed clip ran out before its end arrived

    def __init__(self, parent: QObject | None = None, *, open_stream: StreamOpener | None = None):
        super().__init__(parent)
        self._open_stream = open_stream or backend.open_output_stream
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._state = STOPPED
        self._key: object = None
        self._device: int | None = None
        self._source = as_mono(np.zeros(0, dtype=np.float32))
        self._source_rate = 24000
        self._has_clip = False
        self._stream: Stream | None = None
        self._rate_forced = False  # the device refused the clip's rate
        self._last_emitted: float | None = None
        # Shared with the callback (see the module docstring for who writes what).
        self._feed = self._source  # what the callback plays, at _feed_rate
        self._feed_rate = self._source_rate
        self._gain = 1.0  # linear output gain (A/B loudness matching)
        self._mix = (self._feed, self._gain)  # what the callback reads, swapped as one
        self._playhead = 0
        self._seek_request = (0, 0)  # (serial, frame), posted by the main thread
        self._seek_applied = 0  # the serial the callback has applied
        self._ended = False
        self._tail = 0  # silent frames written since the end
        self._run_frames = 0  # frames written since the stream last started
        self._open_end = False  # a streamed clip whose end has not arrived (begin_stream)
        # While streaming: the clip and its feed at the device's rate (None: same rate)
        self._growing: GrowingWave | None = None
        self._growing_feed: GrowingWave | None = None
        self._starved = False  # the callback ran out of a streamed clip and sends silence
        self._buffering = False  # what buffering_changed last said (main thread)
        self.underflows = 0  # callbacks that reported an output underflow

    # ------------------------------------------------------------------ queries

    def state(self) -> str:
        return self._state

    def key(self) -> object:
        """What is loaded (for example a take id), as given to :meth:`load`."""
        return self._key

    def device(self) -> int | None:
        return self._device

    def duration(self) -> float:
        return self._feed.size / self._feed_rate

    def gain(self) -> float:
        return self._gain

    def position(self) -> float:
        return self._frame() / self._feed_rate

    def _frame(self) -> int:
        request = self._seek_request
        if request[0] != self._seek_applied:
            return request[1]  # a seek the callback has not picked up yet
        return min(self._playhead, self._feed.size)

    # ------------------------------------------------------------------ the callback

    def _callback(self, outdata, frames, time_info, status) -> None:
        """PortAudio's thread: copy the next samples, advance the playhead, nothing else."""
        if status and getattr(status, "output_underflow", True):  # fakes pass an int
            self.underflows += 1
        # Read before the clip: end_stream() comes after the last append(), so a clip
        # read after a closed end is the whole one.
        open_end = self._open_end
        request = self._seek_request
        if request[0] != self._seek_applied:
            self._seek_applied = request[0]
            self._playhead = request[1]
            self._run_frames = 0  # nothing before the seek point is waiting to be heard
        feed, gain = self._mix
        start = min(self._playhead, feed.size)
        count = min(frames, feed.size - start)
        if count > 0:
            np.multiply(feed[start : start + count], gain, out=outdata[:count, 0])
        if count < frames:
            outdata[count:] = 0.0
            if open_end:  # the render is behind: wait on silence, the playhead held
                self._starved = True
                self._tail = 0
                self._ended = False
            else:
                self._tail += frames - count
                self._ended = True
        else:
            self._starved = False
            self._tail = 0
            self._ended = False
        self._playhead = start + count
        self._run_frames += frames

    # ------------------------------------------------------------------ transport

    @Slot()
    def play(self) -> None:
        if self._state == PLAYING:
            return
        if not self._has_clip:
            self.error.emit(NOTHING_LOADED)
            return
        if self._feed.size == 0 and not self._open_end:
            self.error.emit(EMPTY_CLIP)
            return
        self._settle()
        if self._playhead >= self._feed.size and not self._open_end:
            self._playhead = 0  # play after the end starts again
        problem = self._start()
        if problem:
            self.error.emit(problem)
            return
        self._set_state(PLAYING)

    @Slot()
    def pause(self) -> None:
        if self._state != PLAYING:
            return
        self._halt()
        self._set_state(PAUSED)
        self._emit_position()

    @Slot()
    def toggle(self) -> None:
        if self._state == PLAYING:
            self.pause()
        else:
            self.play()

    @Slot()
    def stop(self) -> None:
        """Stop and go back to the start."""
        self._timer.stop()
        self._drop_stream()
        self._settle()
        self._playhead = 0
        self._ended = False
        self._set_state(STOPPED)
        self._emit_position()

    @Slot(float)
    def seek(self, seconds: float) -> None:
        if not self._has_clip or not math.isfinite(seconds):
            return
        frame = int(round(float(seconds) * self._feed_rate))
        frame = max(0, min(frame, self._feed.size))
        if self._state == PLAYING:
            self._seek_request = (self._seek_request[0] + 1, frame)
        else:
            self._playhead = frame
            self._seek_request = (self._seek_request[0] + 1, frame)
            self._seek_applied = self._seek_request[0]
        self._emit_position()

    def set_gain(self, gain: float) -> None:
        """Scale the output by ``gain`` (linear) from the next block on."""
        self._gain = _check_gain(gain)
        self._mix = (self._feed, self._gain)

    def set_device(self, index: int | None) -> None:
        """Play through output device ``index`` (None: the system default) from now on.

        While playing, playback moves to the new device and carries on.
        """
        index = None if index is None else int(index)
        if index == self._device:
            return
        self._device = index
        if self._stream is None:
            return
        if self._state == PLAYING:
            self._halt()
            self._drop_stream()
            self._restart()
        else:
            self._drop_stream()

    # ------------------------------------------------------------------ loading

    def load(self, audio: np.ndarray, sample_rate: int, key: object = None, *,
             gain: float = 1.0) -> None:
        """Load a clip (float32 mono; ``(C, T)`` is averaged) and stop at its start.

        ``gain`` scales its output (linear; 1.0 plays it as it is).
        """
        mono, rate, gain = as_mono(audio), _check_rate(sample_rate), _check_gain(gain)
        self._timer.stop()
        self._drop_stream()
        self._replace(mono, rate, key, gain)
        self._playhead = 0
        self._set_state(STOPPED)
        self.loaded.emit(key)
        self._emit_position(force=True)

    def play_at_same_position(
        self, audio: np.ndarray, sample_rate: int, key: object = None, *, gain: float = 1.0
    ) -> None:
        """A/B switch: load another clip and carry on from the same time, in the same state.

        While playing at a rate the new clip can use, only the array under the running
        stream is swapped (with its ``gain``, in one assignment): not a single sample
        of the timeline is lost or repeated. A clip shorter than the current time
        finishes at once.
        """
        mono, rate, gain = as_mono(audio), _check_rate(sample_rate), _check_gain(gain)
        state = self._state
        if state == PLAYING and self._stream is not None:
            if rate == self._feed_rate:
                feed = mono
            elif self._rate_forced:
                feed = resample_linear(mono, rate, self._feed_rate)
            else:
                feed = None
            if feed is not None:
                self._source, self._source_rate, self._key = mono, rate, key
                self._has_clip = True
                self._feed, self._gain = feed, gain
                self._mix = (feed, gain)  # one reference swap; the playhead carries on
                self.loaded.emit(key)
                return
        if state == PLAYING:
            self._halt()
        seconds = self.position()
        self._timer.stop()
        self._drop_stream()
        self._replace(mono, rate, key, gain)
        self._playhead = max(0, min(int(round(seconds * rate)), mono.size))
        self.loaded.emit(key)
        if state == PLAYING:
            self._restart()
        self._emit_position(force=True)

    def begin_stream(self, sample_rate: int, key: object = None, *, gain: float = 1.0) -> None:
        """Load an empty clip that :meth:`append` extends while it renders; stopped at 0."""
        self.load(np.zeros(0, dtype=np.float32), sample_rate, key, gain=gain)
        self._open_end = True
        self._growing = GrowingWave()
        self._regrow_feed()

    def append(self, audio: np.ndarray) -> None:
        """Add the next rendered samples to the streamed clip; playback carries on into them."""
        if not self._open_end:
            raise RuntimeError("append() needs a clip begun with begin_stream()")
        # Flat cost per piece (studio.sound.growing): a long stream must not copy or
        # resample everything so far on the GUI thread for each chunk.
        source = self._growing.extend(as_mono(audio))
        if self._growing_feed is None:
            feed = source
        else:
            feed = self._growing_feed.extend(resample_points(
                source, self._source_rate, self._feed_rate, self._growing_feed.size, final=False))
        self._source, self._feed = source, feed
        self._mix = (feed, self._gain)  # one swap, as an A/B switch; the playhead carries on

    def end_stream(self) -> None:
        """No more audio will come: playback ends at the end of what arrived."""
        if self._open_end and self._growing_feed is not None:  # the last resampled points
            self._feed = self._growing_feed.extend(resample_points(
                self._source, self._source_rate, self._feed_rate, self._growing_feed.size))
            self._mix = (self._feed, self._gain)
        self._open_end = False
        self._growing = self._growing_feed = None

    def _regrow_feed(self) -> None:
        """A streamed clip's feed at the device's rate, grown piece by piece from now on."""
        if self._feed_rate == self._source_rate:
            self._growing_feed = None
            self._feed = self._source
        else:
            self._growing_feed = GrowingWave()
            self._feed = self._growing_feed.extend(resample_points(
                self._source, self._source_rate, self._feed_rate, final=False))
        self._mix = (self._feed, self._gain)

    def streaming(self) -> bool:
        """A streamed clip whose end has not arrived is loaded."""
        return self._open_end

    def set_key(self, key: object) -> None:
        """Name the loaded clip anew (a streamed render that became a take); emits ``loaded``."""
        self._key = key
        self.loaded.emit(key)

    def close(self) -> None:
        """Release the device (playing turns into paused); the player stays usable."""
        if self._state == PLAYING:
            self._halt()
            self._set_state(PAUSED)
        self._timer.stop()
        self._drop_stream()
        self._settle()

    # ------------------------------------------------------------------ internals

    def _replace(self, mono: np.ndarray, rate: int, key: object, gain: float) -> None:
        """Install a new clip; the stream must be closed."""
        self._source, self._source_rate, self._key = mono, rate, key
        self._has_clip = True
        self._feed, self._feed_rate, self._gain = mono, rate, gain
        self._mix = (mono, gain)
        self._seek_applied = self._seek_request[0]
        self._ended = False
        self._tail = 0
        self._open_end = False
        self._growing = self._growing_feed = None
        self._starved = False

    def _settle(self) -> bool:
        """With the stream stopped, apply a seek the callback never picked up (True if so)."""
        request = self._seek_request
        if request[0] != self._seek_applied:
            self._seek_applied = request[0]
            self._playhead = request[1]
            return True
        return False

    def _latency_frames(self) -> int:
        stream = self._stream
        if stream is None:
            return 0
        try:
            return max(0, int(round(float(stream.latency) * self._feed_rate)))
        except (TypeError, ValueError):
            return 0

    def _ensure_stream(self) -> Stream:
        if self._stream is not None:
            return self._stream
        stream = self._open_stream(self._callback, self._source_rate, self._device)
        self._stream = stream
        rate = int(round(float(stream.samplerate)))
        self._rate_forced = rate != self._source_rate
        if rate != self._feed_rate:
            seconds = min(self._playhead, self._feed.size) / self._feed_rate
            self._feed_rate = rate
            if self._open_end:
                self._regrow_feed()
            else:
                self._feed = resample_linear(self._source, self._source_rate, rate)
                self._mix = (self._feed, self._gain)
            self._playhead = min(int(round(seconds * rate)), self._feed.size)
        return stream

    def _start(self) -> str | None:
        """Open the stream if needed and start it; returns the error sentence on failure."""
        try:
            stream = self._ensure_stream()
            self._ended = False
            self._tail = 0
            self._run_frames = 0
            stream.start()
        except AudioError as exc:
            self._drop_stream()
            return str(exc)
        except Exception as exc:  # PortAudioError from start(); sounddevice is not imported here
            self._drop_stream()
            return (
                "Playback failed: the audio output device could not start "
                f"({backend.describe_error(exc)})."
            )
        self._timer.start()
        return None

    def _restart(self) -> None:
        """Carry on playing after the stream was replaced; on failure pause and say why."""
        if self._playhead >= self._feed.size:
            self._finish()
            return
        problem = self._start()
        if problem:
            self._set_state(PAUSED)
            self._emit_position()
            self.error.emit(problem)

    def _halt(self) -> None:
        """Stop a playing stream at once, keeping the playhead at what was heard."""
        self._timer.stop()
        latency = self._latency_frames()
        stream = self._stream
        try:
            if stream is not None:
                stream.abort()  # returns once the callback is done: its counters are final
        except Exception:
            self._drop_stream()
        if not self._settle():
            unheard = max(0, min(latency, self._run_frames) - self._tail)
            self._playhead = max(0, min(self._playhead, self._feed.size) - unheard)
        self._ended = False
        self._tail = 0

    def _drop_stream(self) -> None:
        stream, self._stream = self._stream, None
        backend.close_quietly(stream)

    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.state_changed.emit(state)

    def _emit_position(self, force: bool = False) -> None:
        seconds = self.position()
        if force or seconds != self._last_emitted:
            self._last_emitted = seconds
            self.position_changed.emit(seconds)

    def _set_buffering(self, buffering: bool) -> None:
        if buffering != self._buffering:
            self._buffering = buffering
            self.buffering_changed.emit(buffering)

    @Slot()
    def _tick(self) -> None:
        if self._state != PLAYING:
            self._timer.stop()
            self._set_buffering(False)
            return
        self._set_buffering(self._starved and self._open_end)
        stream = self._stream
        seek_pending = self._seek_request[0] != self._seek_applied
        ended = self._ended and not seek_pending
        if ended and (self._tail >= self._latency_frames() or stream is None or not stream.active):
            self._finish()
            return
        if stream is None or not stream.active:
            self._timer.stop()
            self._drop_stream()
            self._settle()
            self._set_state(PAUSED)
            self._emit_position()
            self.error.emit(DEVICE_LOST)
            return
        self._emit_position()

    def _finish(self) -> None:
        self._timer.stop()
        self._set_buffering(False)
        self._drop_stream()
        self._playhead = self._feed.size
        self._ended = False
        self._tail = 0
        self._emit_position()
        self._set_state(STOPPED)
        self.finished.emit()
