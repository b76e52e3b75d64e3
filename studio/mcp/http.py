"""The MCP tools at ``/mcp`` on ``serve`` (streamable HTTP).

The route sits inside serve's app, so the host/origin guard, the connection limits and
the API key (checked here, before the SDK sees the request) apply as to every route;
the SDK's own host check is off, serve's guard being the one policy. Its session
manager runs for the app's lifetime, inside the app's lifespan.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from starlette.requests import Request
from starlette.routing import Route

from studio.serve.request import MAX_BODY_BYTES, RequestError

PATH = "/mcp"


def mount_mcp(app, renderer, data_root: Path, check_key, refuse) -> None:
    """Add ``/mcp`` to ``app``: ``check_key(request)`` raises a RequestError for a
    missing or wrong key, answered with ``refuse(status, sentence)``."""
    from mcp.server.transport_security import TransportSecuritySettings

    from studio.mcp.tools import build_server

    server = build_server(renderer, data_root)
    server.streamable_http_app(
        streamable_http_path=PATH, max_request_body_size=MAX_BODY_BYTES,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    sessions = server.session_manager
    app.router.routes.append(Route(PATH, endpoint=KeyedEndpoint(sessions, check_key, refuse),
                                   methods=["GET", "POST", "DELETE"]))
    outer = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(scope_app):
        async with outer(scope_app) as state, sessions.run():
            yield state

    app.router.lifespan_context = lifespan


class KeyedEndpoint:
    """An ASGI app (Starlette routes an object, not a function, as ASGI): the key, then
    the SDK's session manager."""

    def __init__(self, sessions, check_key, refuse):
        self.sessions, self.check_key, self.refuse = sessions, check_key, refuse

    async def __call__(self, scope, receive, send):
        try:
            self.check_key(Request(scope, receive))
        except RequestError as exc:
            await self.refuse(exc.status, str(exc))(scope, receive, send)
            return
        await self.sessions.handle_request(scope, receive, send)
