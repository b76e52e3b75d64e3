"""The remote client against servers that misbehave (tests/serve/hostile.py): every answer
is read only as far as it can legitimately go, ``timeout`` is a deadline for the whole
exchange, and a malformed header is ignored or one sentence. The servers offer far more
than the bounds (64 MB); ``sent`` shows how much the client took."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from studio.errors import UserError
from studio.remote.client import RemoteBackend
from studio.remote.dialects import RemoteRequest
from tests.serve.hostile import MB, HostileServer, json_response, response

COMMAND = str(Path(sys.executable).with_name("omnivoice-desktop"))
TEXT = "Hello there."  # a few seconds of speech: its bound is well under 8 MB of audio
OFFER = 64 * MB  # what an endless answer sends before giving up


def _wav(seconds: float = 0.2, rate: int = 24000) -> bytes:
    buffer = io.BytesIO()
    t = np.arange(int(seconds * rate)) / rate
    sf.write(buffer, (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), rate,
             format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def _refusal(server: HostileServer, **request) -> str:
    with RemoteBackend(server.url, timeout=30) as remote, pytest.raises(UserError) as caught:
        remote.render(RemoteRequest(text=TEXT, **request))
    message = str(caught.value)
    assert "\n" not in message and message.endswith(".")
    return message


# -- group 3: bounded answers -------------------------------------------------------------

def test_a_content_length_past_the_bound_is_refused_before_the_body():
    def speech(send):
        send(response("200 OK", {"content-type": "audio/wav",
                                 "content-length": str(10 * 1024**3)}))
        piece = b"\0" * 65536
        while send.server.sent < OFFER and send(piece):
            pass

    with HostileServer(speech) as server:
        message = _refusal(server)
        assert "more audio than" in message
        assert server.sent < 16 * MB, server.sent  # what the sockets' buffers hold, no more


@pytest.mark.parametrize("kind", ["audio/wav", "application/octet-stream"])
def test_an_endless_audio_answer_is_cut_at_the_bound(kind):
    def speech(send):
        send(response("200 OK", {"content-type": kind, "transfer-encoding": "chunked"}))
        send.chunks(b"\1" * 65536, OFFER)

    with HostileServer(speech) as server:
        assert "more audio than" in _refusal(server)
        assert server.sent < 24 * MB, server.sent


def test_an_endless_stream_stops_at_the_bound():
    def speech(send):
        send(response("200 OK", {"content-type": "audio/pcm", "transfer-encoding": "chunked"}))
        send.chunks(b"\1\0" * 32768, OFFER)

    handed: list[int] = []
    with HostileServer(speech) as server, RemoteBackend(server.url, timeout=30) as remote:
        with pytest.raises(UserError) as caught:
            remote.render(RemoteRequest(text=TEXT, stream=True),
                          on_chunk=lambda samples, rate: handed.append(samples.size))
        assert "more audio than" in str(caught.value)
        assert 0 < sum(handed) * 2 < 16 * MB and server.sent < 24 * MB


def test_an_endless_models_answer_is_refused():
    def probe(send):
        send(response("200 OK", {"content-type": "application/json",
                                 "transfer-encoding": "chunked"}))
        send(b'b\r\n{"data": [ \r\n')
        send.chunks(b" " * 65536, OFFER)

    with HostileServer(lambda send: None, probe) as server:
        message = _refusal(server)
        assert "/v1/models" in message and "larger than" in message
        assert server.sent < 16 * MB, server.sent


def test_an_endless_error_body_shows_its_first_sentence():
    def speech(send):
        send(response("500 Internal Server Error",
                      {"content-type": "text/plain", "transfer-encoding": "chunked"}))
        send(b"15\r\nThe model fell over. \r\n")
        send.chunks(b"x" * 65536, OFFER)

    with HostileServer(speech) as server:
        message = _refusal(server)
        assert "The model fell over" in message and "xxx" not in message
        assert server.sent < 16 * MB, server.sent


# -- group 3: the timeout is a deadline ----------------------------------------------------

GOOD = response("200 OK", {"content-type": "audio/wav", "content-length": "200000"},
                b"RIFF" + b"\0" * 199996)


@pytest.mark.parametrize("where", ["headers", "body", "probe"])
def test_a_trickling_server_ends_within_the_timeout(where):
    """One byte every 0.5 s never trips a per-read timeout; the deadline ends it."""
    def trickled(send):
        if where == "body":
            send(GOOD[:GOOD.index(b"\r\n\r\n") + 4])
            send.trickle(b"\0" * 40, 0.5)
        else:
            whole = GOOD if where == "headers" else json_response(b'{"data": []}')
            send.trickle(whole[:40], 0.5)  # 20 s, then the server hangs up

    speech, probe = (trickled, None) if where != "probe" else (None, trickled)
    with HostileServer(speech, probe) if probe else HostileServer(speech) as server:
        started = time.monotonic()
        with RemoteBackend(server.url, timeout=2) as remote, pytest.raises(UserError) as caught:
            remote.render(RemoteRequest(text=TEXT))
        elapsed = time.monotonic() - started
    assert "did not answer within 2 s" in str(caught.value)
    assert elapsed < 3.5, elapsed


def _synth(server, tmp_path, *args) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run([COMMAND, "synth", "--backend", server.url, "--text", TEXT, *args],
                          capture_output=True, env=env, timeout=120)


def test_synth_timeout_is_a_deadline_and_stream_output_stops_at_the_bound(tmp_path):
    def trickled(send):
        send.trickle(GOOD[:60], 0.5)  # 30 s, then the server hangs up

    with HostileServer(trickled) as server:
        started = time.monotonic()
        run = _synth(server, tmp_path, "--timeout", "3", "--out", str(tmp_path / "a.wav"))
        elapsed = time.monotonic() - started
    err = run.stderr.decode()
    assert run.returncode == 2 and "did not answer within 3 s" in err, err
    assert elapsed < 20, elapsed  # the program's start-up plus 3 s; the trickle lasts minutes

    def endless(send):
        send(response("200 OK", {"content-type": "audio/pcm", "transfer-encoding": "chunked"}))
        send.chunks(b"\1\0" * 32768, OFFER)

    with HostileServer(endless) as server:
        run = _synth(server, tmp_path, "--stream", "--out", "-", "--format", "wav")
    err = run.stderr.decode()
    assert run.returncode == 2 and "more audio than" in err, err
    assert len(err.strip().splitlines()) == 1
    assert 0 < len(run.stdout) < 16 * MB


# -- group 16: malformed numeric headers ---------------------------------------------------

def _answer(headers: dict[str, str], body: bytes | None = None, status: str = "200 OK"):
    body = _wav() if body is None else body

    def speech(send):
        send(response(status, {"content-type": "audio/wav",
                               "content-length": str(len(body)), **headers}, body))
    return speech


@pytest.mark.parametrize("seed", ["\u00b2", "9" * 5000, "-3", "1e3", str(2**64), " 12 "])
def test_a_malformed_seed_header_is_ignored(seed):
    with HostileServer(_answer({"x-seed": seed})) as server, \
            RemoteBackend(server.url, timeout=30) as remote:
        result = remote.render(RemoteRequest(text=TEXT, seed=7))
    assert result.seed in (7, 12) and result.audio.size > 0
    assert all(len(v) < 200 for v in result.reported.values())


@pytest.mark.parametrize("rate", ["abc", "0", "-24000", "1e9", "9" * 400, "24000.5"])
def test_a_malformed_stream_rate_is_one_sentence(rate):
    def speech(send):
        body = b"\1\0" * 4800
        send(response("200 OK", {"content-type": "audio/pcm", "x-audio-sample-rate": rate,
                                 "content-length": str(len(body))}, body))

    with HostileServer(speech) as server:
        assert "sample rate" in _refusal(server, stream=True)


def test_a_wav_stream_with_a_zero_rate_is_one_sentence():
    header = bytearray(_wav()[:44])
    header[24:28] = (0).to_bytes(4, "little")

    def speech(send):
        body = bytes(header) + b"\1\0" * 4800
        send(response("200 OK", {"content-type": "audio/wav",
                                 "content-length": str(len(body))}, body))

    with HostileServer(speech) as server:
        assert "sample rate" in _refusal(server, stream=True)


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_audio_samples_that_are_not_numbers_are_one_sentence(value):
    """Found by the fuzzing (test_remote_fuzz.py): a float WAV holding NaN was kept."""
    buffer = io.BytesIO()
    sf.write(buffer, np.full(2400, value, np.float32), 24000, format="WAV", subtype="FLOAT")
    with HostileServer(_answer({}, buffer.getvalue())) as server:
        assert "not all numbers" in _refusal(server)


@pytest.mark.parametrize("wait, said", [("30", "in 30 s"), ("Wed, 21 Oct 2015 07:28:00 GMT", "later"),
                                        ("9" * 300, "later"), ("-5", "later")])
def test_retry_after_is_read_with_sense(wait, said):
    body = b'{"error": {"message": "Busy."}}'
    busy = _answer({"retry-after": wait, "content-type": "application/json"}, body,
                   "429 Too Many Requests")
    with HostileServer(busy) as server:
        message = _refusal(server)
    assert "busy" in message and said in message and len(message) < 200


def test_a_long_model_header_is_bounded():
    with HostileServer(_answer({"x-model": "m" * 8000})) as server, \
            RemoteBackend(server.url, timeout=30) as remote:
        result = remote.render(RemoteRequest(text=TEXT))
    assert len(result.model) <= 200


def test_synth_with_malformed_headers_says_one_sentence_or_works(tmp_path):
    with HostileServer(_answer({"x-seed": "9" * 5000})) as server:
        run = _synth(server, tmp_path, "--seed", "7", "--out", str(tmp_path / "a.wav"), "--json")
    assert run.returncode == 0, run.stderr.decode()
    assert json.loads(run.stdout.decode().strip().splitlines()[-1])["seed"] == 7

    def speech(send):
        send(response("200 OK", {"content-type": "audio/pcm", "x-audio-sample-rate": "fast",
                                 "content-length": "9600"}, b"\1\0" * 4800))

    with HostileServer(speech) as server:
        run = _synth(server, tmp_path, "--stream", "--out", str(tmp_path / "b.wav"))
    err = run.stderr.decode()
    assert run.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "sample rate" in err and "Unexpected" not in err
    assert not (tmp_path / "b.wav").exists()


def test_the_studio_worker_render_ends_at_its_deadline():
    """The window's remote path (service/remote_renderer.py) has the same deadline."""
    import studio.engine.decode  # noqa: F401 -- torch, imported by the render, not timed
    from studio.engine.options import GenerationOptions
    from studio.service.remote_renderer import BackendConfig, RemoteRenderer, Voice
    from studio.service.requests import RenderRequest

    def trickled(send):
        send(GOOD[:GOOD.index(b"\r\n\r\n") + 4])
        send.trickle(b"\0" * 40, 0.5)

    with HostileServer(trickled) as server:
        renderer = RemoteRenderer(BackendConfig(server.url, timeout=2))
        started = time.monotonic()
        try:
            with pytest.raises(UserError, match="did not answer within 2 s"):
                renderer.render(RenderRequest(TEXT, instruct="female", seeds=(1,),
                                              options=GenerationOptions()), Voice("female"), 1)
        finally:
            renderer.close()
    assert time.monotonic() - started < 3.5
