"""The remote client's answers, generated (Hypothesis): any status, headers, content
type, framing and body (server-sent events too) a server on 127.0.0.1 sends gives audio or one
:class:`UserError` sentence, never another exception. Bodies here are small; the
endless and huge ones, and the deadline, are in test_remote_answers.py.

The budget is fixed and derandomised like tests/test_fuzz.py's (``FUZZ_EXAMPLES`` runs
a longer search)."""

from __future__ import annotations

import base64
import io
import json
import os

import numpy as np
import pytest
import soundfile as sf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.errors import UserError
from studio.remote.answers import RATE_RANGE
from studio.remote.client import RemoteBackend
from studio.remote.dialects import RemoteRequest
from studio.sound.stream_out import SSE_DELTA, SSE_DONE, SSE_ERROR
from tests.serve.hostile import HostileServer, json_response

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# Header text as it can go on the wire (latin-1, no line breaks), numbers most of all.
HEADER_TEXT = (st.text(st.characters(min_codepoint=0, max_codepoint=255,
                                     blacklist_characters="\r\n"), max_size=30)
               | st.integers(-(2**70), 2**70).map(str)
               | st.sampled_from(["24000", "0", "-1", "1e9", "nan", "inf", "²", "٣", " 7 ",
                                  "24000.0", "9" * 5000, "Wed, 21 Oct 2015 07:28:00 GMT"]))
HEADERS = st.dictionaries(
    st.sampled_from(["x-seed", "x-audio-sample-rate", "retry-after", "x-model", "x-batch-size",
                     "x-audio-duration-s", "content-encoding", "x-\u00e9"]),
    HEADER_TEXT, min_size=1, max_size=4)
KINDS = st.sampled_from(["audio/wav", "audio/pcm", "audio/flac", "audio/mpeg",
                         "application/octet-stream", "application/json", "text/plain", "",
                         "audio/wav; charset=\u00ff"])
STATUSES = st.sampled_from([200] * 8 + [201, 204, 301, 400, 401, 404, 413, 422, 429, 500,
                                      503]) | st.integers(100, 599)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["data", "id", "owned_by", "voices", "name", "error", "message",
                        "detail", "loc", "msg", "model_loaded"]) | st.text(max_size=5),
        inner, max_size=4),
    max_leaves=12)
# /v1/models as servers shape it, with anything in the entries' fields
MODELS = st.lists(st.dictionaries(st.sampled_from(["id", "owned_by"]), JSON, max_size=2),
                  max_size=3).map(lambda entries: {"data": entries})


