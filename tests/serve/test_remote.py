"""The remote backend against real servers: omnivoice-server 0.2.5 (another author's)
and our own ``serve``; design and clone, streamed and not; ``synth --backend``; and
every way a server can fail us, one sentence each with no file left behind."""

from __future__ import annotations

import socket
import subprocess
import threading

import numpy as np
import pytest
import soundfile as sf

from studio.errors import UserError
from studio.remote.client import RemoteBackend
from studio.remote.dialects import RemoteRequest
from tests.serve.servers import API_KEY, COMMAND, DESIGN, STEPS, TEXT, env_for, speech_like_wav

TWO = TEXT + " By evening the river had risen past the old stone bridge."


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = speech_like_wav(tmp_path_factory.mktemp("clip") / "ref.wav", seconds=3.0, seed=4)
    return path.read_bytes()


@pytest.fixture(scope="module", params=["omnivoice-server", "omnivoice-desktop"])
def backend(request):
    server = request.getfixturevalue("their_server" if request.param == "omnivoice-server"
                                     else "our_server")
    key = API_KEY if request.param == "omnivoice-desktop" else None
    with RemoteBackend(server.url, key) as remote:
        yield request.param, remote


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("mode", ["design", "clone"])
def test_design_and_clone_render_through_the_server(backend, clip, mode, stream):
    expected, remote = backend
    info = remote.info()
    assert info.dialect == expected  # detected from what the server reports
    assert info.models and info.voices
    request = RemoteRequest(text=TWO, steps=STEPS, seed=3, stream=stream,
                            instruct=DESIGN if mode == "design" else None,
                            ref_audio=clip if mode == "clone" else None,
                            ref_text="A clip of speech for the test." if mode == "clone" else None)
    pieces = []
    result = remote.render(request, on_chunk=lambda audio, rate: pieces.append(audio))
    assert result.sample_rate == 24000 and result.audio.dtype == np.float32
    assert result.audio.size > 24000 and np.abs(result.audio).max() > 0.01
    assert np.array_equal(np.concatenate(pieces), result.audio)
    assert result.model == info.model and result.dialect == expected
    if stream and expected == "omnivoice-server":
        assert len(pieces) >= 2  # it streams sentence by sentence


def test_the_same_seed_renders_the_same_take(backend):
    _name, remote = backend
    request = RemoteRequest(text=TEXT, instruct=DESIGN, steps=STEPS, seed=21,
                            position_temperature=0.0)
    assert np.array_equal(remote.render(request).audio, remote.render(request).audio)


def _synth(data, *args):
    return subprocess.run([COMMAND, "synth", "--text", TEXT, "--steps", str(STEPS), "--seed", "5",
                           "--json", *map(str, args)], env=env_for(data), capture_output=True,
                          text=True, timeout=120)


