"""Helpers of the serve tests: starting and stopping a server process, its stderr in a
file the tests read (no traceback may appear there, nor in our log file), and the
check that a refusal is one sentence in OpenAI's error shape."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

COMMAND = str(Path(sys.executable).with_name("omnivoice-desktop"))
API_KEY = "test-key-0123"
STEPS = 4
TEXT = "The storm rolled in over the hills just after noon."
DESIGN = "female, low pitch"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    stderr: Path
    data: Path

    def log_text(self) -> str:
        text = self.stderr.read_text(errors="replace")
        log = self.data / "omnivoice-desktop.log"
        return text + (log.read_text(errors="replace") if log.exists() else "")

    def rss_kb(self, field: str = "VmRSS") -> int:
        """The process's resident memory now, or (``VmHWM``) its peak so far."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
        raise AssertionError(f"no {field}")


def _wait_ready(url: str, process: subprocess.Popen, stderr: Path, timeout: float = 150):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {stderr.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"the server did not come up: {stderr.read_text()[-2000:]}")


@contextmanager
def serving(checkpoint: Path, root: Path, data: Path, *args: str):
    """``omnivoice-desktop serve`` on the tiny checkpoint with ``args``, up until the
    block ends."""
    port = free_port()
    stderr = root / "stderr.txt"
    with open(stderr, "wb") as err:
        process = subprocess.Popen(
            [COMMAND, "serve", "--model", str(checkpoint), "--port", str(port), "--device",
             "cpu", "--precision", "fp32", *args],
            env=env_for(data), stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, stderr)
        yield Server(url, process, stderr, data)
    finally:
        _stop(process)


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def env_for(data: Path) -> dict:
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(data), OMP_NUM_THREADS="1")
    env.pop("PYTHONWARNINGS", None)
    return env


def speech_like_wav(path: Path, seconds: float = 3.0, seed: int = 0) -> Path:
    """Voiced bursts with pauses: something the codec and silence trimming work on."""
    import numpy as np
    import soundfile as sf

    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * 24000)) / 24000
    voiced = np.sin(2 * np.pi * np.cumsum(140 + 40 * np.sin(2 * np.pi * 0.7 * t)) / 24000)
    gate = np.sin(2 * np.pi * 1.3 * t) > -0.3
    wave = 0.2 * (voiced + 0.3 * rng.standard_normal(t.size)) * gate
    sf.write(path, wave.astype(np.float32), 24000)
    return path



def assert_one_sentence(response: httpx.Response, status: int | tuple[int, ...]) -> str:
    """A refusal: the status, a JSON body in OpenAI's error shape, one sentence."""
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json")
    message = response.json()["error"]["message"]
    assert isinstance(message, str) and message.endswith(".") and "\n" not in message
    assert "Traceback" not in message and "|" not in message and len(message) < 300
    # One sentence: no full stop followed by a capital before the end.
    import re

    assert not re.search(r"\. [A-Z]", message), message
    return message


@contextmanager
def serve_process(checkpoint: Path, root: Path, *options: str, preexec_fn=None):
    """Our ``serve`` on a free loopback port with extra ``options``, for one module."""
    port = free_port()
    stderr = root / "stderr.txt"
    with open(stderr, "wb") as err:
        process = subprocess.Popen(
            [COMMAND, "serve", "--model", str(checkpoint), "--port", str(port), "--device",
             "cpu", "--precision", "fp32", *options],
            env=env_for(root / "data"), stdout=subprocess.DEVNULL, stderr=err,
            preexec_fn=preexec_fn)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, stderr)
        yield Server(url, process, stderr, root / "data")
    finally:
        _stop(process)
