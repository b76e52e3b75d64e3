"""Response headers that cannot break a response.

A header value is a line of latin-1 text; a line break in one ends the header (h11
then refuses to send it and the client gets nothing), and a character outside
latin-1 cannot be encoded at all. Values built from a request (a warning that quotes
the user's language, say) therefore go through :func:`header_value`, and
:class:`SafeHeaders` applies the same function to every header of every response, so a
header added later cannot forget it.
"""

from __future__ import annotations

MAX_HEADER_CHARS = 1_000  # one header line; a longer value is cut


def header_value(text: str) -> str:
    """``text`` as printable ASCII: control and non-ASCII characters escaped as Python
    writes them (``\\n``, ``\\x00``, ``\\u4e2d``), cut to :data:`MAX_HEADER_CHARS`."""
    safe = "".join(ch if " " <= ch <= "~" else ascii(ch)[1:-1] for ch in text)
    return safe.strip()[:MAX_HEADER_CHARS]


class SafeHeaders:
    """ASGI middleware: every response header value made printable ASCII on its way out."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def safe_send(message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=[
                    (name, header_value(value.decode("latin-1")).encode("ascii"))
                    for name, value in message.get("headers", [])])
            await send(message)

        await self.app(scope, receive, safe_send)
