"""A speech server reached over HTTP (httpx): what it is, and renders through it.

Connecting is retried (a refused or reset connect never reached the server, so
trying again is safe); a request that reached it never is, since a render costs the
server real work. Every response is read as a stream and a streamed render hands
each piece on as it arrives. Cancel shuts the render's socket down, which wakes a
read blocked on a server still rendering (closing the client would not) and tells
the server its client left; each render has a client (so a connection) of its own
for that. Every way it can fail is one :class:`UserError` sentence that names the
server; the caller writes nothing until the audio is whole.
"""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from studio.engine.errors import UserError
from studio.remote.dialects import DIALECTS, Dialect, RemoteRequest, dialect

CONNECT_RETRIES = 2
CONNECT_TIMEOUT_S = 10.0
DEFAULT_TIMEOUT_S = 600.0  # a long text at many steps renders for minutes before a byte
PCM_RATE = 24000  # OmniVoice's rate, for a PCM stream whose server does not say
CANCEL_POLL_S = 0.05


class RemoteCancelled(Exception):
    """The caller's cancel event was set; the request was closed."""


@dataclass
class ServerInfo:
    url: str
    dialect: str
    models: list[str]
    voices: list[str]
    reported: dict = field(default_factory=dict)  # what /health and /v1/models said

    @property
    def model(self) -> str | None:
        return self.models[0] if self.models else None


@dataclass
class RemoteResult:
    audio: np.ndarray  # (T,) float32
    sample_rate: int
    seed: int | None  # the server's, where it reports one
    model: str | None
    dialect: str
    reported: dict  # response headers worth keeping on the take


def _short(message: object) -> str:
    """A server's message as part of one of our sentences: one line, no '|', bounded."""
    text = " ".join(str(message).split()).replace("|", "/")
    text = text[:197] + "..." if len(text) > 200 else text
    return text.rstrip(". ") or "no reason given"


def server_message(response) -> str:
    """The reason a server gave, from the error shapes of OpenAI, vLLM, FastAPI and
    omnivoice-server."""
    try:
        body = response.json()
    except Exception:
        return _short(response.text[:300]) if response.text.strip() else f"HTTP {response.status_code}"
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        detail = error.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):
            where = detail[0].get("loc", [])
            name = where[-1] if isinstance(where, list) and where else "request"
            return _short(f"{name}: {detail[0].get('msg', 'invalid')}")
        for key in ("message", "detail", "error"):
            if isinstance(error.get(key), str):
                return _short(error[key])
    return _short(error)


