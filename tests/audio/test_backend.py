"""audio_status and the stream openers: real devices, and a machine without PortAudio."""

from __future__ import annotations

import pytest

from studio.audio import backend


def one_sentence(text: str) -> bool:
    return text.endswith(".") and ". " not in text and "\n" not in text


def test_status_lists_the_null_device(null_output):
    status = null_output
    assert status.available and status.reason is None
    assert status.output_devices and all(
        isinstance(i, int) and isinstance(n, str) for i, n in status.output_devices
    )
    assert status.default_output in {i for i, _ in status.output_devices}


def test_without_portaudio_status_says_why_in_one_sentence(no_portaudio):
    status = backend.audio_status()
    assert not status.available
    assert status.reason == backend.PORTAUDIO_MISSING
    assert one_sentence(status.reason) and "libportaudio2" in status.reason
    assert not status.recording_available
    assert status.recording_reason.startswith("Recording is off")
    assert status.output_devices == [] and status.input_devices == []
    with pytest.raises(backend.AudioError, match="PortAudio"):
        backend.open_output_stream(lambda *a: None, 24000, None)
    with pytest.raises(backend.AudioError, match="^Recording is off"):
        backend.open_input_stream(lambda *a: None, 24000, None)


def test_without_the_sounddevice_package(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "sounddevice":
            raise ModuleNotFoundError("No module named 'sounddevice'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    status = backend.audio_status()
    assert status.reason == backend.SOUNDDEVICE_MISSING and one_sentence(status.reason)


def test_an_audio_system_that_fails_to_answer(null_output, monkeypatch):
    sd = backend.import_sounddevice()

    def broken(*args, **kwargs):
        raise sd.PortAudioError("Unanticipated host error", -9999)

    monkeypatch.setattr(sd, "query_devices", broken)
    status = backend.audio_status()
    assert not status.available
    assert status.reason == (
        "Playback is off: the audio system did not answer (Unanticipated host error)."
    )


def test_a_refused_rate_falls_back_to_the_device_rate(null_output, monkeypatch):
    sd = backend.import_sounddevice()
    real_check = sd.check_output_settings

    def picky(*args, samplerate=None, **kwargs):
        if samplerate == 24000:
            raise sd.PortAudioError("Invalid sample rate", -9997)
        return real_check(*args, samplerate=samplerate, **kwargs)

    monkeypatch.setattr(sd, "check_output_settings", picky)
    stream = backend.open_output_stream(lambda out, *_: out.fill(0), 24000, None)
    try:
        expected = sd.query_devices(None, kind="output")["default_samplerate"]
        assert stream.samplerate == expected != 24000
    finally:
        backend.close_quietly(stream)


def test_a_missing_device_is_one_sentence(null_output):
    with pytest.raises(backend.AudioError) as caught:
        backend.open_output_stream(lambda *a: None, 24000, 9999)
    message = str(caught.value)
    assert message.startswith("Playback failed: the audio output device could not be opened (")
    assert one_sentence(message)
    assert "9999" not in message and "Invalid" not in message, "PortAudio's words stay in the log"


def test_no_default_output_device_says_playback_is_off(null_output, monkeypatch):
    """Review 2: "(Error querying device -1)" reached the window when there is no device."""
    sd = backend.import_sounddevice()
    real = sd.query_hostapis

    def no_default(index=None):
        info = dict(real(index))
        info["default_output_device"] = -1
        return info

    def refuse(*args, **kwargs):
        raise sd.PortAudioError("Error querying device -1")

    monkeypatch.setattr(sd, "query_hostapis", no_default)
    monkeypatch.setattr(sd, "check_output_settings", refuse)
    monkeypatch.setattr(sd, "query_devices", refuse)
    with pytest.raises(backend.AudioError) as caught:
        backend.open_output_stream(lambda *a: None, 24000, None)
    assert str(caught.value) == backend.NO_OUTPUT_DEVICE