def test_synth_backend_writes_the_file(their_server, our_server, tmp_path):
    import json

    out = tmp_path / "theirs.wav"
    run = _synth(tmp_path / "data", "--backend", their_server.url, "--instruct", DESIGN,
                 "--out", out)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["dialect"] == "omnivoice-server" and summary["server_model"] == "omnivoice"
    assert sf.info(out).frames > 0
    out = tmp_path / "ours.flac"
    run = _synth(our_server.data, "--backend", f"{our_server.url}/v1", "--api-key", API_KEY,
                 "--voice", "Narrator", "--stream", "--out", out)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["dialect"] == "omnivoice-desktop" and summary["stream"] is True
    assert sf.info(out).frames > 0


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_synth_backend_puts_the_pause_in_and_applies_the_dictionary(our_server, tmp_path,
                                                                    stream):
    (tmp_path / "siobhan.json").write_text('{"Siobhan": "Shiv-awn"}')
    out = tmp_path / "paused.wav"
    run = subprocess.run([COMMAND, "synth", "--text", "Siobhan waved. [pause 1.5s] Hello.",
                          "--instruct", DESIGN, "--steps", str(STEPS), "--seed", "9",
                          "--dictionary", str(tmp_path / "siobhan.json"), "--backend",
                          our_server.url, "--api-key", API_KEY, "--out", str(out),
                          *(["--stream"] if stream else [])],
                         env=env_for(tmp_path / "data"), capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    audio, rate = sf.read(out, dtype="float32")
    with RemoteBackend(our_server.url, API_KEY) as remote:
        first, second = (remote.render(RemoteRequest(text=t, instruct=DESIGN, steps=STEPS,
                                                     seed=9)).audio
                         for t in ("Shiv-awn waved.", "Hello."))
    gap = round(1.5 * rate)
    assert audio.size == first.size + gap + second.size
    assert np.abs(audio[:first.size] - first).max() < 1e-4  # 16-bit file both ways
    assert not audio[first.size:first.size + gap].any()
    assert np.abs(audio[first.size + gap:] - second).max() < 1e-4


def _fails(data, out, *args) -> str:
    run = _synth(data, *args, "--out", out)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in run.stderr
    assert not out.exists() and not list(out.parent.glob(".*.tmp"))
    return lines[0]


def test_synth_backend_failures_are_one_sentence(their_server, our_server, tmp_path):
    out = tmp_path / "take.wav"
    dead = f"http://127.0.0.1:{_closed_port()}"
    assert "cannot be reached" in _fails(tmp_path / "d", out, "--backend", dead)
    assert "refused the API key" in _fails(our_server.data, out, "--backend", our_server.url,
                                           "--api-key", "wrong")
    # 422 with the server's own reason
    message = _fails(tmp_path / "d", out, "--backend", their_server.url, "--instruct",
                     "female, wobbly")
    assert "refused the request" in message and "wobbly" in message
    assert "local engine only" in _fails(tmp_path / "d", out, "--backend", our_server.url,
                                         "--tokens-out", tmp_path / "t.pt")
    assert "nothing to say but pauses" in _fails(tmp_path / "d", out, "--backend",
                                                 our_server.url, "--api-key", API_KEY,
                                                 "--text", "[pause 1s]")


def test_a_request_too_large_is_one_sentence(our_server):
    with RemoteBackend(our_server.url, API_KEY) as remote, pytest.raises(UserError) as caught:
        remote.render(RemoteRequest(text=TEXT, ref_audio=b"RIFF" + b"\0" * (23 * 2**20),
                                    ref_text="x"))
    assert "too large" in str(caught.value)


def test_cancel_closes_the_request(our_server):
    from studio.remote.client import RemoteCancelled

    cancel = threading.Event()
    long_text = " ".join([TWO] * 8)
    with RemoteBackend(our_server.url, API_KEY) as remote, pytest.raises(RemoteCancelled):
        remote.render(RemoteRequest(text=long_text, steps=32, stream=True),
                      on_chunk=lambda audio, rate: cancel.set(), cancel=cancel)


# -- servers that misbehave: a raw socket on 127.0.0.1 ----------------------------------

def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _RawServer:
    """Answers every connection with ``reply`` (bytes, or None: say nothing), then
    hangs up; enough for /v1/models and a speech request."""

    def __init__(self, speech_reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.speech_reply = speech_reply
        self.held = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            request = conn.recv(65536)
            if b"/v1/audio/speech" not in request.split(b"\r\n", 1)[0]:
                body = b'{"data": [{"id": "m", "owned_by": "omnivoice-desktop"}]}'
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                             b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                             % (len(body), body))
                conn.close()
            elif self.speech_reply is None:
                self.held.append(conn)  # never answers
            else:
                conn.sendall(self.speech_reply)
                conn.close()

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


def test_a_dropped_stream_is_one_sentence():
    half = (b"HTTP/1.1 200 OK\r\ncontent-type: audio/pcm\r\ntransfer-encoding: chunked\r\n\r\n"
            b"400\r\n" + b"\x01\x00" * 100)  # a chunk cut short, then the connection goes
    server = _RawServer(half)
    try:
        with RemoteBackend(server.url) as remote, pytest.raises(UserError) as caught:
            remote.render(RemoteRequest(text=TEXT, stream=True))
        assert "broke before the audio was complete" in str(caught.value)
    finally:
        server.close()


def test_a_server_that_never_answers_times_out_in_one_sentence():
    server = _RawServer(None)
    try:
        with RemoteBackend(server.url, timeout=1.0) as remote, pytest.raises(UserError) as caught:
            remote.render(RemoteRequest(text=TEXT))
        assert "did not answer within 1 s" in str(caught.value)
    finally:
        server.close()
