"""A speech server that misbehaves on purpose: a real socket on 127.0.0.1, so sizes,
trickles and deadlines are real. ``/v1/audio/speech...`` gets ``speech``, every other
path ``probe`` (by default a well-formed ``/v1/models`` naming our dialect); each is a
function of a :class:`Send` that writes whatever it likes. ``sent`` counts the bytes
the client accepted, so a test can tell how much it read."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

MODELS = b'{"data": [{"id": "m", "owned_by": "omnivoice-desktop"}]}'
MB = 1024 * 1024


def response(status: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("latin-1") + b"connection: close\r\n\r\n" + body


def json_response(body: bytes, status: str = "200 OK") -> bytes:
    return response(status, {"content-type": "application/json",
                             "content-length": str(len(body))}, body)


class Send:
    """One connection's writer; stops (``alive`` False) once the client hangs up."""

    def __init__(self, conn: socket.socket, server: HostileServer, request_line: bytes = b"",
                 body: bytes = b""):
        self.conn, self.server, self.alive = conn, server, True
        self.request_line, self.body = request_line, body

    def __call__(self, data: bytes) -> bool:
        if not self.alive:
            return False
        try:
            self.conn.sendall(data)
        except OSError:
            self.alive = False
            return False
        with self.server.lock:
            self.server.sent += len(data)
        return True

    def chunks(self, piece: bytes, limit: int) -> None:
        """``piece`` as HTTP chunks until ``limit`` bytes went or the client left."""
        frame = b"%x\r\n%s\r\n" % (len(piece), piece)
        written = 0
        while written < limit and not self.server.closed.is_set() and self(frame):
            written += len(piece)
        self(b"0\r\n\r\n")

    def trickle(self, data: bytes, every: float) -> None:
        """One byte every ``every`` seconds."""
        for i in range(len(data)):
            if self.server.closed.wait(every) or not self(data[i:i + 1]):
                return


Handler = Callable[[Send], None]


def _models(send: Send) -> None:
    send(json_response(MODELS))


class HostileServer:
    def __init__(self, speech: Handler, probe: Handler = _models):
        self.speech, self.probe = speech, probe
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.sent = 0
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            request, body = _read_request(conn)
            line = request.split(b"\r\n", 1)[0]
            handler = self.speech if b"/v1/audio/speech" in line else self.probe
            handler(Send(conn, self, line, body))
        except OSError:
            pass
        finally:
            if not self.closed.is_set():
                time.sleep(0.05)  # let the client read before the close
            conn.close()

    def close(self) -> None:
        self.closed.set()
        self.sock.close()
        for conn in self._conns:
            try:
                conn.close()
            except OSError:
                pass


def _read_request(conn: socket.socket) -> tuple[bytes, bytes]:
    """The request's head and its body (by Content-Length), so closing never resets a
    client still sending."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = conn.recv(65536)
        if not part:
            return data, b""
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        part = conn.recv(65536)
        if not part:
            break
        body += part
    return head, body
