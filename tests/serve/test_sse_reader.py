"""studio/remote/sse.py's reader: the events of a speech event stream, whatever the pieces
it arrives in and whichever line ends it uses."""

from __future__ import annotations

import pytest

from studio.remote.sse import Event, EventReader, EventStreamError, is_event_stream
from studio.sound.stream_out import SSE_DONE

STREAM = (b": keep-alive\r\n\r\nid: 1\r\nevent: speech.audio.delta\r\n"
          b'data: {"type": "speech.audio.delta",\r\ndata: "audio": "AAE="}\r\n\r\n'
          b'event: ping\rdata:{"n": 2}\r\rdata\ndata: [DONE]\n\n'
          b'event: speech.audio.done\ndata: {"type": "speech.audio.done"}\n\n')
EVENTS = [Event("speech.audio.delta", {"type": "speech.audio.delta", "audio": "AAE="}),
          Event("ping", {"n": 2}), Event(SSE_DONE, {}), Event(SSE_DONE, {"type": SSE_DONE})]


def _read(stream: bytes, size: int) -> list[Event]:
    reader, events = EventReader(), []
    for at in range(0, len(stream), size):
        events += reader.feed(stream[at:at + size])
    return events + reader.close()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, len(STREAM)])
def test_the_events_are_the_same_in_pieces_of_any_size(size):
    assert _read(STREAM, size) == EVENTS


def test_a_lone_cr_ending_the_stream_ends_its_last_event():
    assert _read(b'data: {"type": "speech.audio.done"}\r\r', 1) == [Event(SSE_DONE, {"type": SSE_DONE})]


def test_an_event_the_stream_did_not_finish_is_dropped():
    assert _read(b'data: {"type": "speech.audio.done"}\n', 5) == []


@pytest.mark.parametrize("data", [b"{", b"[1]", b'"x"'])
def test_data_that_is_not_a_json_object_is_refused(data):
    with pytest.raises(EventStreamError):
        _read(b"data: " + data + b"\n\n", 4)


def test_the_media_type_is_recognised_with_its_parameters():
    assert is_event_stream("text/event-stream; charset=utf-8")
    assert is_event_stream("Text/Event-Stream") and not is_event_stream("text/plain")
