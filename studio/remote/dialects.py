"""How each speech server we know wants a request spelled.

* ``vllm-omni`` (0.30): OpenAI's ``/v1/audio/speech`` JSON with OmniVoice's extras:
  ``instructions`` (a design), ``language``, ``seed``, ``ref_audio`` as a data URI
  with ``ref_text``, and ``extra_params`` holding ``num_inference_steps`` and
  ``guidance_scale``. A stream is ``stream_format: "audio"`` with PCM (its
  ``stream: true`` means SSE events); it streams only at speed 1 (OmniVoice does not
  control speed itself), so at another speed the whole take comes as PCM. No
  ``sample_rate``: OmniVoice's adapter lists no output rates, so any is refused.
  tests/serve/test_vllm_omni_schema.py checks all of this against its own model.
* ``omnivoice-server`` (PyPI): the same endpoint for designs, with ``num_step`` and
  ``guidance_scale`` at the top level; a clone goes to ``/v1/audio/speech/clone`` as
  multipart form data with the clip as a file. Streams are raw PCM only.
* ``omnivoice-desktop`` (our ``serve``): vLLM-Omni's shape, plus ``steps``,
  ``guidance`` and the two temperatures, so a remote take can equal a local one.

A dialect only builds requests; :mod:`studio.remote.client` sends them. What a
server cannot do is said by :attr:`Dialect.ignores`, so the client can name it.
"""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import dataclass

DIALECTS = ("vllm-omni", "omnivoice-server", "omnivoice-desktop")


@dataclass(frozen=True)
class RemoteRequest:
    text: str
    language: str | None = None
    instruct: str | None = None  # a voice design
    voice: str | None = None  # a voice the server knows by name
    ref_audio: bytes | None = None  # a reference clip's file, to clone
    ref_name: str = "reference.wav"
    ref_text: str | None = None
    steps: int = 32
    guidance: float = 2.0
    seed: int | None = None
    speed: float | None = None
    position_temperature: float = 5.0
    class_temperature: float = 0.0
    stream: bool = False


@dataclass(frozen=True)
class HttpCall:
    path: str
    json: dict | None = None
    data: dict | None = None
    files: dict | None = None


def _data_uri(request: RemoteRequest) -> str:
    kind = mimetypes.guess_type(request.ref_name)[0] or "audio/wav"
    return f"data:{kind};base64,{base64.b64encode(request.ref_audio).decode('ascii')}"


def _openai_base(request: RemoteRequest, model: str | None) -> dict:
    body = {"input": request.text, "response_format": "pcm" if request.stream else "wav"}
    if model:
        body["model"] = model
    if request.stream:
        body["stream"] = True
    for key, value in (("language", request.language), ("seed", request.seed),
                       ("speed", request.speed), ("instructions", request.instruct),
                       ("voice", request.voice)):
        if value is not None:
            body[key] = value
    if request.ref_audio is not None:
        body["ref_audio"] = _data_uri(request)
        body["ref_text"] = request.ref_text
    return body


class Dialect:
    name = ""
    ignores: tuple[str, ...] = ()  # settings this server does not take

    def speech(self, request: RemoteRequest, model: str | None) -> HttpCall:
        raise NotImplementedError

    def voices_path(self) -> str:
        return "/v1/voices"


class VllmOmni(Dialect):
    name = "vllm-omni"
    ignores = ("position temperature", "class temperature")

    def speech(self, request, model):
        body = _openai_base(request, model)
        if body.pop("stream", False) and request.speed in (None, 1.0):
            body["stream_format"] = "audio"
        body["extra_params"] = {"num_inference_steps": request.steps,
                                "guidance_scale": request.guidance}
        return HttpCall("/v1/audio/speech", json=body)

    def voices_path(self):
        return "/v1/audio/voices"


class OmnivoiceServer(Dialect):
    name = "omnivoice-server"

    def _params(self, request: RemoteRequest) -> dict:
        params = {"num_step": request.steps, "guidance_scale": request.guidance,
                  "position_temperature": request.position_temperature,
                  "class_temperature": request.class_temperature,
                  "response_format": "pcm" if request.stream else "wav",
                  "stream": request.stream}
        for key, value in (("language", request.language), ("seed", request.seed),
                           ("speed", request.speed)):
            if value is not None:
                params[key] = value
        return params

    def speech(self, request, model):
        params = self._params(request)
        if request.ref_audio is not None:
            form = {key: str(value).lower() if isinstance(value, bool) else str(value)
                    for key, value in params.items()}
            form.update(text=request.text, ref_text=request.ref_text or "")
            files = {"ref_audio": (request.ref_name, request.ref_audio,
                                   mimetypes.guess_type(request.ref_name)[0] or "audio/wav")}
            return HttpCall("/v1/audio/speech/clone", data=form, files=files)
        body = {"model": model or "omnivoice", "input": request.text, **params}
        if request.instruct is not None:
            body["instructions"] = request.instruct
        body["voice"] = request.voice or "auto"
        return HttpCall("/v1/audio/speech", json=body)


class OmnivoiceDesktop(Dialect):
    name = "omnivoice-desktop"

    def speech(self, request, model):
        body = _openai_base(request, model)
        body.update(steps=request.steps, guidance=request.guidance,
                    position_temperature=request.position_temperature,
                    class_temperature=request.class_temperature)
        return HttpCall("/v1/audio/speech", json=body)


def dialect(name: str) -> Dialect:
    return {d.name: d for d in (VllmOmni(), OmnivoiceServer(), OmnivoiceDesktop())}[name]
