"""A finished take as the bytes of the response_format asked for.

libsndfile writes all five: WAV and FLAC as 16-bit PCM (as the studio's files), MP3,
Opus in an Ogg container, and raw 16-bit little-endian PCM (OpenAI's ``pcm``), the
same samples a WAV holds. Streams are WAV with an unknown length or raw PCM
(studio.audio.stream_out), sent as they are or, for ``stream_format: "sse"``, as
server-sent events whose JSON carries each piece in base64 (OpenAI's and vLLM-Omni's
``speech.audio.delta``, then ``speech.audio.done``).
"""

from __future__ import annotations

import base64
import io
import json

import numpy as np

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
    import soundfile as sf

    from studio.audio.stream_out import pcm16

    if fmt == "pcm":
        return pcm16(audio)
    kind, subtype = _SOUNDFILE[fmt]
    buffer = io.BytesIO()
    samples = np.clip(np.asarray(audio, np.float32).reshape(-1), -1.0, 1.0)
    sf.write(buffer, samples, sample_rate, format=kind, subtype=subtype)
    return buffer.getvalue()


def sse_event(name: str, **fields) -> bytes:
    """One server-sent event: ``name``, and JSON data whose ``type`` repeats it."""
    data = json.dumps({"type": name, **fields}, separators=(",", ":"))
    return f"event: {name}\ndata: {data}\n\n".encode()


def audio_event(piece: bytes, fmt: str) -> bytes:
    """A ``speech.audio.delta`` event carrying ``piece`` of a ``fmt`` stream or file."""
    from studio.audio.stream_out import SSE_DELTA

    return sse_event(SSE_DELTA, audio=base64.b64encode(piece).decode("ascii"),
                     response_format=fmt)
