"""BodyDeadline, in-process: a body not in within the deadline raises 408, however
slowly it trickles (the budget of bodies read at once is test_intake.py's)."""

from __future__ import annotations

import asyncio

import pytest

from studio.serve.network import BodyDeadline, BodyTimeout


async def _noop_send(_message):
    pass


def test_a_body_that_does_not_arrive_in_time_raises_408():
    async def scenario():
        async def never():
            await asyncio.sleep(3600)

        async def app(scope, receive, send):
            await receive()

        limits = BodyDeadline(app, seconds=0.2)
        with pytest.raises(BodyTimeout) as raised:
            await asyncio.wait_for(limits({"type": "http"}, never, _noop_send), 5)
        assert raised.value.status == 408 and "0.2 s" in str(raised.value)

    asyncio.run(scenario())
