"""Fixtures for the audio tests.

Real-device tests play to ALSA's null device (DESIGN.md: libportaudio2 plus a
~/.asoundrc routing "default" to ``type null``); timing is tested with the paced fake
stream in audio_helpers.

Every test runs under ``no_leaks``: it fails when a stream, a QThread, a Python thread
or an OS thread started during the test is still there at its end.
"""

from __future__ import annotations

import builtins
import os
import threading
import time

import pytest
from audio_helpers import ManualOpener, PacedOpener
from PySide6.QtCore import QThread

from studio.audio import backend
from tests.audio_output import need_input, need_output


@pytest.fixture
def paced(_fake_streams):
    """``paced(latency=0.0, rates=None)`` -> a PacedOpener whose streams are leak-checked."""

    def make(latency: float = 0.0, rates: tuple[int, ...] | None = None) -> PacedOpener:
        opener = PacedOpener(latency, rates)
        _fake_streams.append(opener)
        return opener

    return make


@pytest.fixture
def manual(_fake_streams):
    """``manual(force_rate=None)`` -> a ManualOpener whose streams are leak-checked."""

    def make(force_rate: int | None = None) -> ManualOpener:
        opener = ManualOpener(force_rate)
        _fake_streams.append(opener)
        return opener

    return make


@pytest.fixture
def _fake_streams():
    return []


# ---------------------------------------------------------------------------
# Real devices
# ---------------------------------------------------------------------------


@pytest.fixture
def null_output():
    """The AudioStatus, when an output device (ALSA's null device in CI) is there;
    otherwise skipped with the reason (tests/audio_output.py)."""
    return need_output()


@pytest.fixture
def null_input(null_output):
    """Like ``null_output``, for an input device (ALSA's null device has one: silence)."""
    return need_input()


# ---------------------------------------------------------------------------
# No PortAudio
# ---------------------------------------------------------------------------


@pytest.fixture
def no_portaudio(monkeypatch):
    """Make ``import sounddevice`` raise OSError, as it does without libportaudio2."""
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "sounddevice" or name.startswith("sounddevice."):
            raise OSError("PortAudio library not found")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


# ---------------------------------------------------------------------------
# Leak check
# ---------------------------------------------------------------------------


def _os_threads() -> int | None:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None  # not Linux: the Python-level checks still run


@pytest.fixture(scope="session")
def _portaudio_warm():
    """Open and close one stream first: PortAudio/ALSA keep one helper thread from then on,
    which must not count as a leak of whichever test opens the first stream."""
    try:
        status = backend.audio_status()
        if status.available:
            stream = backend.open_output_stream(lambda out, *_: out.fill(0), 24000, None)
            stream.start()
            backend.close_quietly(stream)
    except backend.AudioError:
        pass


class LeakReport:
    """What a test started, and the check that all of it has stopped."""

    def __init__(self):
        self.real_streams: list = []
        self.qthreads: list[QThread] = []
        self.python_threads = set(threading.enumerate())
        self.os_threads = _os_threads()

    def problems(self, fake_openers=(), wait_s: float = 2.0) -> list[str]:
        deadline = time.monotonic() + wait_s
        while True:
            found = []
            for stream in self.real_streams:
                if not stream.closed:
                    found.append(f"a sounddevice stream was left open: {stream!r}")
            for opener in fake_openers:
                for stream in opener.streams:
                    if stream.active or not stream.closed:
                        found.append("a (fake) audio stream was left open or running")
            for thread in self.qthreads:
                if thread.isRunning():
                    found.append(f"a QThread is still running: {thread!r}")
            extra = [t for t in threading.enumerate() if t not in self.python_threads]
            found += [f"a Python thread is still running: {t.name}" for t in extra]
            now = _os_threads()
            if self.os_threads is not None and now is not None and now > self.os_threads:
                found.append(f"{now - self.os_threads} OS thread(s) more than before the test")
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.02)


@pytest.fixture(autouse=True)
def no_leaks(qapp, _portaudio_warm, _fake_streams, monkeypatch):
    """Fail a test that leaves a stream, QThread or thread running behind it."""
    report = LeakReport()

    original_start = QThread.start

    def recording_start(self, *args, **kwargs):
        report.qthreads.append(self)
        return original_start(self, *args, **kwargs)

    monkeypatch.setattr(QThread, "start", recording_start)
    try:
        sd = backend.import_sounddevice()
    except backend.AudioError:
        sd = None
    if sd is not None:
        for name in ("OutputStream", "InputStream"):
            base = getattr(sd, name)
            tracked = type(name, (base,), {"__init__": _tracking_init(base, report)})
            monkeypatch.setattr(sd, name, tracked)
    yield report
    problems = report.problems(_fake_streams)
    if problems:
        pytest.fail("; ".join(problems))


def _tracking_init(base, report):
    def __init__(self, *args, **kwargs):
        base.__init__(self, *args, **kwargs)
        report.real_streams.append(self)

    return __init__
