"""Connections that cannot be held open for nothing.

uvicorn closes a connection that says nothing for ``timeout_keep_alive`` seconds after
an answer, but its first byte cancels that timer, and nothing bounds how long a
request's headers or body may take: a client sending a header line now and then, or a
body a byte at a time, holds a connection for ever, and enough of them use up the
process's file descriptors until ``/health`` cannot even be accepted.
:class:`GuardedH11Protocol` (uvicorn's h11 protocol, passed as ``http=``) adds:

- a deadline while the server waits for a request's headers (from the connection, or
  from the previous answer): past it the connection is closed, with a 408 sentence if
  part of a request had arrived;
- a deadline while it waits for a body, a little after :class:`~studio.serve.network.BodyDeadline`
  has answered 408, so a client that never finishes its body cannot keep the connection
  (nor can one whose request was answered before its body arrived);
- a cap on open connections, kept below the file descriptor limit: one more closes the
  oldest connection that is only waiting for headers, so a new client (a health probe)
  is served; when every connection is busy with a request, the new one is refused with
  a 503 sentence.
"""

from __future__ import annotations

import functools
from http import HTTPStatus

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from studio.serve.limits import Limits

LINGER_S = 2.0  # after the 408 for a slow body, its remaining bytes are read this long
FD_RESERVE = 64  # descriptors kept for everything but connections (log, library, model)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with header and body deadlines and a connection cap."""

    def __init__(self, *args, limits: Limits, max_connections: int, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.max_connections = max_connections
        self.waiting_for = None  # "head" or "body" while the client owes us bytes
        self.waiting_since = 0.0
        self.deadline = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.follow()
        self.make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self.follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.follow()

    def connection_lost(self, exc) -> None:
        self.stop_deadline()
        super().connection_lost(exc)

    def follow(self) -> None:
        """Starts the deadline for what the client owes now, if that changed."""
        state = self.conn.their_state
        owed = "head" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if owed == self.waiting_for or self.transport.is_closing():
            return
        self.stop_deadline()
        self.waiting_for, self.waiting_since = owed, self.loop.time()
        if owed == "head":
            self.deadline = self.loop.call_later(self.limits.header_timeout, self.expire)
        elif owed == "body":
            self.deadline = self.loop.call_later(self.limits.body_timeout + LINGER_S,
                                                 self.expire)

    def stop_deadline(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def expire(self) -> None:
        self.deadline = None
        if self.transport.is_closing():
            return
        if self.waiting_for == "head" and self.conn.trailing_data[0]:
            self.refuse(408, f"The request's headers did not arrive within "
                             f"{self.limits.header_timeout:g} s; send them at once.")
        else:
            self.transport.close()

    def make_room(self) -> None:
        """Past the cap: close the oldest connection that is only waiting for headers,
        or, when there is none, refuse this one."""
        open_ = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_) <= self.max_connections:
            return
        idle = [c for c in open_ if c is not self and getattr(c, "waiting_for", None) == "head"]
        if idle:
            min(idle, key=lambda c: c.waiting_since).transport.close()
        else:
            self.refuse(503, f"The server has {self.max_connections} connections open, all "
                             "busy; try again in a few seconds.")

    def refuse(self, status: int, sentence: str) -> None:
        """Answers without a request (none has arrived whole) and closes."""
        from studio.serve.app import error

        body = error(status, sentence).body
        head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
                "content-type: application/json\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
        self.transport.write(head.encode("ascii") + body)
        self.transport.close()


def raise_fd_limit() -> int | None:
    """Raises the soft limit on open files to the hard one; returns the soft limit now
    (None where there is no limit, or no such thing, as on Windows)."""
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return None
    # macOS reports an unlimited hard limit but takes at most OPEN_MAX (10240).
    for target in (hard, 10240):
        if target == resource.RLIM_INFINITY or target <= soft:
            continue
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return target
        except (ValueError, OSError):
            pass
    return soft


def config_options(limits: Limits) -> dict:
    """uvicorn.Config's keyword arguments for these limits.

    asyncio accepts up to ``backlog`` connections at a time and this protocol sees them
    (and can close one) only a few loop turns later, so the cap and the backlog share what
    the descriptor limit leaves: connections at most half, each turn's accepts an eighth,
    and the process never runs out of descriptors, whatever arrives at once."""
    cap, backlog = limits.max_connections, 2048  # uvicorn's default backlog
    fd_limit = raise_fd_limit()
    if fd_limit is not None:
        room = max(8, fd_limit - FD_RESERVE)
        cap, backlog = min(cap, room // 2), min(backlog, room // 8)
    return {"http": functools.partial(GuardedH11Protocol, limits=limits, max_connections=cap),
            "timeout_keep_alive": limits.keep_alive, "backlog": backlog}