@st.composite
def audio_bodies(draw) -> bytes:
    """A real audio file (any rate, channels, format), maybe damaged, or random bytes."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.binary(max_size=3000))
    rate = draw(st.sampled_from([24000, 24000, 1, 8000, 48000, 200_000]))
    channels = draw(st.integers(1, 3))
    frames = draw(st.integers(1, 2000) | st.just(0))
    fmt, subtype = draw(st.sampled_from([("WAV", "PCM_16"), ("WAV", "FLOAT"), ("WAV", "PCM_U8"),
                                         ("FLAC", "PCM_16"), ("WAV", "DOUBLE")]))
    samples = draw(st.sampled_from([0.5, 0.0, np.nan, np.inf]))
    wave = np.full((frames, channels), samples, np.float64)
    buffer = io.BytesIO()
    try:
        sf.write(buffer, wave, rate, format=fmt, subtype=subtype)
    except Exception:  # a rate or shape the format cannot hold: random bytes instead
        return draw(st.binary(max_size=300))
    data = buffer.getvalue()
    if draw(st.integers(0, 3)) == 0:  # damage it
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        data = data[:at] + draw(st.binary(max_size=8)) + data[at + 8:]
    return data


def _framed(status: int, headers: dict, body: bytes, framing: str) -> bytes:
    head = f"HTTP/1.1 {status} X\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if framing == "length":
        head += f"content-length: {len(body)}\r\n"
    elif framing == "wrong length":
        head += f"content-length: {len(body) + 100}\r\n"
    elif framing == "chunked":
        head += "transfer-encoding: chunked\r\n"
        body = (b"%x\r\n%s\r\n" % (len(body), body) if body else b"") + b"0\r\n\r\n"
    return head.encode("utf-8") + b"connection: close\r\n\r\n" + body


@pytest.fixture(scope="module")
def server():
    with HostileServer(lambda send: None) as hostile:
        yield hostile


def _audio_or_one_sentence(server, request: RemoteRequest) -> None:
    try:
        with RemoteBackend(server.url, timeout=10) as remote:
            result = remote.render(request)
    except UserError as exc:
        message = str(exc)
        assert "\n" not in message and message.endswith(".") and len(message) < 600, message
        return
    assert result.audio.ndim == 1 and result.audio.dtype == np.float32 and result.audio.size
    assert np.isfinite(result.audio).all()
    assert RATE_RANGE[0] <= result.sample_rate <= RATE_RANGE[1]
    assert result.seed is None or isinstance(result.seed, int)
    assert all(v.isprintable() and len(v) < 200 for v in result.reported.values())


@FUZZ
@given(status=STATUSES, kind=KINDS, headers=HEADERS, body=audio_bodies(),
       framing=st.sampled_from(["length", "wrong length", "chunked", "close"]),
       stream=st.booleans())
def test_any_speech_answer_is_audio_or_one_sentence(server, status, kind, headers, body,
                                                    framing, stream):
    answer = _framed(status, {"content-type": kind, **headers}, body, framing)
    server.speech = lambda send: send(answer)
    server.probe = lambda send: send(json_response(
        b'{"data": [{"id": "m", "owned_by": "omnivoice-desktop"}]}'))
    _audio_or_one_sentence(server, RemoteRequest(text="Hello there.", seed=3, stream=stream))



@st.composite
def event_streams(draw) -> bytes:
    """Server-sent speech events as vLLM-Omni and OpenAI send them, and as they go wrong:
    any order, missing or extra events, bad JSON and base64, any line ends."""
    audio = st.binary(max_size=600).map(lambda b: base64.b64encode(b).decode())
    payload = st.fixed_dictionaries(
        {"type": st.sampled_from([SSE_DELTA, SSE_DONE, SSE_ERROR, "ping"]) | JSON},
        optional={"audio": audio | JSON, "response_format": st.sampled_from(["pcm", "wav"]) | JSON,
                  "error": JSON | st.fixed_dictionaries({"message": JSON})})
    data = payload.map(json.dumps) | st.text(max_size=40) | st.just("[DONE]")
    event = st.builds(lambda name, lines: (f"event: {name}\n" if name else "") + "".join(
        f"data: {line}\n" for line in lines) + "\n",
        st.sampled_from(["", SSE_DELTA, SSE_DONE, "x"]), st.lists(data, min_size=1, max_size=2))
    text = "".join(draw(st.lists(event | st.just(": keep-alive\n\n"), max_size=6)))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return text.replace("\n", end).encode() + draw(st.binary(max_size=20))


@FUZZ
@given(body=event_streams(), framing=st.sampled_from(["length", "wrong length", "chunked",
                                                      "close"]), stream=st.booleans())
def test_any_event_stream_is_audio_or_one_sentence(server, body, framing, stream):
    answer = _framed(200, {"content-type": "text/event-stream"}, body, framing)
    server.speech = lambda send: send(answer)
    server.probe = lambda send: send(json_response(b'{"data": [{"id": "m", "owned_by": "vllm"}]}'))
    _audio_or_one_sentence(server, RemoteRequest(text="Hello there.", stream=stream))


@FUZZ
@given(models=MODELS | JSON | st.binary(max_size=200), status=STATUSES,
       health=JSON, voices=JSON)
def test_any_probe_answer_is_a_server_or_one_sentence(server, models, status, health, voices):
    def body(value) -> bytes:
        return value if isinstance(value, bytes) else json.dumps(value).encode()

    answers = {"/v1/models": (body(models), f"{status} X"), "/health": (body(health), "200 OK")}

    def probe(send):
        line = send.request_line
        path = line.split(b" ")[1].decode("latin-1") if line.count(b" ") >= 2 else ""
        data, state = answers.get(path, (body(voices), "200 OK"))
        send(json_response(data, state))

    buffer = io.BytesIO()
    sf.write(buffer, np.full(2400, 0.1, np.float32), 24000, format="WAV")
    wav = buffer.getvalue()
    server.probe = probe
    server.speech = lambda send: send(_framed(200, {"content-type": "audio/wav"}, wav, "length"))
    _audio_or_one_sentence(server, RemoteRequest(text="Hello there."))
