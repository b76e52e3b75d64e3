"""What a speech server's answer may legitimately be, and reading it no further.

Every answer is bounded before it is read: a JSON answer (``/v1/models``, ``/health``,
the voices) by :data:`MAX_JSON_BYTES`, an error body by :data:`MAX_ERROR_BYTES` (of
which only the first sentence is shown), and audio by the longest speech the text
can plausibly become (:func:`audio_seconds_limit`, at most :data:`MAX_AUDIO_S`) at
:data:`MAX_AUDIO_BYTES_PER_S`. A Content-Length past the bound is refused before the
body; a chunked or endless body is cut off at it. So a client holds at most about
``MAX_AUDIO_S * MAX_AUDIO_BYTES_PER_S`` (173 MB) of answer (twice that read from
server-sent events, whose audio is base64 in JSON), and decodes at most
``MAX_AUDIO_S * MAX_SAMPLES_PER_S`` samples (345 MB of float32), whatever the server
sends (benchmarks/bench_remote_client.py measures the peaks). Headers are read with sense: a number that is not
one, or out of range, is ignored (the seed, Retry-After) or refused in one sentence
(a stream's sample rate, which the audio cannot do without).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from studio.engine.options import MAX_SECONDS, MAX_SEED, SPEED_RANGE

KB = 1024
MAX_JSON_BYTES = 1024 * KB  # /v1/models of a server with hundreds of models is tens of KB
MAX_ERROR_BYTES = 64 * KB  # an error body; its first sentence is all we show
MAX_AUDIO_S = MAX_SECONDS  # 30 min: the longest output one local item may ask for
AUDIO_SLACK_S = 30.0  # a server's padding and silences, on top of the words
SECONDS_PER_CHAR = 0.5  # slow, deliberate speech: 2 characters a second (CJK included)
MAX_SAMPLES_PER_S = 48_000  # 48 kHz mono or 24 kHz stereo, decoded
MAX_AUDIO_BYTES_PER_S = MAX_SAMPLES_PER_S * 2  # that at 16 bits, or 24 kHz float32 mono
AUDIO_HEADER_BYTES = 64 * KB  # a WAV header with its LIST and other chunks
EVENT_STREAM_FACTOR = 2  # server-sent events: the audio as base64 in JSON (sse.py)
RATE_RANGE = (8_000, 192_000)  # sample rates a speech server plausibly sends
MAX_RETRY_AFTER_S = 86_400
MAX_HEADER_CHARS = 200  # a reported header longer than this is not kept

_DIGITS = re.compile(r"[0-9]{1,20}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def audio_seconds_limit(text: str, speed: float | None) -> float:
    """The longest audio ``text`` can plausibly become at ``speed`` (a server that
    ignores a fast speed speaks at 1)."""
    slow = speed if isinstance(speed, (int, float)) and speed == speed else 1.0
    slow = min(max(slow, SPEED_RANGE[0]), 1.0)
    return min(MAX_AUDIO_S, AUDIO_SLACK_S + len(text) * SECONDS_PER_CHAR / slow)


def audio_byte_limit(seconds: float) -> int:
    return int(seconds * MAX_AUDIO_BYTES_PER_S) + AUDIO_HEADER_BYTES


def event_stream_byte_limit(audio_bytes: int) -> int:
    """What an event stream carrying ``audio_bytes`` of audio may take: base64 is a
    third more, and each event's JSON and field names have room in the rest."""
    return audio_bytes * EVENT_STREAM_FACTOR


def read_bounded(response, limit: int, too_large: Callable[[], Exception],
                 check: Callable[[], None] = lambda: None) -> bytes:
    """The whole body of a streamed httpx ``response``, refused (``too_large()``) as
    soon as it is known to pass ``limit``; ``check()`` runs between pieces."""
    declared = content_length(response.headers)
    if declared is not None and declared > limit:
        raise too_large()
    data = bytearray()
    for part in response.iter_bytes():
        check()
        data += part
        if len(data) > limit:
            raise too_large()
    return bytes(data)


def read_prefix(response, limit: int) -> bytes:
    """At most the first ``limit`` bytes of ``response``'s body; the rest is left unread."""
    data = bytearray()
    for part in response.iter_bytes():
        data += part
        if len(data) >= limit:
            break
    return bytes(data[:limit])


def whole_number(value: object, low: int, high: int) -> int | None:
    """``value`` (a header's text) as a whole number in ``low..high``, else None."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not _DIGITS.fullmatch(value):
        return None
    number = int(value)
    return number if low <= number <= high else None


def content_length(headers) -> int | None:
    return whole_number(headers.get("content-length"), 0, 10**20)


def seed_of(headers) -> int | None:
    return whole_number(headers.get("x-seed"), 0, MAX_SEED)


def retry_after(headers) -> int | None:
    """Retry-After in seconds; an HTTP date or anything else is not worth parsing."""
    return whole_number(headers.get("retry-after"), 0, MAX_RETRY_AFTER_S)


def rate_ok(rate: int) -> bool:
    return RATE_RANGE[0] <= rate <= RATE_RANGE[1]


def printable(value: str, limit: int = MAX_HEADER_CHARS) -> str | None:
    """``value`` if a terminal and a take's metadata can hold it as it is."""
    return value if len(value) < limit and value.isprintable() else None


def kept_headers(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The ``x-`` headers worth keeping on a take: short and printable."""
    return {k: v for k, v in items if k.lower().startswith("x-")
            and printable(k) is not None and printable(v) is not None}


def first_sentence(text: str) -> str:
    """The first line's first sentence: what a person reads of an error body."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    return _SENTENCE_END.split(line.strip(), maxsplit=1)[0]
