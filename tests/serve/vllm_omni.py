"""vLLM-Omni 0.30's own speech request model, read from its installed wheel.

CI installs the wheel with ``--no-deps`` (its dependency list is vLLM's: torch,
diffusers, onnxruntime and more), so the package itself cannot be imported:
``vllm_omni/__init__.py`` imports vLLM. Its request model,
``vllm_omni/entrypoints/openai/protocol/audio.py``, needs only pydantic and numpy,
so it is loaded on its own from the file the wheel installed. No shim: nothing of
vLLM is stubbed. A missing or different wheel fails the tests that use it.

:class:`FakeVllmOmni` answers as its serving code does for OmniVoice, for the client's
tests (tests/serve/test_vllm_omni_answers.py).
"""

from __future__ import annotations

import base64
import importlib.metadata
import importlib.util
import io
import json
import warnings
from types import ModuleType

import numpy as np
import soundfile as sf

from tests.serve.hostile import json_response, response

VERSION = "0.30.0"
PROTOCOL = "vllm_omni/entrypoints/openai/protocol/audio.py"


def speech_protocol() -> ModuleType:
    """The module holding ``OpenAICreateSpeechRequest``, as vLLM-Omni ships it."""
    try:
        wheel = importlib.metadata.distribution("vllm-omni")
    except importlib.metadata.PackageNotFoundError:
        raise AssertionError(f"vllm-omni is not installed; install it with pip install "
                             f"--no-deps vllm-omni=={VERSION} (the README's test command "
                             "does).") from None
    assert wheel.version == VERSION, f"vllm-omni {wheel.version} installed, {VERSION} expected"
    path = wheel.locate_file(PROTOCOL)
    spec = importlib.util.spec_from_file_location("vllm_omni_protocol_audio", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # its CreateAudio keeps pydantic 1's class Config
        warnings.simplefilter("ignore", DeprecationWarning)
        spec.loader.exec_module(module)
    return module


# -- a fake vLLM-Omni 0.30 serving OmniVoice ---------------------------------------------

RATE = 24000
SPOKEN = (0.3 * np.sin(2 * np.pi * 220 * np.arange(RATE // 2) / RATE) * 32767).astype("<i2")
MODELS = b'{"object": "list", "data": [{"id": "k2-fsa/OmniVoice", "owned_by": "vllm"}]}'
VOICES = b'{"voices": ["narrator"], "uploaded_voices": []}'


def _pieces(data: bytes, count: int = 5) -> list[bytes]:
    """``data`` in ``count`` pieces of odd sizes: a piece may end mid-sample."""
    step = len(data) // count + 1
    return [data[at:at + step] for at in range(0, len(data), step)]


def _sse(payload: dict) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def sse_body(pcm: bytes, pieces: int = 5) -> bytes:
    deltas = b"".join(_sse({"type": "speech.audio.delta", "response_format": "pcm",
                            "audio": base64.b64encode(piece).decode("ascii")})
                      for piece in _pieces(pcm, pieces))
    return deltas + _sse({"type": "speech.audio.done", "usage": {"input_tokens": 3}})


class FakeVllmOmni:
    """Answers ``/v1/audio/speech`` as vLLM-Omni 0.30's serving code does, reading each
    request with its own model: in ``"ar"`` mode a raw audio stream
    (``is_raw_audio_stream``), SSE events (``is_sse_stream``) or the whole file; in
    ``"diffusion"`` mode (how OmniVoice is usually served) the whole file in the asked
    ``response_format`` whatever the stream fields say. A request the model refuses, or
    a stream at a speed other than 1 (OmniVoice has no native speed control), is a 400
    with vLLM's error body. ``asked`` keeps each request as parsed."""

    def __init__(self, mode: str):
        self.mode = mode
        self.model = speech_protocol().OpenAICreateSpeechRequest
        self.asked: list = []
        self.answered: list[str] = []

    def probe(self, send) -> None:
        send(json_response(VOICES if b"/v1/audio/voices" in send.request_line else MODELS))

    def speech(self, send) -> None:
        try:
            request = self.model.model_validate_json(send.body)
        except ValueError as exc:
            return self._refuse(send, str(exc).splitlines()[0])
        self.asked.append(request)
        pcm = SPOKEN.tobytes()
        if self.mode == "ar" and request.is_streaming() and request.speed != 1.0:
            return self._refuse(send, "Streaming is not supported with speed adjustment.")
        if self.mode == "ar" and request.is_raw_audio_stream():
            self.answered.append("raw")
            send(response("200 OK", {"content-type": "audio/pcm",
                                     "transfer-encoding": "chunked"}))
            for piece in _pieces(pcm):
                send(b"%x\r\n%s\r\n" % (len(piece), piece))
            send(b"0\r\n\r\n")
        elif self.mode == "ar" and request.is_sse_stream():
            self.answered.append("sse")
            body = sse_body(pcm)
            send(response("200 OK", {"content-type": "text/event-stream; charset=utf-8",
                                     "content-length": str(len(body))}, body))
        else:
            self.answered.append("whole " + request.response_format)
            if request.response_format == "pcm":
                body, kind = pcm, "audio/pcm"
            else:
                buffer = io.BytesIO()
                sf.write(buffer, SPOKEN, RATE, format=request.response_format.upper())
                body, kind = buffer.getvalue(), f"audio/{request.response_format}"
            send(response("200 OK", {"content-type": kind,
                                     "content-length": str(len(body))}, body))

    def _refuse(self, send, message: str) -> None:
        body = json.dumps({"error": {"message": message, "type": "BadRequestError",
                                     "param": None, "code": 400}}).encode()
        send(json_response(body, "400 Bad Request"))
