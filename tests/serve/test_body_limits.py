"""BodyLimits, in-process: the bodies held by requests in progress stay within one
budget, all connections together (past it: 503), and are counted back when a request
ends, however it ends; a body not in within the deadline raises 408."""

from __future__ import annotations

import asyncio

import pytest

from studio.serve.network import BodyLimits, BodyTimeout, TooManyBodies


def _receive_of(*chunks: bytes):
    messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
                for i, c in enumerate(chunks)]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    return receive


async def _noop_send(_message):
    pass


def test_bodies_past_the_budget_together_are_503_and_counted_back():
    async def scenario():
        release = asyncio.Event()
        outcome = {}

        async def app(scope, receive, send):  # reads its whole body, then renders (waits)
            try:
                while (await receive()).get("more_body"):
                    pass
            except TooManyBodies as exc:
                outcome[scope["name"]] = exc.status
                return
            outcome[scope["name"]] = 200
            if scope["name"] == "first":
                await release.wait()

        limits = BodyLimits(app, seconds=10, budget=100)
        first = asyncio.create_task(limits({"type": "http", "name": "first"},
                                           _receive_of(b"x" * 50, b"x" * 30), _noop_send))
        await asyncio.sleep(0.01)
        assert limits.held == 80
        await limits({"type": "http", "name": "second"}, _receive_of(b"y" * 40), _noop_send)
        assert outcome == {"first": 200, "second": 503}
        assert limits.held == 80  # the refused one gave its bytes back
        release.set()
        await first
        assert limits.held == 0
        await limits({"type": "http", "name": "third"}, _receive_of(b"z" * 90), _noop_send)
        assert outcome["third"] == 200 and limits.held == 0

    asyncio.run(scenario())


def test_a_body_that_does_not_arrive_in_time_raises_408():
    async def scenario():
        async def never():
            await asyncio.sleep(3600)

        async def app(scope, receive, send):
            await receive()

        limits = BodyLimits(app, seconds=0.2, budget=100)
        with pytest.raises(BodyTimeout) as raised:
            await asyncio.wait_for(limits({"type": "http"}, never, _noop_send), 5)
        assert raised.value.status == 408 and "0.2 s" in str(raised.value)
        assert limits.held == 0

    asyncio.run(scenario())
