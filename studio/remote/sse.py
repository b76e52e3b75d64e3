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
from dataclasses import dataclass

MEDIA_TYPE = "text/event-stream"
DELTA = "speech.audio.delta"
DONE = "speech.audio.done"
ERROR = "speech.audio.error"


class EventStreamError(ValueError):
    """An event that is not what the format allows; the message says what."""


@dataclass(frozen=True)
class Event:
    name: str  # the data's "type", else the event: line's name
    data: dict


def is_event_stream(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == MEDIA_TYPE


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
        if end < 0:
            return []
        if self._held[end:end + 1] == b"\r":  # its LF may be in the next piece
            end -= 1
        complete = bytes(self._held[:end + 1])
        del self._held[:end + 1]
        events = []
        for line in complete.splitlines():
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def close(self) -> list[Event]:
        """The events a lone CR ending the stream completes."""
        return self.feed(b"\n") if self._held.endswith(b"\r") else []

    def _line(self, line: bytes) -> Event | None:
        if not line:
            return self._dispatch()
        if line.startswith(b":"):  # a comment, often a keep-alive
            return None
        field, _, value = line.decode("utf-8", errors="replace").partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self._name = value
        elif field == "data":
            self._data.append(value)
        return None  # id:, retry: and unknown fields mean nothing to a speech stream

    def _dispatch(self) -> Event | None:
        name, lines = self._name, self._data
        self._name, self._data = "", []
        if not lines:
            return None
        text = "\n".join(lines)
        if text.strip() == "[DONE]":  # the chat API's end, which some servers send
            return Event(DONE, {})
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise EventStreamError("its data is not JSON") from None
        if not isinstance(data, dict):
            raise EventStreamError("its data is not a JSON object")
        kind = data.get("type")
        return Event(kind if isinstance(kind, str) else name or "message", data)
