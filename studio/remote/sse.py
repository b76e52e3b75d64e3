"""OpenAI's speech stream as server-sent events, read in pieces of any size.

A ``text/event-stream`` answer (OpenAI's ``stream_format: "sse"``, vLLM-Omni 0.30's
``stream: true``) is a run of events, each ``event:`` and ``data:`` lines ended by a
blank line; the data is JSON whose ``type`` names it:

* ``speech.audio.delta``: ``audio`` is a piece of the take, base64 of the asked
  ``response_format`` (PCM: 16-bit little-endian mono);
* ``speech.audio.done``: the take is whole (``usage`` may come with it);
* ``speech.audio.error``: the server failed; ``error.message`` says why.

Only the reading is here (and the names, so a server writing these events can use
them); how much is read is the caller's bound (:mod:`studio.remote.answers`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# The event names are declared once, beside the stream writers our own serve uses.
from studio.sound.stream_out import SSE_DONE, SSE_MEDIA_TYPE

_LINE_END = re.compile(rb"\r\n|\r|\n")


class EventStreamError(ValueError):
    """An event that is not what the format allows; the message says what."""


@dataclass(frozen=True)
class Event:
    name: str  # the data's "type", else the event: line's name
    data: dict


def is_event_stream(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == SSE_MEDIA_TYPE


class EventReader:
    """Whole events out of an event stream's bytes, fed as they arrive. A line is held
    until its end comes (a lone CR too, in case an LF follows in the next piece); an
    event not ended by a blank line when the stream stops is incomplete and dropped,
    as the format says."""

    def __init__(self) -> None:
        self._held = bytearray()
        self._name = ""
        self._data: list[str] = []

    def feed(self, piece: bytes) -> list[Event]:
        start = len(self._held)
        self._held += piece
        end = max(self._held.rfind(b"\n", start), self._held.rfind(b"\r", start))
        if end < 0:  # only the new piece is searched: a long line costs no rescans
            return []
        if self._held[end:end + 1] == b"\r":  # its LF may be in the next piece
            end -= 1
        events, at = [], 0
        for match in _LINE_END.finditer(self._held, 0, end + 1):
            event = self._line(memoryview(self._held)[at:match.start()])
            at = match.end()
            if event is not None:
                events.append(event)
        del self._held[:at]
        return events

    def close(self) -> list[Event]:
        """The events a lone CR ending the stream completes."""
        return self.feed(b"\n") if self._held.endswith(b"\r") else []

    def _line(self, line: memoryview) -> Event | None:
        """One line, read in place: an event's audio can be the whole take."""
        with line:
            if not line:
                return self._dispatch()
            if line[:1] == b":":  # a comment, often a keep-alive
                return None
            colon = bytes(line[:6]).find(b":")  # "event:" is the longest field read here
            field = bytes(line[:colon]) if colon >= 0 else bytes(line[:6])
            value = line[colon + 1:] if colon >= 0 else line[:0]
            value = value[1:] if value[:1] == b" " else value
            if field == b"event":
                self._name = str(value, "utf-8", "replace")
            elif field == b"data":
                self._data.append(str(value, "utf-8", "replace"))
        return None  # id:, retry: and unknown fields mean nothing to a speech stream

    def _dispatch(self) -> Event | None:
        name, lines = self._name, self._data
        self._name, self._data = "", []
        if not lines:
            return None
        text = "\n".join(lines)
        if text.strip() == "[DONE]":  # the chat API's end, which some servers send
            return Event(SSE_DONE, {})
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise EventStreamError("its data is not JSON") from None
        if not isinstance(data, dict):
            raise EventStreamError("its data is not a JSON object")
        kind = data.get("type")
        return Event(kind if isinstance(kind, str) else name or "message", data)
