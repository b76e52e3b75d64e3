"""How long a ``serve`` client may take and how much it may hold: the defaults, read by
the CLI's options, the middlewares (:mod:`studio.serve.network`) and the connection
protocol (:mod:`studio.serve.connections`). Imports nothing, so the CLI's parser is cheap
to build."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """How long a client may take and how many connections it may hold open."""

    header_timeout: float = 10.0  # from connecting (or the last answer) to a request's headers
    body_timeout: float = 60.0  # from the headers to the body's last byte (22 MB at 3 Mbit/s)
    keep_alive: float = 5.0  # an idle connection between requests is closed after this
    max_connections: int = 512  # more close the oldest idle one, or are refused
