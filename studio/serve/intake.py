"""Reading a speech request: its body under a budget, then the cheap checks.

A body is read whole and parsed before the queue can admit or refuse its request, and
while that happens it costs about four times its size (the bytes, the JSON text, the
ref_audio string, the decoded clip). The queue bounds what admitted requests hold;
this bounds the rest: the bodies being read and parsed at once may claim at most
``BODY_BUDGET_BYTES`` (a body's Content-Length, or the body limit when it sends none).
A request that would pass it gets 429 with Retry-After at once, before its body is
read, so any number of clients sending the largest bodies cost a bounded amount.
Small requests (a few KB) never meet the budget.
"""

from __future__ import annotations

import json
from contextlib import contextmanager

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from studio.serve.request import (
    MAX_BODY_BYTES,
    BadRequest,
    RequestError,
    SpeechRequest,
    parse_speech,
)

BODY_BUDGET_BYTES = 3 * MAX_BODY_BYTES  # about 64 MB of bodies in flight, ~260 MB parsed


class Busy(RequestError):
    status = 429
    headers = {"Retry-After": "1"}


class BodyBudget:
    """The bytes of bodies being read and parsed now. Touched on the event loop only
    (claims and releases happen around awaits, never inside a worker thread)."""

    def __init__(self, limit: int = BODY_BUDGET_BYTES):
        self.limit = limit
        self.claimed = 0

    @contextmanager
    def claim(self, size: int):
        if self.claimed + size > self.limit:
            raise Busy("The server is reading as many large requests as it can hold; try "
                       "again in 1 s.")
        self.claimed += size
        try:
            yield
        finally:
            self.claimed -= size


def _declared_size(request: Request) -> int:
    length = request.headers.get("content-length", "")
    return min(int(length), MAX_BODY_BYTES) if length.isdigit() else MAX_BODY_BYTES


async def read_speech(request: Request, budget: BodyBudget, read_body) -> SpeechRequest:
    """The request's body read (by ``read_body``) and parsed within ``budget``; only the
    parsed request outlives this call, so a request waiting in the queue holds its clip's
    bytes and not its body three times over."""
    with budget.claim(_declared_size(request)):
        raw = await read_body(request)
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            raise BadRequest("The request body is not valid JSON.") from None
        del raw
        return await run_in_threadpool(parse_speech, body)
