"""The HTTP face of ``omnivoice-desktop serve``: FastAPI routes over one Renderer.

Every refusal is a JSON body in OpenAI's error shape, ``{"error": {"message": one
sentence, "type": ..., "code": status}}``, so the OpenAI SDK shows the sentence; no
traceback reaches a client or the terminal (an unexpected failure goes to the log
file). The key is compared in constant time; ``/health`` needs none, so a load
balancer can probe without it.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from contextlib import aclosing
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from studio.errors import UserError
from studio.serve.formats import MEDIA_TYPES, audio_event, encode, sse_event
from studio.serve.headers import SafeHeaders, header_value
from studio.serve.intake import BodyBudget, read_speech
from studio.serve.renderer import QueueFull, Renderer, Ticket
from studio.serve.request import (
    JUDGE_HEADER,
    MAX_BODY_BYTES,
    RequestError,
    TooLarge,
    Unauthorized,
    apply_judge_header,
    check_request,
)
from studio.serve.scores import score_headers
from studio.serve.voices import resolve_voice, saved_voices
from studio.sound.stream_out import SSE_DONE, SSE_ERROR, SSE_MEDIA_TYPE

log = logging.getLogger(__name__)

CLEANUP_HEADER = "X-OmniVoice-Cleanup"  # what cleaning the request's ref_audio did
SERVER_NAME = "omnivoice-desktop"  # what /v1/models and /health say, for client detection
DISCONNECT_POLL_S = 0.5  # how often a waiting request checks that its client is still there
_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 408: "timeout_error", 413: "request_too_large",
          421: "invalid_request_error", 422: "invalid_request_error", 429: "rate_limit_error"}


def error(status: int, sentence: str, headers: dict | None = None) -> JSONResponse:
    """Every refusal a client reads is made here (or, inside an event stream, by
    :func:`error_body`)."""
    return JSONResponse(status_code=status, headers=headers,
                        content={"error": error_body(status, sentence)})


def error_body(status: int, sentence: str) -> dict:
    """OpenAI's error object: one line, and no path of the server's (the data folder,
    the home folder), which a stranger has no business knowing."""
    from studio.errors import one_line
    from studio.serve.redact import hide_paths

    shown = hide_paths(sentence)
    if shown != sentence:  # the operator's log keeps what the client is not told
        log.info("refused (%d): %s", status, sentence)
    return {"message": one_line(shown), "type": _TYPES.get(status, "server_error"),
            "code": status}


def create_app(renderer: Renderer, api_key: str | None, data_root: Path) -> FastAPI:
    app = FastAPI(title=SERVER_NAME, docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(SafeHeaders)
    started = time.time()
    intake = BodyBudget()  # the bodies being read and parsed at once

    @app.exception_handler(RequestError)
    async def _refused(_request, exc: RequestError):
        return error(exc.status, str(exc), getattr(exc, "headers", None))

    @app.exception_handler(UserError)
    async def _user(_request, exc: UserError):
        return error(400, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request, exc: StarletteHTTPException):
        if exc.status_code == 404:
            return error(404, f"There is nothing at {request.url.path[:100]}; the speech "
                              "endpoint is POST /v1/audio/speech.")
        if exc.status_code == 405:
            return error(405, f"{request.url.path[:100]} does not take {request.method}.")
        return error(exc.status_code, "The request was refused.")

    @app.exception_handler(ClientDisconnect)
    async def _gone(_request, _exc):  # left half-way through its body: nothing to log
        return Response(status_code=499)

    @app.exception_handler(Exception)
    async def _bug(_request, exc: Exception):
        log.error("unexpected failure", exc_info=exc)
        return error(500, "The server failed on this request; the details are in its log "
                          "file.")

    def check_key(request: Request) -> None:
        if not api_key:
            return
        given = request.headers.get("authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
                token.strip().encode(), api_key.encode()):
            raise Unauthorized("The API key is missing or wrong; send it as "
                                    "Authorization: Bearer KEY.")

    @app.get("/health")
    async def health():
        return {"status": "ok", "server": SERVER_NAME, "model": renderer.model_id,
                "model_loaded": renderer.engine is not None,
                "queue": {"admitted": renderer.admitted, "limit": renderer.limit},
                "batch": renderer.batch, "uptime_s": round(time.time() - started, 1)}

    @app.get("/v1/models")
    async def models(request: Request):
        check_key(request)
        return {"object": "list", "data": [{"id": renderer.model_id, "object": "model",
                                            "created": int(started), "owned_by": SERVER_NAME}]}

    @app.get("/v1/voices")
    async def voices(request: Request):
        check_key(request)
        from studio.engine.instruct import CATEGORIES

        saved = await run_in_threadpool(saved_voices, data_root)
        designs = {c.key: [i.en or i.zh for i in c.items] for c in CATEGORIES}
        return {"voices": [{"id": "auto", "type": "auto",
                            "description": "no design: the model picks a voice"}, *saved],
                "design_attributes": designs}

    @app.post("/v1/audio/speech")
    async def speech(request: Request):
        check_key(request)
        parsed = await read_speech(request, intake, read_body)
        apply_judge_header(parsed, request.headers.get(JUDGE_HEADER))
        voice = await run_in_threadpool(resolve_voice, parsed, data_root)
        notes = check_request(parsed, voice)
        if parsed.seed is None and voice.seed is None:
            parsed.seed = secrets.randbits(31)  # known now, so a stream's headers carry it
        ticket = Ticket(parsed, voice, asyncio.get_running_loop())
        try:
            renderer.submit(ticket)
        except QueueFull as full:
            return error(429, f"The server is busy ({renderer.limit} requests are queued or "
                              f"rendering); try again in {full.retry_after} s.",
                         headers={"Retry-After": str(full.retry_after)})
        headers = {"X-Seed": str(parsed.seed if parsed.seed is not None else voice.seed),
                   "X-Model": renderer.model_id,
                   "X-Audio-Sample-Rate": str(renderer.engine.sample_rate)}
        first = await next_event(ticket, request)
        if first is None:
            return Response(status_code=499)  # the client left; nobody reads this
        if first[0] == "error":
            return error(*first[1])
        if ticket.cleanup is not None:  # known before the first event: a stream says it too
            headers[CLEANUP_HEADER] = ticket.cleanup.summary()
            notes = [*notes, *ticket.cleanup.warnings]
        if notes:  # quotes what the user typed: escaped, so it cannot end the header
            headers["X-Warning"] = header_value(" ".join(notes)[:500])
        if parsed.stream:
            finished: dict = {}  # the render's last event, for the SSE done event
            pieces = audio_pieces(ticket, first, parsed.response_format,
                                  renderer.engine.sample_rate, finished)
            if parsed.sse:
                return StreamingResponse(sse_body(pieces, parsed.response_format, finished),
                                         media_type=SSE_MEDIA_TYPE, headers=headers)
            return StreamingResponse(raw_body(pieces),
                                     media_type=MEDIA_TYPES[parsed.response_format],
                                     headers=headers)
        event = first
        while event is not None and event[0] == "chunk":
            event = await next_event(ticket, request)
        if event is None:
            return Response(status_code=499)
        if event[0] == "error":
            return error(*event[1])
        done = event[1]
        data = await run_in_threadpool(encode, done.audio, done.sample_rate,
                                       parsed.response_format)
        headers.update({"X-Batch-Size": str(done.batch_size),
                        "X-Audio-Duration-S": f"{done.audio.shape[-1] / done.sample_rate:.3f}"})
        if done.judgement is not None:
            headers.update(score_headers(done.judgement))
        if parsed.sse:  # a format that cannot stream: the whole file as one event
            return Response(audio_event(data, parsed.response_format)
                            + done_event(done.judgement),
                            media_type=SSE_MEDIA_TYPE, headers=headers)
        return Response(data, media_type=MEDIA_TYPES[parsed.response_format], headers=headers)

    from studio.mcp.http import mount_mcp  # the same tools agents get over stdio, at /mcp

    mount_mcp(app, renderer, data_root, check_key, error)
    return app


async def read_body(request: Request) -> bytes:
    length = request.headers.get("content-length", "")
    too_big = TooLarge(f"The request body is over {MAX_BODY_BYTES // 2**20} MB; "
                                "send a shorter text or a shorter reference clip.")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise too_big
    parts, size = [], 0
    async for part in request.stream():
        size += len(part)
        if size > MAX_BODY_BYTES:
            raise too_big
        parts.append(part)
    return b"".join(parts)


async def next_event(ticket: Ticket, request: Request):
    """The ticket's next event, or None once the client has gone (the ticket leaves)."""
    while True:
        try:
            return await asyncio.wait_for(ticket.events.get(), DISCONNECT_POLL_S)
        except asyncio.TimeoutError:
            if await request.is_disconnected():
                ticket.leave()
                return None
        except asyncio.CancelledError:
            ticket.leave()
            raise


