"""Test doubles and signals for the audio tests (imported by conftest and the tests).

ALSA's null device takes samples as fast as the callback makes them (hundreds of times
real time), so it proves what was sent and in what order, but it is no clock. Timing
behaviour (30 Hz positions, pause after a while, seek while playing) is tested with
:class:`PacedStream`, a fake stream whose thread calls the callback at real-time pace,
as PortAudio's thread does.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from studio.audio import backend

RAMP_SCALE = 2.0**-22  # ramp samples are (k + 1) * 2**-22: exact in float32 below 2**24


def ramp(frames: int, sign: float = 1.0) -> np.ndarray:
    """A clip whose every sample names its own index: sample k is (k + 1) * 2**-22."""
    return (sign * (np.arange(frames, dtype=np.float64) + 1) * RAMP_SCALE).astype(np.float32)


def ramp_index(samples: np.ndarray) -> np.ndarray:
    """The indices a ramp's samples encode (-1 for silence)."""
    return np.rint(np.abs(samples.astype(np.float64)) / RAMP_SCALE).astype(np.int64) - 1


def tone(seconds: float, sample_rate: int = 24000, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(round(seconds * sample_rate))) / sample_rate
    return (0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


# ---------------------------------------------------------------------------
# A fake stream with a real-time thread
# ---------------------------------------------------------------------------


class PacedStream:
    """Calls ``callback(outdata, frames, None, 0)`` every ``blocksize / samplerate`` s."""

    def __init__(self, callback, samplerate, device, *, latency=0.0, blocksize=240):
        self.callback = callback
        self.samplerate = float(samplerate)
        self.device = device
        self.latency = latency
        self.blocksize = blocksize
        self.blocks: list[np.ndarray] = []  # copies of everything the callback wrote
        self.closed = False
        self.fail = False  # set to make the "device" stop answering
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def active(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        assert not self.closed, "start() on a closed stream"
        assert self._thread is None, "start() on a running stream"
        self._halt.clear()
        self._thread = threading.Thread(target=self._run, name="paced-stream", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = self.blocksize / self.samplerate
        deadline = time.monotonic()
        out = np.zeros((self.blocksize, 1), dtype=np.float32)
        while not self._halt.is_set() and not self.fail:
            self.callback(out, self.blocksize, None, 0)
            self.blocks.append(out[:, 0].copy())
            deadline += period
            self._halt.wait(max(0.0, deadline - time.monotonic()))

    def abort(self) -> None:
        self._halt.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    stop = abort

    def close(self) -> None:
        self.abort()
        self.closed = True

    def fed(self) -> np.ndarray:
        return np.concatenate(self.blocks) if self.blocks else np.zeros(0, np.float32)


class PacedOpener:
    """A stream opener handing out :class:`PacedStream` objects; remembers them all.

    ``rates``: the sample rates the fake device accepts (others fall back to 48000),
    ``refuse``: an AudioError sentence to raise instead of opening.
    """

    def __init__(self, latency: float = 0.0, rates: tuple[int, ...] | None = None):
        self.latency = latency
        self.rates = rates
        self.refuse: str | None = None
        self.streams: list[PacedStream] = []

    def __call__(self, callback, samplerate, device):
        if self.refuse:
            raise backend.AudioError(self.refuse)
        rate = samplerate if self.rates is None or samplerate in self.rates else 48000
        stream = PacedStream(callback, rate, device, latency=self.latency)
        self.streams.append(stream)
        return stream

    @property
    def last(self) -> PacedStream:
        return self.streams[-1]


class SpyOpener:
    """Opens real output streams whose callback output is copied as it goes."""

    def __init__(self):
        self.blocks: list[np.ndarray] = []
        self.marks: list[int] = []  # len(blocks) at each start of a stream

    def __call__(self, callback, samplerate, device):
        blocks = self.blocks

        def spied(outdata, frames, time_info, status):
            callback(outdata, frames, time_info, status)
            blocks.append(outdata[:, 0].copy())

        self.marks.append(len(blocks))
        return backend.open_output_stream(spied, samplerate, device)

    def fed(self, start_block: int = 0, stop_block: int | None = None) -> np.ndarray:
        chosen = self.blocks[start_block:stop_block]
        return np.concatenate(chosen) if chosen else np.zeros(0, np.float32)


class ManualStream:
    """A stream with no thread: the test calls the callback itself, block by block."""

    def __init__(self, callback, samplerate, device):
        self.callback = callback
        self.samplerate = float(samplerate)
        self.device = device
        self.latency = 0.0
        self.running = False
        self.closed = False
        self.fail = False  # set to make the "device" stop answering

    @property
    def active(self) -> bool:
        return self.running and not self.fail

    def start(self) -> None:
        assert not self.closed
        self.running = True

    def abort(self) -> None:
        self.running = False

    stop = abort

    def close(self) -> None:
        self.running = False
        self.closed = True

    def feed(self, block: np.ndarray, status: int = 0) -> None:
        """Deliver one input block, as PortAudio's thread would."""
        assert self.running, "feeding a stream that is not running"
        indata = np.ascontiguousarray(block, dtype=np.float32).reshape(-1, 1)
        self.callback(indata, indata.shape[0], None, status)


class ManualOpener:
    """Opens :class:`ManualStream` objects, at ``force_rate`` when set."""

    def __init__(self, force_rate: int | None = None):
        self.force_rate = force_rate
        self.streams: list[ManualStream] = []

    def __call__(self, callback, samplerate, device):
        stream = ManualStream(callback, self.force_rate or samplerate, device)
        self.streams.append(stream)
        return stream

    @property
    def last(self) -> ManualStream:
        return self.streams[-1]
