"""The one place that talks to PortAudio (through sounddevice).

sounddevice is imported inside functions, never at module level: ``import
sounddevice`` raises OSError when the PortAudio library is missing, and the studio
must still open (with playback off and a sentence saying why). Every failure here
becomes an :class:`AudioError` carrying one sentence for the UI.

Device lists hold the devices of PortAudio's default host API only (ALSA on Linux,
MME on Windows, Core Audio on macOS): other host APIs list the same hardware again
under other names. PortAudio scans devices once per process, so a device plugged in
later appears after a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from studio.errors import UserError

log = logging.getLogger("studio.audio")

PORTAUDIO_MISSING = (
    "Playback is off: the PortAudio library is not installed (install libportaudio2)."
)
SOUNDDEVICE_MISSING = (
    "Playback is off: the sounddevice package is not installed (pip install sounddevice)."
)
NO_OUTPUT_DEVICE = "Playback is off: no audio output device was found."
NO_INPUT_DEVICE = "Recording is off: no audio input device (microphone) was found."

Device = tuple[int, str]


class AudioError(UserError):
    """An audio problem told as one sentence (missing library, device that fails to open)."""


class Stream(Protocol):
    """The part of a sounddevice stream the player and recorder use (fakes implement it)."""

    samplerate: float
    latency: float

    @property
    def active(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def abort(self) -> None: ...

    def close(self) -> None: ...


# (callback, samplerate, device) -> an open, not yet started stream.
StreamOpener = Callable[[Callable[..., None], int, "int | None"], Stream]


@dataclass(frozen=True)
class AudioStatus:
    """What the settings page and the play buttons need to know about audio.

    ``available`` is about playback; ``reason`` is one sentence when it is off.
    Recording has its own sentence, ``recording_reason``, since a machine can play
    sound without having a microphone.
    """

    available: bool
    reason: str | None
    output_devices: list[Device] = field(default_factory=list)
    input_devices: list[Device] = field(default_factory=list)
    default_output: int | None = None
    default_input: int | None = None
    recording_reason: str | None = None

    @property
    def recording_available(self) -> bool:
        return self.recording_reason is None


def _recording_sentence(reason: str) -> str:
    return reason.replace("Playback is off", "Recording is off", 1)


def import_sounddevice(purpose: str = "playback") -> Any:
    """Import sounddevice, turning a missing PortAudio or package into an AudioError.

    ``purpose`` ("playback" or "recording") picks the sentence's subject.
    """
    try:
        import sounddevice
    except (OSError, ImportError) as exc:
        reason = PORTAUDIO_MISSING if isinstance(exc, OSError) else SOUNDDEVICE_MISSING
        if purpose == "recording":
            reason = _recording_sentence(reason)
        raise AudioError(reason) from None
    return sounddevice


def _default_index(value: int) -> int | None:
    return value if value is not None and value >= 0 else None


def audio_status() -> AudioStatus:
    """Whether playback and recording can work here, and the devices to choose from."""
    try:
        sd = import_sounddevice()
    except AudioError as exc:
        return AudioStatus(False, str(exc), recording_reason=_recording_sentence(str(exc)))
    try:
        devices = list(sd.query_devices())
        hostapi = sd.query_hostapis(sd.default.hostapi)
    except sd.PortAudioError as exc:
        reason = f"Playback is off: the audio system did not answer ({describe_error(exc)})."
        return AudioStatus(False, reason, recording_reason=_recording_sentence(reason))
    wanted = set(hostapi["devices"])
    outputs = [
        (int(d["index"]), str(d["name"]))
        for d in devices
        if d["index"] in wanted and d["max_output_channels"] > 0
    ]
    inputs = [
        (int(d["index"]), str(d["name"]))
        for d in devices
        if d["index"] in wanted and d["max_input_channels"] > 0
    ]
    return AudioStatus(
        available=bool(outputs),
        reason=None if outputs else NO_OUTPUT_DEVICE,
        output_devices=outputs,
        input_devices=inputs,
        default_output=_default_index(hostapi["default_output_device"]) if outputs else None,
        default_input=_default_index(hostapi["default_input_device"]) if inputs else None,
        recording_reason=None if inputs else NO_INPUT_DEVICE,
    )


def describe_error(exc: BaseException) -> str:
    """PortAudio's own words, without the error code sounddevice appends."""
    args = getattr(exc, "args", ())
    text = str(args[0]) if args else str(exc)
    return text.strip().rstrip(".") or type(exc).__name__


def _supported_rate(sd: Any, kind: str, device: int | None, samplerate: int) -> int:
    """``samplerate`` if the device takes it, else the device's own default rate."""
    check = sd.check_output_settings if kind == "output" else sd.check_input_settings
    try:
        check(device=device, channels=1, dtype="float32", samplerate=samplerate)
        return int(samplerate)
    except (sd.PortAudioError, ValueError):
        info = sd.query_devices(device, kind=kind)
        return int(info["default_samplerate"])


def _open(kind: str, callback: Callable[..., None], samplerate: int, device: int | None) -> Any:
    sd = import_sounddevice("playback" if kind == "output" else "recording")
    what = "output" if kind == "output" else "input"
    action = "Playback" if kind == "output" else "Recording"
    try:
        rate = _supported_rate(sd, kind, device, samplerate)
        cls = sd.OutputStream if kind == "output" else sd.InputStream
        # 'high' latency: a Python callback shares the GIL with the rest of the app, and
        # larger buffers ride out the pauses that would otherwise be audible as clicks.
        return cls(
            samplerate=rate,
            device=device,
            channels=1,
            dtype="float32",
            latency="high",
            callback=callback,
        )
    except (sd.PortAudioError, ValueError) as exc:
        # PortAudio's words ("Error querying device -1") go to the log, not the window.
        log.warning("opening the %s device %s failed: %s", what, device, describe_error(exc))
        if device is None and _no_default(sd, kind):
            raise AudioError(NO_OUTPUT_DEVICE if kind == "output" else NO_INPUT_DEVICE) from None
        raise AudioError(
            f"{action} failed: the audio {what} device could not be opened (it may be in use "
            "by another program, or unplugged); choose another in Settings."
        ) from None


def _no_default(sd: Any, kind: str) -> bool:
    """Whether PortAudio has no default device of that kind (it says "device -1")."""
    try:
        return int(sd.query_hostapis(sd.default.hostapi)[f"default_{kind}_device"]) < 0
    except Exception:  # the audio system did not answer that either: no usable device
        return True


def open_output_stream(
    callback: Callable[..., None], samplerate: int, device: int | None
) -> Stream:
    """An unstarted mono float32 output stream; ``stream.samplerate`` is the rate in use.

    When the device refuses ``samplerate`` the stream opens at the device's default
    rate instead, and the caller resamples.
    """
    return _open("output", callback, samplerate, device)


def open_input_stream(callback: Callable[..., None], samplerate: int, device: int | None) -> Stream:
    """An unstarted mono float32 input stream, at ``samplerate`` or the device's default rate."""
    return _open("input", callback, samplerate, device)


def close_quietly(stream: Stream | None) -> None:
    """Abort and close a stream, ignoring a device that already went away."""
    if stream is None:
        return
    for step in (stream.abort, stream.close):
        try:
            step()
        except Exception:  # the stream is being thrown away; its device may be gone
            log.debug("closing an audio stream failed", exc_info=True)