class StreamStopped(Exception):
    """A render that failed after the response's headers went out: (status, sentence)."""


async def audio_pieces(ticket: Ticket, first, fmt: str, sample_rate: int,
                       finished: dict | None = None):
    """The stream's bytes as the render makes them (a WAV stream's header with the first
    piece); raises :class:`StreamStopped` if the render fails part-way. The finished
    render (with its judgement, if asked) is left in ``finished["done"]``."""
    from studio.sound.stream_out import pcm16, wav_stream_header

    header = wav_stream_header(sample_rate) if fmt == "wav" else b""
    try:
        event = first
        while True:
            kind, payload = event
            if kind == "chunk":
                yield header + pcm16(payload)
                header = b""
            elif kind == "error":
                raise StreamStopped(*payload)
            else:
                if finished is not None:
                    finished["done"] = payload
                if header:
                    yield header
                return
            event = await ticket.events.get()
    finally:
        ticket.leave()


async def raw_body(pieces):
    """Raw audio; a render that fails part-way ends the stream short."""
    async with aclosing(pieces):
        try:
            async for piece in pieces:
                yield piece
        except StreamStopped as stop:
            log.warning("a streamed render stopped: %s", stop.args[1])


def done_event(judgement: dict | None) -> bytes:
    """speech.audio.done, carrying the take's judgement when one was asked for."""
    if judgement is None:
        return sse_event(SSE_DONE)
    return sse_event(SSE_DONE, judgement=judgement)


async def sse_body(pieces, fmt: str, finished: dict | None = None):
    """speech.audio.delta events, then speech.audio.done (with the judgement, if asked),
    or speech.audio.error with the sentence when the render fails part-way (the audio
    sent so far is incomplete)."""
    async with aclosing(pieces):
        try:
            async for piece in pieces:
                yield audio_event(piece, fmt)
        except StreamStopped as stop:
            log.warning("a streamed render stopped: %s", stop.args[1])
            yield sse_event(SSE_ERROR, error=error_body(*stop.args))
            return
        done = (finished or {}).get("done")
        yield done_event(getattr(done, "judgement", None))
