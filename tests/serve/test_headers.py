"""A value from the request that reaches a response header (a warning quoting the
language, say) never breaks the response: every string field, with a line break, a
carriage return, a NUL or text outside latin-1, gets a whole answer whose headers are
printable ASCII."""

from __future__ import annotations

import httpx
import pytest

from studio.serve.headers import header_value
from tests.serve.servers import API_KEY, DESIGN, STEPS, TEXT

FIELDS = ("input", "voice", "language", "instructions", "ref_text", "model",
          "response_format")
NASTY = ("Klingon\nX-Injected: 1", "Klingon\r\n\r\nbody", "Kling\x00on", "Klingon \u4e2d\u20ac",
         "\u2028Klingon\x85")


@pytest.fixture(scope="module")
def http(our_server):
    with httpx.Client(base_url=our_server.url, timeout=60,
                      headers={"Authorization": f"Bearer {API_KEY}"}) as client:
        yield client


def _printable_ascii(response: httpx.Response) -> None:
    for name, value in response.headers.raw:
        assert all(0x20 <= byte <= 0x7E for byte in value), (name, value)
    assert b"x-injected" not in {name.lower() for name, _ in response.headers.raw}


@pytest.mark.parametrize("nasty", NASTY)
def test_a_language_with_any_character_warns_in_a_safe_header(http, nasty):
    response = http.post("/v1/audio/speech", json={"input": TEXT, "steps": STEPS,
                                                   "voice": DESIGN, "language": nasty})
    assert response.status_code in (200, 400), response.text[:300]
    _printable_ascii(response)
    if response.status_code == 200:
        assert "Klingon" in response.headers["x-warning"] or "Kling" in response.headers[
            "x-warning"]
        assert "\\" in response.headers["x-warning"]  # the character, escaped


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("nasty", NASTY)
def test_every_string_field_gets_a_whole_answer(http, field, nasty):
    body = {"input": TEXT, "steps": STEPS, "voice": DESIGN, field: nasty}
    if field == "ref_text":
        body["ref_audio"] = "UklGRg=="
    response = http.post("/v1/audio/speech", json=body)
    assert response.status_code in (200, 400, 404, 413, 422), response.text[:300]
    _printable_ascii(response)
    if response.status_code != 200:
        assert response.json()["error"]["message"]


@pytest.mark.parametrize("text", ["a\nb", "a\r\nb", "\x00", "\u4e2d\u20ac", "\xe9", "  x  ",
                                  "z" * 5000, "\U0001F600\x7f\x85"])
def test_a_header_value_is_printable_ascii_on_one_line(text):
    value = header_value(text)
    assert all(" " <= ch <= "~" for ch in value) and len(value) <= 1000
    assert value == header_value(value)  # escaping twice changes nothing


def test_every_header_of_every_response_is_escaped_on_its_way_out():
    """A header added later, that forgets header_value, is still made safe."""
    import asyncio

    from studio.serve.headers import SafeHeaders

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"x-later", "a\nb\x00\xe9".encode("latin-1"))]})
        await send({"type": "http.response.body", "body": b""})

    sent = []

    async def send(message):
        sent.append(message)

    asyncio.run(SafeHeaders(app)({"type": "http"}, None, send))
    assert sent[0]["headers"] == [(b"x-later", b"a\\nb\\x00\\xe9")]


def test_any_text_makes_a_header_h11_sends():
    """The class, fuzzed: whatever a request carries, the escaped value is one that h11
    (what uvicorn writes responses with) accepts in a header."""
    import h11
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=300))
    def check(text):
        value = header_value(text)
        server = h11.Connection(h11.SERVER)
        server.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        server.next_event()
        server.send(h11.Response(status_code=200, headers=[("X-Warning", value)]))
        assert value == header_value(value)

    check()
