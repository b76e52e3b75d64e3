"""Servers as real processes: our ``omnivoice-desktop serve`` and omnivoice-server
(PyPI 0.2.5, another author's), each started once for the whole package on 127.0.0.1 with a tiny
random checkpoint on the CPU, and stopped at the end."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.serve.servers import (
    API_KEY,
    COMMAND,
    STEPS,
    Server,
    _stop,
    _wait_ready,
    env_for,
    free_port,
    serving,
    speech_like_wav,
)


@pytest.fixture(scope="package")
def our_server(tiny_checkpoint, tmp_path_factory):
    """``serve --queue 16 --api-key KEY`` with one saved voice, "Narrator"."""
    root = tmp_path_factory.mktemp("serve")
    data = root / "data"
    clip = speech_like_wav(root / "clip.wav")
    saved = subprocess.run([COMMAND, "voices", "save", "Narrator", "--ref", str(clip),
                            "--ref-text", "A clip of speech for the test.", "--model",
                            str(tiny_checkpoint), "--device", "cpu"],
                           env=env_for(data), capture_output=True, text=True, timeout=180)
    assert saved.returncode == 0, saved.stderr
    with serving(tiny_checkpoint, root, data, "--queue", "16", "--api-key", API_KEY) as server:
        yield server


@pytest.fixture(scope="package")
def their_server(tiny_checkpoint, tmp_path_factory):
    """omnivoice-server 0.2.5 (``python -m omnivoice_server``) on the CPU."""
    import omnivoice_server  # noqa: F401 -- missing, it fails here (never a skip)

    root = tmp_path_factory.mktemp("omnivoice-server")
    port = free_port()
    stderr = root / "stderr.txt"
    with open(stderr, "wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "omnivoice_server", "--model", str(tiny_checkpoint),
             "--device", "cpu", "--port", str(port), "--num-step", str(STEPS),
             "--profile-dir", str(root / "profiles"), "--voice-dir", str(root / "voices"),
             "--no-web-ui", "--log-level", "warning"],
            cwd=root, env=env_for(root / "data"), stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, stderr)
        yield Server(url, process, stderr, root / "data")
    finally:
        _stop(process)


@pytest.fixture
def served(tiny_checkpoint, tmp_path, one_torch_thread):
    """An in-process test client on a started Renderer (one per test), and the Renderer."""
    from starlette.testclient import TestClient

    from studio.serve.app import create_app
    from studio.serve.renderer import Renderer

    renderer = Renderer(str(tiny_checkpoint), device="cpu", precision="fp32", limit=4,
                        data_root=tmp_path / "data")
    renderer.start()
    with TestClient(create_app(renderer, None, tmp_path / "data"),
                    raise_server_exceptions=False) as client:
        yield client, renderer
    renderer.stop()
