"""A speech server reached over HTTP (httpx): what it is, and renders through it.

Connecting is retried (a refused or reset connect never reached the server, so
trying again is safe); a request that reached it never is, since a render costs the
server real work. Every response is read as a stream, never past what it can
legitimately be (:mod:`studio.remote.answers`), and a streamed render hands each
piece on as it arrives: raw PCM (or a WAV stream), the whole file (vLLM-Omni's
diffusion mode sends one even when a stream is asked), or server-sent speech events
(:mod:`studio.remote.sse`), read whichever comes. ``timeout`` is a deadline for a whole exchange (the probe's
requests together, or one render: connect, upload, headers and body), and cancel
ends a render at once: both shut the exchange's sockets down
(:mod:`studio.remote.deadline`), which also tells the server its client left. Every
way it can fail is one :class:`UserError` sentence that names the server; the
caller writes nothing until the audio is whole.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from studio.errors import UserError
from studio.remote import answers, sse
from studio.remote.deadline import Exchange
from studio.remote.dialects import DIALECTS, Dialect, RemoteRequest, dialect
from studio.remote.pcm import PcmStream, Samples
from studio.sound.stream_out import SSE_DELTA, SSE_DONE, SSE_ERROR

CONNECT_RETRIES = 2
CONNECT_TIMEOUT_S = 10.0  # a try; the tries share what is left of the deadline
# A render's whole exchange: a long text at many steps renders for many minutes.
DEFAULT_TIMEOUT_S = 1800.0
PROBE_TIMEOUT_S = 60.0  # /v1/models, /health and the voices together: small answers
MAX_TIMEOUT_S = 7 * 86_400.0
PCM_RATE = 24000  # OmniVoice's rate, for a PCM stream whose server does not say


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


def server_message(status: int, body: bytes) -> str:
    """The reason a server gave (the first sentence of it), from the error shapes of
    OpenAI, vLLM, FastAPI and omnivoice-server; ``body`` is the error body's start."""
    import json

    text = body.decode("utf-8", errors="replace")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        said = answers.first_sentence(text)
        return _short(said) if said else f"HTTP {status}"
    error = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(error, dict):
        detail = error.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):
            where = detail[0].get("loc", [])
            name = where[-1] if isinstance(where, list) and where else "request"
            said = f"{_short(name)}: {detail[0].get('msg', 'invalid')}"
            return _short(answers.first_sentence(said))
        for key in ("message", "detail", "error"):
            if isinstance(error.get(key), str):
                return _short(answers.first_sentence(error[key]))
    return _short(answers.first_sentence(str(error)[:1000]))


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
        if (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                or not 0 < timeout <= MAX_TIMEOUT_S):  # NaN fails the comparison too
            raise UserError(f"The timeout {str(timeout)[:24]} is not a number of seconds from "
                            f"0 to {MAX_TIMEOUT_S:g}; give the server a few minutes, e.g. "
                            "--timeout 600.")
        self.url, self.timeout = url, float(timeout)
        self._dialect_name = dialect_name
        # identity: a compressed answer could unpack far past what was read off the wire
        self._headers = {"Accept-Encoding": "identity"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._client = self._new_client()  # for the probes; each render has its own
        self._info: ServerInfo | None = None

    def _new_client(self):
        import httpx

        # No keep-alive: each request connects, so its Exchange learns its socket.
        return httpx.Client(
            base_url=self.url, headers=self._headers,
            limits=httpx.Limits(max_keepalive_connections=0),
            transport=httpx.HTTPTransport(retries=CONNECT_RETRIES))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteBackend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ errors

    def _timeouts(self, exchange: Exchange):
        """httpx's per-operation timeouts, none past the exchange's deadline."""
        import httpx

        left = max(exchange.remaining(), 0.001)
        return httpx.Timeout(left, connect=min(CONNECT_TIMEOUT_S, left / (CONNECT_RETRIES + 1)))

    def _timed_out(self, exchange: Exchange) -> UserError:
        return UserError(f"The server at {self.url} did not answer within "
                         f"{exchange.seconds:g} s; it may be busy, or give it longer.")

    def _failure(self, exc: Exception, exchange: Exchange) -> UserError:
        import httpx

        if exchange.expired or (isinstance(exc, httpx.TimeoutException)
                                and not isinstance(exc, httpx.ConnectTimeout)):
            return self._timed_out(exchange)
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
        message = server_message(status, answers.read_prefix(response, answers.MAX_ERROR_BYTES))
        if status == 413:
            return UserError(f"The server at {self.url} refused the request as too large "
                             f"({message}); send a shorter text or clip.")
        if status == 429:
            wait = answers.retry_after(response.headers)
            when = f"in {wait} s" if wait is not None else "later"
            return UserError(f"The server at {self.url} is busy; try again {when}.")
        if status >= 500:
            return UserError(f"The server at {self.url} failed to render (HTTP {status}): "
                             f"{message}.")
        return UserError(f"The server at {self.url} refused the request: {message}.")

    def _too_large(self, what: str, limit: int) -> Callable[[], UserError]:
        return lambda: UserError(f"The server at {self.url} sent a {what} answer larger than "
                                 f"{limit // answers.KB:,} KB; check that the address is a "
                                 "speech server.")

    def _get_json(self, path: str, exchange: Exchange, required: bool = True):
        import json

        import httpx

        try:
            with self._client.stream("GET", path, timeout=self._timeouts(exchange),
                                     extensions={"trace": exchange.trace}) as response:
                if response.status_code in (401, 403) or (required and response.is_error):
                    raise self._refusal(response)
                if response.is_error:
                    return None
                data = answers.read_bounded(response, answers.MAX_JSON_BYTES,
                                            self._too_large(path, answers.MAX_JSON_BYTES))
        except httpx.HTTPError as exc:
            raise self._failure(exc, exchange) from None
        if exchange.expired:
            raise self._timed_out(exchange)
        try:
            return json.loads(data)
        except (ValueError, RecursionError):
            if required:
                raise UserError(f"The server at {self.url} is not a speech server (its "
                                f"{path} is not JSON).") from None
            return None

    # ------------------------------------------------------------------- probe

    def info(self) -> ServerInfo:
        """What the server is: its dialect (as set, or told by what it reports), models
        and voices; all three asked within one deadline."""
        if self._info is None:
            with Exchange(min(self.timeout, PROBE_TIMEOUT_S)) as exchange:
                self._info = self._probe(exchange)
        return self._info

    def _probe(self, exchange: Exchange) -> ServerInfo:
        models = self._get_json("/v1/models", exchange)
        health = self._get_json("/health", exchange, required=False)
        entries = models.get("data", []) if isinstance(models, dict) else []
        entries = [m for m in entries if isinstance(m, dict)] if isinstance(entries, list) else []
        owners = {o for o in (m.get("owned_by") for m in entries) if isinstance(o, str)}
        name = self._dialect_name
        if name is None:
            if "omnivoice-desktop" in owners:
                name = "omnivoice-desktop"
            elif "k2-fsa" in owners or (isinstance(health, dict) and "model_loaded" in health):
                name = "omnivoice-server"
            else:
                name = "vllm-omni"
        chosen = dialect(name)
        voices = self._get_json(chosen.voices_path(), exchange, required=False)
        listed = voices.get("voices", []) if isinstance(voices, dict) else []
        listed = listed if isinstance(listed, list) else []
        names = [v.get("id") or v.get("name") if isinstance(v, dict) else v for v in listed]
        return ServerInfo(
            url=self.url, dialect=name,
            models=_names(m.get("id") for m in entries), voices=_names(names),
            reported={"health": health if isinstance(health, dict) else None,
                      "owned_by": sorted(owners)})

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
        with Exchange(self.timeout, cancel) as exchange:
            try:
                with self._new_client() as client, client.stream(
                        "POST", call.path, json=call.json, data=call.data, files=call.files,
                        timeout=self._timeouts(exchange),
                        extensions={"trace": exchange.trace}) as response:
                    if response.is_error:
                        raise self._refusal(response)
                    return self._receive(response, request, info, on_chunk, exchange)
            except (httpx.HTTPError, UserError) as exc:
                if exchange.cancelled:
                    raise RemoteCancelled() from None
                if isinstance(exc, UserError):
                    raise
                raise self._failure(exc, exchange) from None

    def _receive(self, response, request, info, on_chunk, exchange: Exchange) -> RemoteResult:
        kind = response.headers.get("content-type", "")
        events = sse.is_event_stream(kind)
        if not events and kind.startswith(("application/json", "text/")):
            raise UserError(f"The server at {self.url} answered with something that is not "
                            "audio; check that the address is a speech server.")
        seconds = answers.audio_seconds_limit(request.text, request.speed)
        limit = answers.audio_byte_limit(seconds)

        def too_much() -> UserError:
            return UserError(f"The server at {self.url} sent more audio than the text can "
                             f"make (over {seconds:.0f} s); nothing was saved.")

        def check() -> None:
            if exchange.cancelled:
                raise RemoteCancelled()
            if exchange.expired:
                raise self._timed_out(exchange)

        if events:  # whatever was asked: OpenAI and vLLM-Omni 0.30 send these for stream: true
            samples = Samples(self._stream_rate(response), seconds, too_much, on_chunk)
            self._receive_events(response, answers.event_stream_byte_limit(limit), samples,
                                 too_much, check)
            audio, rate = samples.audio(), samples.rate
        elif request.stream:  # raw PCM or WAV; or the whole take, as diffusion mode sends
            wav = "wav" in kind  # its own header has the rate
            samples = Samples(PCM_RATE if wav else self._stream_rate(response), seconds,
                               too_much, on_chunk)
            self._receive_stream(response, wav, limit, samples, too_much, check)
            audio, rate = samples.audio(), samples.rate
        else:
            data = answers.read_bounded(response, limit, too_much, check)
            audio, rate = self._decode(data, seconds, too_much)
            if on_chunk is not None and audio.size:
                on_chunk(audio, rate)
        check()
        if audio.size == 0:
            raise UserError(f"The server at {self.url} sent no audio; nothing was saved.")
        seed = answers.seed_of(response.headers)
        model = answers.printable(response.headers.get("x-model", "")) or info.model
        return RemoteResult(audio, rate, seed if seed is not None else request.seed,
                            model, info.dialect, answers.kept_headers(response.headers.items()))

    def _stream_rate(self, response) -> int:
        """A PCM stream's sample rate as its header says, else OmniVoice's."""
        said = response.headers.get("x-audio-sample-rate")
        if said is None:
            return PCM_RATE
        rate = answers.whole_number(said, *answers.RATE_RANGE)
        if rate is None:
            raise self._bad_rate(said)
        return rate

    def _receive_stream(self, response, wav, limit, samples, too_much, check) -> None:
        """A 16-bit PCM stream (or WAV stream), each piece handed on as it comes; at
        most ``limit`` bytes."""
        declared = answers.content_length(response.headers)
        if declared is not None and declared > limit:
            raise too_much()
        decoder = PcmStream(wav=wav)
        received = 0
        for data in response.iter_bytes():
            check()
            received += len(data)
            if received > limit:
                raise too_much()
            self._add(samples, decoder, data)

    def _receive_events(self, response, limit, samples, too_much, check) -> None:
        """Server-sent speech events (:mod:`studio.remote.sse`): each delta's audio handed
        on as it comes, until the done event; at most ``limit`` bytes of events."""
        declared = answers.content_length(response.headers)
        if declared is not None and declared > limit:
            raise too_much()
        reader, decoder = sse.EventReader(), None
        received = 0
        try:
            for data in response.iter_bytes():
                check()
                received += len(data)
                if received > limit:
                    raise too_much()
                for event in reader.feed(data):
                    if event.name == SSE_DONE:
                        return
                    decoder = self._event(event, samples, decoder)
            for event in reader.close():
                if event.name == SSE_DONE:
                    return
                decoder = self._event(event, samples, decoder)
        except sse.EventStreamError as exc:
            raise UserError(f"The server at {self.url} sent a stream event that cannot be "
                            f"read ({exc}); nothing was saved.") from None
        raise UserError(f"The connection to {self.url} broke before the audio was complete; "
                        "nothing was saved.")

    def _event(self, event: sse.Event, samples: Samples, decoder: PcmStream | None):
        """One event before the done one: a delta's audio goes to ``samples``; the decoder
        (made at the first delta, WAV or PCM as it says) is returned for the next."""
        if event.name == SSE_ERROR:
            error = event.data.get("error")
            said = error.get("message") if isinstance(error, dict) else error
            message = _short(answers.first_sentence(said)) if isinstance(said, str) else None
            raise UserError(f"The server at {self.url} failed while rendering: "
                            f"{message or 'no reason given'}; nothing was saved.")
        if event.name != SSE_DELTA:
            return decoder  # events we do not know of carry no audio for us
        audio = event.data.get("audio")
        try:
            piece = base64.b64decode(audio, validate=True) if isinstance(audio, str) else None
        except ValueError:
            piece = None
        if piece is None:
            raise sse.EventStreamError("its audio is not base64")
        if decoder is None:
            decoder = PcmStream(wav=event.data.get("response_format") == "wav")
        self._add(samples, decoder, piece)
        return decoder

    def _add(self, samples: Samples, decoder: PcmStream, data: bytes) -> None:
        pcm = decoder.feed(data)
        if decoder.rate is not None:
            if not answers.rate_ok(decoder.rate):
                raise self._bad_rate(decoder.rate)
            samples.rate = decoder.rate
        samples.add(pcm)

    def _bad_rate(self, rate: object) -> UserError:
        return UserError(f"The server at {self.url} gave the sample rate {_short(rate)[:24]!r}, "
                         f"not one from {answers.RATE_RANGE[0]:,} to {answers.RATE_RANGE[1]:,} "
                         "Hz; nothing was saved.")

    def _decode(self, data: bytes, seconds: float,
                too_much: Callable[[], UserError]) -> tuple[np.ndarray, int]:
        from studio.sound import files

        unreadable = UserError(f"The server at {self.url} sent audio that cannot be read; "
                               "nothing was saved.")
        try:
            header = files.header(data)
        except Exception:
            raise unreadable from None
        # The header, before decoding: a compressed file can claim hours in a few KB.
        if not answers.rate_ok(header.samplerate):
            raise self._bad_rate(header.samplerate)
        if (header.frames / header.samplerate > seconds
                or header.frames * header.channels > seconds * answers.MAX_SAMPLES_PER_S):
            raise too_much()
        try:
            wave, rate = files.decode(data)
        except Exception:
            raise unreadable from None
        if wave.shape[0] / rate > seconds:  # a header that understated its length
            raise too_much()
        wave = wave[:, 0] if wave.shape[1] == 1 else wave.mean(axis=1)
        if not np.isfinite(wave).all():  # float WAVs can hold NaN and infinity
            raise UserError(f"The server at {self.url} sent audio whose samples are not all "
                            "numbers; nothing was saved.")
        return np.ascontiguousarray(wave, dtype=np.float32), int(rate)


def _names(values) -> list[str]:
    """The model or voice names a server listed that we can show and send back."""
    names = (str(v) for v in values if isinstance(v, (str, int)) and not isinstance(v, bool))
    return [n for n in names if n.strip() and answers.printable(n)]
