"""Whether this machine can play (or record) sound, for every test that needs to hear
something: the audio tests, the journeys and the studio tests that wait for playback.

PortAudio with no device to play to (no sound card and no ALSA null device, DESIGN.md)
is a new user's machine as often as not, so there a test that needs the device is
skipped with the reason (pytest's -ra lists it) and ``python -m pytest -q`` passes. With
OMNIVOICE_REQUIRE_AUDIO=1 (CI sets it, so a broken setup cannot hide) it fails instead.
The launched studio inherits this process's environment (HOME, so ~/.asoundrc), so what
this process sees is what the studio sees.
"""

from __future__ import annotations

import os

import pytest

from studio.audio import backend


def audio_required() -> bool:
    return os.environ.get("OMNIVOICE_REQUIRE_AUDIO", "") not in ("", "0")


def _missing(message: str):
    if audio_required():
        pytest.fail(message + " (OMNIVOICE_REQUIRE_AUDIO is set)")
    pytest.skip(message)


def need_output() -> backend.AudioStatus:
    """The AudioStatus when an output device is there; otherwise the test skips (or
    fails, when audio is required) here, with the reason."""
    status = backend.audio_status()
    if not status.available:
        _missing(f"no audio output here: {status.reason}")
    return status


def need_input() -> backend.AudioStatus:
    """Like :func:`need_output`, for an input device (ALSA's null device has one)."""
    status = need_output()
    if not status.input_devices:
        _missing(f"no audio input here: {status.recording_reason}")
    return status


def has_output() -> bool:
    """Whether playback can be heard here; a test that leaves its playback part out
    calls :func:`need_output` at its end, so the skip (and its reason) still shows."""
    return backend.audio_status().available