class RemoteBackend:
    """One server: ``info()`` to probe it, ``render()`` to speak through it."""

    def __init__(self, url: str, api_key: str | None = None, dialect_name: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S):

        url = url.strip().rstrip("/")
        if url.endswith("/v1"):
            url = url[:-3]
        if not url.startswith(("http://", "https://")):
            raise UserError(f"The backend address {url[:100]} must start with http:// or "
                            "https://.")
        if dialect_name is not None and dialect_name not in DIALECTS:
            raise UserError(f"Unknown server dialect {dialect_name!r}; use "
                            f"{', '.join(DIALECTS)}.")
        self.url, self.timeout = url, timeout
        self._dialect_name = dialect_name
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = self._new_client()  # for the probes; each render has its own
        self._info: ServerInfo | None = None

    def _new_client(self):
        import httpx

        return httpx.Client(
            base_url=self.url, headers=self._headers,
            timeout=httpx.Timeout(self.timeout, connect=CONNECT_TIMEOUT_S),
            transport=httpx.HTTPTransport(retries=CONNECT_RETRIES))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteBackend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ errors

    def _failure(self, exc: Exception) -> UserError:
        import httpx

        if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
            return UserError(f"The server at {self.url} did not answer within "
                             f"{self.timeout:g} s; it may be busy, or give it longer.")
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return UserError(f"The server at {self.url} cannot be reached; check the address "
                             "and that the server is running.")
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            return UserError(f"The connection to {self.url} broke before the audio was "
                             "complete; nothing was saved.")
        return UserError(f"Talking to the server at {self.url} failed ({_short(exc)}).")

    def _refusal(self, response) -> UserError:
        status = response.status_code
        if status in (401, 403):
            return UserError(f"The server at {self.url} refused the API key; check the key "
                             "(Settings, or --api-key).")
        message = server_message(response)
        if status == 413:
            return UserError(f"The server at {self.url} refused the request as too large "
                             f"({message}); send a shorter text or clip.")
        if status == 429:
            wait = response.headers.get("retry-after", "a few")
            return UserError(f"The server at {self.url} is busy; try again in {wait} s.")
        if status >= 500:
            return UserError(f"The server at {self.url} failed to render (HTTP {status}): "
                             f"{message}.")
        return UserError(f"The server at {self.url} refused the request: {message}.")

    def _get_json(self, path: str, required: bool = True):
        import httpx

        try:
            response = self._client.get(path)
        except httpx.HTTPError as exc:
            raise self._failure(exc) from None
        if response.status_code in (401, 403) or (required and response.is_error):
            raise self._refusal(response)
        if response.is_error:
            return None
        try:
            return response.json()
        except ValueError:
            if required:
                raise UserError(f"The server at {self.url} is not a speech server (its "
                                f"{path} is not JSON).") from None
            return None

    # ------------------------------------------------------------------- probe

    def info(self) -> ServerInfo:
        """What the server is: its dialect (as set, or told by what it reports), models
        and voices."""
        if self._info is not None:
            return self._info
        models = self._get_json("/v1/models")
        health = self._get_json("/health", required=False)
        entries = models.get("data", []) if isinstance(models, dict) else []
        entries = [m for m in entries if isinstance(m, dict)]
        owners = {m.get("owned_by") for m in entries}
        name = self._dialect_name
        if name is None:
            if "omnivoice-desktop" in owners:
                name = "omnivoice-desktop"
            elif "k2-fsa" in owners or (isinstance(health, dict) and "model_loaded" in health):
                name = "omnivoice-server"
            else:
                name = "vllm-omni"
        chosen = dialect(name)
        voices = self._get_json(chosen.voices_path(), required=False)
        listed = voices.get("voices", []) if isinstance(voices, dict) else []
        names = [v.get("id") or v.get("name") if isinstance(v, dict) else v for v in listed]
        self._info = ServerInfo(
            url=self.url, dialect=name,
            models=[str(m.get("id")) for m in entries if m.get("id")],
            voices=[str(n) for n in names if n],
            reported={"health": health if isinstance(health, dict) else None,
                      "owned_by": sorted(o for o in owners if isinstance(o, str))})
        return self._info

    # ------------------------------------------------------------------ render

    def render(self, request: RemoteRequest,
               on_chunk: Callable[[np.ndarray, int], None] | None = None,
               cancel: threading.Event | None = None) -> RemoteResult:
        """Render ``request``; a streamed one hands each piece to ``on_chunk(samples, rate)``
        as it comes."""
        import httpx

        info = self.info()
        chosen: Dialect = dialect(info.dialect)
        if request.ref_audio is not None and not (request.ref_text or "").strip():
            raise UserError(f"The server at {self.url} needs the reference clip's transcript; "
                            "give it (--ref-text).")
        call = chosen.speech(request, info.model)
        sockets: list[socket.socket] = []

        def trace(event: str, detail: dict) -> None:
            if event == "connection.connect_tcp.complete":
                stream = detail.get("return_value")
                sock = stream.get_extra_info("socket") if stream is not None else None
                if sock is not None:
                    sockets.append(sock)

        done = threading.Event()
        if cancel is not None:
            threading.Thread(target=_shut_on_cancel, args=(cancel, done, sockets),
                             name="remote-cancel", daemon=True).start()
        try:
            with self._new_client() as client, client.stream(
                    "POST", call.path, json=call.json, data=call.data, files=call.files,
                    extensions={"trace": trace}) as response:
                if response.is_error:
                    response.read()
                    raise self._refusal(response)
                return self._receive(response, request, info, on_chunk, cancel)
        except httpx.HTTPError as exc:
            if cancel is not None and cancel.is_set():
                raise RemoteCancelled() from None
            raise self._failure(exc) from None
        finally:
            done.set()

    def _receive(self, response, request, info, on_chunk, cancel) -> RemoteResult:
        kind = response.headers.get("content-type", "")
        if kind.startswith(("application/json", "text/")):
            raise UserError(f"The server at {self.url} answered with something that is not "
                            "audio; check that the address is a speech server.")
        rate = int(response.headers.get("x-audio-sample-rate", PCM_RATE))
        pieces: list[np.ndarray] = []
        if request.stream:
            decoder = _PcmStream(wav="wav" in kind)
            for data in response.iter_bytes():
                if cancel is not None and cancel.is_set():
                    raise RemoteCancelled()
                samples = decoder.feed(data)
                if decoder.rate:
                    rate = decoder.rate
                if samples.size:
                    pieces.append(samples)
                    if on_chunk is not None:
                        on_chunk(samples, rate)
            audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
        else:
            data = bytearray()
            for part in response.iter_bytes():
                if cancel is not None and cancel.is_set():
                    raise RemoteCancelled()
                data += part
            audio, rate = self._decode(bytes(data))
            if on_chunk is not None and audio.size:
                on_chunk(audio, rate)
        if audio.size == 0:
            raise UserError(f"The server at {self.url} sent no audio; nothing was saved.")
        seed = response.headers.get("x-seed")
        reported = {k: v for k, v in response.headers.items()
                    if k.lower().startswith("x-") and len(v) < 200}
        return RemoteResult(audio, rate, int(seed) if seed and seed.isdigit() else request.seed,
                            response.headers.get("x-model") or info.model, info.dialect,
                            reported)

    def _decode(self, data: bytes) -> tuple[np.ndarray, int]:
        import soundfile as sf

        try:
            wave, rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
        except Exception:
            raise UserError(f"The server at {self.url} sent audio that cannot be read; "
                            "nothing was saved.") from None
        return np.ascontiguousarray(wave.mean(axis=1), dtype=np.float32), int(rate)


def _shut_on_cancel(cancel: threading.Event, done: threading.Event,
                    sockets: list[socket.socket]) -> None:
    while not done.wait(CANCEL_POLL_S):
        if cancel.is_set():
            for sock in sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:  # already closed: nothing to wake
                    pass
            return


class _PcmStream:
    """16-bit little-endian PCM in pieces of any size (a WAV stream's header first)."""

    def __init__(self, wav: bool):
        self._header = wav
        self._held = b""
        self.rate: int | None = None

    def feed(self, data: bytes) -> np.ndarray:
        self._held += data
        if self._header:
            if len(self._held) < 44:
                return np.zeros(0, np.float32)
            self.rate = int.from_bytes(self._held[24:28], "little")
            self._held, self._header = self._held[44:], False
        usable = len(self._held) - len(self._held) % 2
        samples = np.frombuffer(self._held[:usable], "<i2").astype(np.float32) / 32768.0
        self._held = self._held[usable:]
        return samples
