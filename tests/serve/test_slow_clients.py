"""A slow or silent client cannot hold the server: headers that do not arrive in time
close the connection (408 when part of them came), a body trickled a byte a second gets
408, an idle connection between requests is closed, and hundreds of idle sockets past
the file limit still leave /health answering. Raw sockets on loopback; every loop is
bounded, so each test stops by itself, on the old code too."""

from __future__ import annotations

import json
import os
import resource
import socket
import time

import httpx
import pytest

from tests.serve.servers import serve_process

HEADER_S, BODY_S, KEEP_ALIVE_S = 2.0, 3.0, 1.0
SLACK_S = 3.0  # a loaded CI machine's scheduling, on top of each deadline
FD_LIMIT = 320  # the idle-socket server's open file limit: fewer than the sockets sent
HALF_HEAD = b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applica"


@pytest.fixture(scope="module")
def quick(tiny_checkpoint, tmp_path_factory):
    with serve_process(tiny_checkpoint, tmp_path_factory.mktemp("quick-serve"),
                       "--header-timeout", str(HEADER_S), "--body-timeout", str(BODY_S),
                       "--keep-alive-timeout", str(KEEP_ALIVE_S)) as server:
        yield server


@pytest.fixture(scope="module")
def few_files(tiny_checkpoint, tmp_path_factory):
    """Deadlines far away, so only the connection cap can keep /health answering."""
    def low_file_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))

    with serve_process(tiny_checkpoint, tmp_path_factory.mktemp("few-files-serve"),
                       "--header-timeout", "120", "--body-timeout", "120",
                       preexec_fn=low_file_limit) as server:
        yield server


def _address(server) -> tuple[str, int]:
    return "127.0.0.1", int(server.url.rsplit(":", 1)[1])


def _read_until_closed(sock: socket.socket, within: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and when it closed (raises when it
    is still open after ``within`` seconds)."""
    start, data = time.monotonic(), b""
    sock.settimeout(within)
    while True:
        try:
            part = sock.recv(65536)
        except ConnectionResetError:
            part = b""
        if not part:
            return data, time.monotonic() - start
        data += part
        sock.settimeout(max(0.01, within - (time.monotonic() - start)))


def _read_response(sock: socket.socket) -> bytes:
    """One whole response with a Content-Length (a keep-alive connection stays open)."""
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")))
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def _json_sentence(answer: bytes, status: int) -> str:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode()), answer[:200]
    message = json.loads(body)["error"]["message"]
    assert message.endswith(".") and "\n" not in message
    return message


def test_half_of_the_headers_is_408_and_closed_within_the_deadline(quick):
    with socket.create_connection(_address(quick)) as sock:
        sock.sendall(HALF_HEAD)
        answer, after = _read_until_closed(sock, HEADER_S + SLACK_S)
    assert HEADER_S - 0.5 <= after <= HEADER_S + SLACK_S
    assert "headers did not arrive" in _json_sentence(answer, 408)


def test_a_silent_connection_is_closed_within_the_header_deadline(quick):
    with socket.create_connection(_address(quick)) as sock:
        answer, after = _read_until_closed(sock, HEADER_S + SLACK_S)
    assert answer == b"" and after <= HEADER_S + SLACK_S


def test_a_keep_alive_connection_is_closed_when_idle_or_half_way_through_headers(quick):
    request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with socket.create_connection(_address(quick)) as sock:
        sock.sendall(request)
        assert _read_response(sock).startswith(b"HTTP/1.1 200")
        answer, after = _read_until_closed(sock, KEEP_ALIVE_S + SLACK_S)  # says nothing
    assert answer == b""
    with socket.create_connection(_address(quick)) as sock:
        sock.sendall(request)
        assert _read_response(sock).startswith(b"HTTP/1.1 200")
        time.sleep(0.3)
        sock.sendall(HALF_HEAD)  # the first byte stops uvicorn's keep-alive timer
        answer, after = _read_until_closed(sock, HEADER_S + SLACK_S)
    assert after <= HEADER_S + SLACK_S
    _json_sentence(answer, 408)


def test_a_body_trickled_a_byte_a_second_gets_408(quick):
    length = 200
    with socket.create_connection(_address(quick)) as sock:
        sock.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                     b"application/json\r\nContent-Length: %d\r\n\r\n{" % length)
        sock.settimeout(1.0)
        start, answer = time.monotonic(), b""
        for _ in range(int(BODY_S + SLACK_S) + 1):  # one byte a second, never all 200
            try:
                part = sock.recv(65536)
            except TimeoutError:
                part = None
            if part:
                answer += part
            if b"}}" in answer or part == b"":
                break
            try:
                sock.sendall(b" ")
            except OSError:
                break
        took = time.monotonic() - start
        assert "body did not arrive" in _json_sentence(answer, 408), answer
        assert took <= BODY_S + SLACK_S
        _, after = _read_until_closed(sock, 5 + SLACK_S)  # and the connection goes too
    assert httpx.get(quick.url + "/health", timeout=10).status_code == 200


def test_a_body_left_unfinished_after_its_answer_does_not_keep_the_connection(quick):
    """Answered before its body arrived (a wrong route), the client keeps sending it a
    byte at a time and never finishes."""
    with socket.create_connection(_address(quick)) as sock:
        sock.sendall(b"POST /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
        assert _read_response(sock).startswith(b"HTTP/1.1 404")
        sock.settimeout(0.5)
        start, closed = time.monotonic(), False
        for _ in range(int((BODY_S + 2 + SLACK_S) / 0.5)):  # a byte every half second
            try:
                sock.sendall(b" ")  # each one stops uvicorn's keep-alive timer
                closed = sock.recv(65536) == b""
            except TimeoutError:
                continue
            except OSError:
                closed = True
            if closed:
                break
        after = time.monotonic() - start
    assert closed and after <= BODY_S + 2 + SLACK_S


def test_a_client_leaving_half_way_through_its_body_leaves_no_traceback(quick):
    with socket.create_connection(_address(quick)) as sock:
        sock.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Length: 100\r\n\r\n{")
        time.sleep(0.5)
    time.sleep(1.0)
    assert httpx.get(quick.url + "/health", timeout=10).status_code == 200
    assert "Traceback" not in quick.log_text()


def _server_files(server) -> int:
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


def test_five_hundred_idle_sockets_leave_health_answering(few_files):
    socks = []
    try:
        for _ in range(500):  # past the server's open file limit
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(_address(few_files))
            socks.append(sock)
        start = time.monotonic()
        response = httpx.get(few_files.url + "/health", timeout=20)
        assert response.status_code == 200
        assert time.monotonic() - start < 20
        assert _server_files(few_files) < FD_LIMIT
    finally:
        for sock in socks:
            sock.close()
    assert few_files.process.poll() is None
    assert "out of system resource" not in few_files.log_text()


def test_past_the_cap_with_every_connection_busy_a_new_one_gets_503(few_files):
    cap = (FD_LIMIT - 64) // 2  # the cap serve derives from its file limit
    socks = []
    try:
        for _ in range(cap):  # each owes a body: busy, not idle
            sock = socket.create_connection(_address(few_files))
            sock.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Length: 10\r\n\r\n")
            socks.append(sock)
        time.sleep(1.0)
        with socket.create_connection(_address(few_files)) as extra:
            answer, _ = _read_until_closed(extra, 10)
        assert "connections open" in _json_sentence(answer, 503)
    finally:
        for sock in socks:
            sock.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the busy ones gone, it serves again
        if httpx.get(few_files.url + "/health", timeout=10).status_code == 200:
            break
        time.sleep(0.5)
    else:
        raise AssertionError("/health did not come back")
