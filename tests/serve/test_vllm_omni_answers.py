"""The remote client against each shape of answer vLLM-Omni 0.30 gives: a raw PCM stream,
server-sent events (``speech.audio.delta`` / ``speech.audio.done``) and the whole file
(diffusion mode, which ignores ``stream``). The fake (tests/serve/vllm_omni.py) reads
each request with vLLM-Omni's own model and answers as its serving code would; the
event streams that go wrong are one sentence, bounded like every other answer."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from studio.errors import UserError
from studio.remote.client import RemoteBackend
from studio.remote.dialects import RemoteRequest
from tests.serve.hostile import MB, HostileServer, response
from tests.serve.vllm_omni import RATE, SPOKEN, FakeVllmOmni, sse_body

TEXT = "Hello there."
CLIP = b"RIFF" + bytes(40)  # the fake never decodes it
EXPECTED = SPOKEN.astype(np.float32) / 32768.0


def _request(mode: str, **fields) -> RemoteRequest:
    if mode == "clone":
        return RemoteRequest(text=TEXT, ref_audio=CLIP, ref_text="A clip.", **fields)
    return RemoteRequest(text=TEXT, instruct="female, low pitch", seed=5, **fields)


def _render(server, request: RemoteRequest):
    pieces: list[np.ndarray] = []
    with RemoteBackend(server.url, timeout=30) as remote:
        assert remote.info().dialect == "vllm-omni" and remote.info().voices == ["narrator"]
        result = remote.render(request, on_chunk=lambda audio, rate: pieces.append(audio))
    assert result.sample_rate == RATE and np.array_equal(result.audio, EXPECTED)
    assert np.array_equal(np.concatenate(pieces), result.audio)
    return result, pieces


@pytest.mark.parametrize("mode", ["design", "clone"])
def test_a_stream_is_asked_as_raw_pcm_and_read_as_it_comes(mode):
    fake = FakeVllmOmni("ar")
    with HostileServer(fake.speech, fake.probe) as server:
        _result, pieces = _render(server, _request(mode, stream=True))
    assert fake.answered == ["raw"] and len(pieces) >= 3
    assert fake.asked[0].extra_params == {"num_inference_steps": 32, "guidance_scale": 2.0}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("mode", ["design", "clone"])
def test_diffusion_mode_sends_the_whole_file_and_it_is_read(mode, stream):
    fake = FakeVllmOmni("diffusion")
    with HostileServer(fake.speech, fake.probe) as server:
        _render(server, _request(mode, stream=stream))
    assert fake.answered == ["whole pcm" if stream else "whole wav"]


def test_a_stream_at_another_speed_is_asked_whole_and_not_refused():
    fake = FakeVllmOmni("ar")
    with HostileServer(fake.speech, fake.probe) as server:
        _render(server, _request("design", stream=True, speed=1.25))
    assert fake.answered == ["whole pcm"] and fake.asked[0].speed == 1.25


def test_an_sse_answer_is_read_delta_by_delta():
    """vLLM-Omni and OpenAI answer ``stream: true`` with events, as a server may whatever
    was asked."""
    body = sse_body(SPOKEN.tobytes(), pieces=7)

    def speech(send):
        send(response("200 OK", {"content-type": "text/event-stream",
                                 "content-length": str(len(body))}, body))

    fake = FakeVllmOmni("ar")
    for stream in (True, False):
        with HostileServer(speech, fake.probe) as server:
            _result, pieces = _render(server, _request("design", stream=stream))
        assert len(pieces) == 7


def test_events_split_anywhere_with_crlf_comments_and_unknown_events_are_read():
    lines = sse_body(SPOKEN.tobytes(), pieces=4).replace(b"\n", b"\r\n")
    body = b": keep-alive\r\n\r\nevent: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n" + lines

    def speech(send):
        send(response("200 OK", {"content-type": "text/event-stream; charset=utf-8",
                                 "transfer-encoding": "chunked"}))
        for at in range(0, len(body), 7):  # pieces that split lines, CRLFs and base64
            piece = body[at:at + 7]
            send(b"%x\r\n%s\r\n" % (len(piece), piece))
        send(b"0\r\n\r\n")

    fake = FakeVllmOmni("ar")
    with HostileServer(speech, fake.probe) as server:
        _result, pieces = _render(server, _request("design", stream=True))
    assert len(pieces) == 4


def _events(body: bytes, chunked: bool = False):
    def speech(send):
        if chunked:
            send(response("200 OK", {"content-type": "text/event-stream",
                                     "transfer-encoding": "chunked"}))
            send.chunks(body, 64 * MB)
        else:
            send(response("200 OK", {"content-type": "text/event-stream",
                                     "content-length": str(len(body))}, body))
    return speech


def _refusal(speech) -> tuple[str, HostileServer]:
    fake = FakeVllmOmni("ar")
    with HostileServer(speech, fake.probe) as server, RemoteBackend(server.url, timeout=30) \
            as remote, pytest.raises(UserError) as caught:
        remote.render(_request("design", stream=True))
    message = str(caught.value)
    assert "\n" not in message and message.endswith(".") and server.url in message
    return message, server


def _delta(pcm: bytes) -> bytes:
    data = json.dumps({"type": "speech.audio.delta", "response_format": "pcm",
                       "audio": base64.b64encode(pcm).decode()})
    return f"event: speech.audio.delta\ndata: {data}\n\n".encode()


def test_an_error_event_is_the_servers_sentence_and_nothing_is_kept():
    error = {"type": "speech.audio.error",
             "error": {"message": "CUDA out of memory. Tried to allocate 2 GiB.",
                       "type": "server_error", "partial_audio": True, "action": "discard"}}
    body = _delta(SPOKEN[:2400].tobytes()) + f"data: {json.dumps(error)}\n\n".encode()
    message, _ = _refusal(_events(body))
    assert message.endswith("failed while rendering: CUDA out of memory; nothing was saved.")


def test_a_stream_that_ends_without_its_done_event_is_broken():
    body = _delta(SPOKEN.tobytes())
    message, _ = _refusal(_events(body + b"event: speech.audio.done\ndata: {\"type\": "))
    assert "broke before the audio was complete" in message


@pytest.mark.parametrize("event, said", [
    (b"data: {not json}\n\n", "its data is not JSON"),
    (b"data: [1, 2]\n\n", "its data is not a JSON object"),
    (b'data: {"type": "speech.audio.delta", "audio": "%%%"}\n\n', "its audio is not base64"),
    (b'data: {"type": "speech.audio.delta", "audio": 12}\n\n', "its audio is not base64"),
])
def test_an_event_that_cannot_be_read_is_one_sentence(event, said):
    message, _ = _refusal(_events(_delta(SPOKEN[:2400].tobytes()) + event))
    assert f"sent a stream event that cannot be read ({said})" in message


def test_endless_deltas_stop_at_the_bound():
    message, server = _refusal(_events(_delta(b"\1\0" * 32768), chunked=True))
    assert "more audio than" in message
    assert server.sent < 24 * MB, server.sent


def test_an_endless_event_line_stops_at_the_bound():
    message, server = _refusal(_events(b"data: " + b"A" * 65536, chunked=True))
    assert "more audio than" in message
    assert server.sent < 40 * MB, server.sent
