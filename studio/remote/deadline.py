"""One HTTP exchange's deadline and cancel, enforced on its sockets.

httpx's timeouts are per operation: a server that trickles a byte a second never
trips a read timeout, whether in the headers or the body. :class:`Exchange` makes
the caller's timeout a deadline for everything (connect, upload, headers, body): a
helper thread shuts the exchange's sockets down when the deadline passes or the
caller's cancel is set, which wakes any read or write blocked on them (closing the
client would not). The sockets are learnt from httpcore's connect trace, so every
request of an exchange must open its own connection (no keep-alive reuse).
"""

from __future__ import annotations

import socket
import threading
import time

CANCEL_POLL_S = 0.05


class Exchange:
    def __init__(self, seconds: float, cancel: threading.Event | None = None):
        self.seconds = seconds
        self.cancel = cancel
        self.expired = False
        self._end = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stopped = False
        self._done = threading.Event()

    def __enter__(self) -> Exchange:
        threading.Thread(target=self._watch, name="remote-deadline", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    def trace(self, event: str, detail: dict) -> None:
        """httpcore's trace hook (``extensions={"trace": exchange.trace}``)."""
        if event != "connection.connect_tcp.complete":
            return
        stream = detail.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            late = self._stopped  # connected just after the end: shut it at once
        if late:
            _shut(sock)

    def _watch(self) -> None:
        while True:
            wait = self.remaining()
            if self.cancel is not None:
                wait = min(wait, CANCEL_POLL_S)
            if self._done.wait(wait):
                return
            if self.cancelled:
                break
            if self.remaining() <= 0:
                self.expired = True
                break
        with self._lock:
            self._stopped = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed: nothing to wake
        pass
