"""What idle and slow connections cost ``omnivoice-desktop serve``.

The real server, as its own process on 127.0.0.1 with a tiny random checkpoint, with
its open-file limit set to ``--file-limit`` (so the connection cap is what keeps it
answering) and a long header deadline (so the deadlines do not). Then:

* ``/health`` latency (median of 20) with no other connection;
* ``--sockets`` idle sockets opened at once (more than the file limit), then the same
  ``/health`` latency, the server's open files and resident memory;
* how long until the server has closed them all (the header deadline, ``--header-s``);
* ``--big-bodies`` connections that each send 20 MB of a 21 MB body and stop: the
  server's resident memory while they wait, and how many were refused with 503 (the
  bodies held at once stay within serve's budget).

Nothing here asserts on time. Usage (from the repository root, Linux)::

    python benchmarks/bench_slow_clients.py [--sockets 2000] [--file-limit 1024]
        [--header-s 10] [--json-out slow.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_serve import free_port  # noqa: E402

from studio.engine.random_checkpoint import build_random_checkpoint  # noqa: E402


def health_ms(url: str, times: int = 20) -> float:
    took = []
    for _ in range(times):
        start = time.perf_counter()
        assert httpx.get(f"{url}/health", timeout=30).status_code == 200
        took.append((time.perf_counter() - start) * 1000)
    return statistics.median(took)


def server_state(pid: int) -> dict:
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text()
               .splitlines() if line.startswith("VmRSS:"))
    return {"open_files": len(os.listdir(f"/proc/{pid}/fd")), "rss_mb": round(rss / 1024, 1)}


def big_bodies(port: int, pid: int, count: int) -> dict:
    head = (b"POST /v1/audio/speech HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            b"application/json\r\nContent-Length: %d\r\n\r\n" % (21 * 2**20))
    chunk, socks, refused = b" " * 2**20, [], 0
    before = server_state(pid)["rss_mb"]
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.settimeout(10)
        try:
            sock.sendall(head)
            for _ in range(20):
                sock.sendall(chunk)
        except OSError:  # refused half-way: the server answered and stopped reading
            pass
        socks.append(sock)
    time.sleep(2)
    for sock in socks:
        sock.setblocking(False)
        try:
            refused += sock.recv(100).startswith(b"HTTP/1.1 503")
        except OSError:
            pass
    peak = server_state(pid)["rss_mb"]
    for sock in socks:
        sock.close()
    return {"big_bodies": count, "big_bodies_refused_503": refused,
            "rss_mb_before_bodies": before, "rss_mb_with_bodies": peak}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--file-limit", type=int, default=1024)
    parser.add_argument("--header-s", type=float, default=10.0)
    parser.add_argument("--big-bodies", type=int, default=24)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = build_random_checkpoint(Path(tmp) / "OmniVoice", "tiny")
        port = free_port()
        env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(Path(tmp) / "data"),
                   OMP_NUM_THREADS="1")

        def file_limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (args.file_limit, args.file_limit))

        process = subprocess.Popen(
            [sys.executable, "-m", "studio", "serve", "--model", str(checkpoint), "--port",
             str(port), "--device", "cpu", "--header-timeout", str(args.header_s)],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=file_limit)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.5)
            result = {"sockets": args.sockets, "file_limit": args.file_limit,
                      "health_ms_alone": round(health_ms(url), 2),
                      "alone": server_state(process.pid)}
            socks, start = [], time.monotonic()
            for _ in range(args.sockets):
                sock = socket.socket()
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", port))
                socks.append(sock)
            result["open_s"] = round(time.monotonic() - start, 2)
            result["health_ms_with_idle"] = round(health_ms(url), 2)
            result["with_idle"] = server_state(process.pid)
            start = time.monotonic()
            while server_state(process.pid)["open_files"] > result["alone"]["open_files"] + 2:
                if time.monotonic() - start > args.header_s + 60:
                    break
                time.sleep(0.2)
            result["all_closed_after_s"] = round(time.monotonic() - start, 1)
            for sock in socks:
                sock.close()
            result.update(big_bodies(port, process.pid, args.big_bodies))
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(json.dumps(result, indent=1))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
