"""A local HTTP server that answers the Hugging Face hub's file routes, for download tests.

Loopback only. It serves one repo from a folder: the model, revision and tree APIs, and
``/{repo}/resolve/{rev}/{file}`` with ETag, X-Repo-Commit, Content-Length and Range.
It counts requests and can drop a connection part-way through a file (``drop_after``)
or hold a file's body until released (``hold``), so tests can cancel mid-file.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CHUNK = 64 * 1024


class HubServer:
    def __init__(self, repo: str, folder: Path):
        self.repo = repo
        self.folder = Path(folder)
        self.files = {p.relative_to(self.folder).as_posix(): p
                      for p in sorted(self.folder.rglob("*")) if p.is_file()}
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, Range header)
        self.drop_after: dict[str, int] = {}  # file -> bytes sent before the connection drops (once)
        self.hold: dict[str, int] = {}  # file -> bytes sent before waiting for ``release``
        self.release = threading.Event()
        self.held = threading.Event()  # set when a body is held part-way
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def total_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.files.values())

    def ranges(self, name: str) -> list[str | None]:
        """The Range header of each GET of the file ``name`` (None: from its start)."""
        return [r for m, p, r in self.requests
                if m == "GET" and "/resolve/" in p and p.split("/resolve/", 1)[1].split("/", 1)[1] == name]

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _json(self, body) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _missing(self) -> None:
                self.send_response(404)
                self.send_header("X-Error-Code", "RepoNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_HEAD(self) -> None:
                self._serve(body=False)

            def do_GET(self) -> None:
                self._serve(body=True)

            def _serve(self, body: bool) -> None:
                path = unquote(urlparse(self.path).path)
                with hub._lock:
                    hub.requests.append((self.command, path, self.headers.get("Range")))
                api = f"/api/models/{hub.repo}/"
                if path == api.rstrip("/") or path.startswith(api + "revision/"):
                    return self._json({"id": hub.repo, "sha": COMMIT,
                                       "siblings": [{"rfilename": n} for n in hub.files]})
                if path.startswith(api + "tree/"):
                    return self._json([{"type": "file", "path": n, "size": p.stat().st_size,
                                        "oid": _sha1(p)} for n, p in hub.files.items()])
                match = re.fullmatch(rf"/{re.escape(hub.repo)}/resolve/[^/]+/(.+)", path)
                if match is None or match.group(1) not in hub.files:
                    return self._missing()
                self._file(match.group(1), body)

            def _file(self, name: str, body: bool) -> None:
                data = hub.files[name].read_bytes()
                start = 0
                wanted = self.headers.get("Range")
                if wanted:
                    start = int(re.fullmatch(r"bytes=(\d+)-\d*", wanted).group(1))
                self.send_response(206 if start else 200)
                self.send_header("ETag", f'"{_sha1(hub.files[name])}"')
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(len(data) - start))
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.end_headers()
                if not body:
                    return
                drop = hub.drop_after.pop(name, None)
                hold = hub.hold.pop(name, None)
                sent = start
                while sent < len(data):
                    if drop is not None and sent >= drop:
                        self.close_connection = True
                        self.connection.shutdown(2)  # the peer sees the body end early
                        return
                    if hold is not None and sent >= hold:
                        hub.held.set()
                        hub.release.wait(30)
                        hold = None
                    piece = data[sent:sent + CHUNK]
                    try:
                        self.wfile.write(piece)
                        self.wfile.flush()
                    except OSError:
                        return
                    sent += len(piece)

        return Handler


def _sha1(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()
