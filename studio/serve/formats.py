"""A finished take as the bytes of the response_format asked for.

libsndfile writes all five: WAV and FLAC as 16-bit PCM (as the studio's files), MP3,
Opus in an Ogg container, and raw 16-bit little-endian PCM (OpenAI's ``pcm``), the
same samples a WAV holds. Streams are WAV with an unknown length or raw PCM
(studio.sound.stream_out), sent as they are or, for ``stream_format: "sse"``, as
server-sent events whose JSON carries each piece in base64 (OpenAI's and vLLM-Omni's
``speech.audio.delta``, then ``speech.audio.done``).
"""

from __future__ import annotations

import base64
import json

import numpy as np

from studio.sound import files
from studio.sound.stream_out import pcm16

MEDIA_TYPES = {
    "wav": "audio/wav",
    "flac": "audio/flac",
    "mp3": "audio/mpeg",
    "opus": "audio/ogg",
    "pcm": "audio/pcm",
}
_SOUNDFILE = {
    "wav": ("WAV", "PCM_16"),
    "flac": ("FLAC", "PCM_16"),
    "mp3": ("MP3", "MPEG_LAYER_III"),
    "opus": ("OGG", "OPUS"),
}


def encode(audio: np.ndarray, sample_rate: int, fmt: str) -> bytes:
    if fmt == "pcm":
        return pcm16(audio)
    kind, subtype = _SOUNDFILE[fmt]
    return files.encode(audio, sample_rate, kind, subtype)


def sse_event(name: str, **fields) -> bytes:
    """One server-sent event: ``name``, and JSON data whose ``type`` repeats it."""
    data = json.dumps({"type": name, **fields}, separators=(",", ":"))
    return f"event: {name}\ndata: {data}\n\n".encode()


def audio_event(piece: bytes, fmt: str) -> bytes:
    """A ``speech.audio.delta`` event carrying ``piece`` of a ``fmt`` stream or file."""
    from studio.sound.stream_out import SSE_DELTA

    return sse_event(SSE_DELTA, audio=base64.b64encode(piece).decode("ascii"),
                     response_format=fmt)
