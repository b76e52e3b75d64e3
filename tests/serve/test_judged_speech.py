"""Judged speech over HTTP: the OpenAI SDK asks for scores (extra_body ``judge`` or the
``X-OmniVoice-Judge`` header) and reads them from the raw response headers; an SSE
stream gets them in its done event; a raw stream cannot carry them (one sentence)."""

from __future__ import annotations

import base64
import io
import json
import threading

import httpx
import openai
import pytest
import soundfile as sf
from openai import OpenAI

from tests.serve.servers import API_KEY, DESIGN, STEPS

TEXT = "A short line to judge."
BODY = {"steps": STEPS, "seed": 3}


@pytest.fixture(scope="module")
def client(our_server):
    return OpenAI(base_url=f"{our_server.url}/v1", api_key=API_KEY, max_retries=0)


def _judged(raw) -> dict:
    text = raw.headers["x-omnivoice-judgement"]
    assert text.isascii() and len(text) <= 900
    return json.loads(text)


def test_extra_body_judge_puts_the_scores_in_the_headers(client):
    raw = client.audio.speech.with_raw_response.create(
        model="omnivoice", voice=DESIGN, input=TEXT, response_format="wav",
        extra_body={**BODY, "judge": True})
    judged = _judged(raw)
    assert set(judged) >= {"combined", "voice", "words", "sound"}
    assert judged["sound"]["verdict"] in ("ok", "warn", "bad") and judged["sound"]["why"]
    assert judged["words"]["verdict"] == "not judged"  # no recogniser on this machine
    # One designed take: nothing to compare its voice with, so sound alone makes the score.
    assert judged["voice"]["verdict"] == "not judged"
    assert float(raw.headers["x-omnivoice-score"]) == pytest.approx(judged["combined"],
                                                                   abs=1e-3)
    assert judged["combined"] == pytest.approx(judged["sound"]["score"], abs=1e-3)
    audio, rate = sf.read(io.BytesIO(raw.http_response.content), dtype="float32")
    assert rate == 24000 and audio.size > 0


def test_the_header_asks_too_and_a_saved_voice_is_matched_to_its_clip(client):
    raw = client.audio.speech.with_raw_response.create(
        model="omnivoice", voice="Narrator", input=TEXT, extra_body=BODY,
        extra_headers={"X-OmniVoice-Judge": "1"})
    judged = _judged(raw)
    assert "to the reference clip" in judged["voice"]["why"]
    assert 0.0 <= judged["voice"]["score"] <= 1.0


def test_judging_is_off_by_default(client):
    raw = client.audio.speech.with_raw_response.create(
        model="omnivoice", voice=DESIGN, input=TEXT, extra_body=BODY)
    assert "x-omnivoice-score" not in raw.headers
    assert "x-omnivoice-judgement" not in raw.headers


def test_a_raw_stream_cannot_carry_scores_one_sentence(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.audio.speech.create(model="omnivoice", voice=DESIGN, input=TEXT,
                                   response_format="pcm",
                                   extra_body={**BODY, "stream": True, "judge": True})
    message = refused.value.body["message"]
    assert message.startswith("A streamed response's headers go out before the take is whole")
    assert 'stream_format "sse"' in message
    with pytest.raises(openai.BadRequestError) as refused:
        client.audio.speech.create(model="omnivoice", voice=DESIGN, input=TEXT,
                                   extra_body=BODY, extra_headers={"X-OmniVoice-Judge": "maybe"})
    assert refused.value.body["message"] == ("The header X-OmniVoice-Judge must be 1 (score "
                                             "the take) or 0.")


def test_an_sse_stream_ends_with_the_judgement(our_server):
    response = httpx.post(f"{our_server.url}/v1/audio/speech", timeout=120,
                          headers={"Authorization": f"Bearer {API_KEY}"},
                          json={"model": "omnivoice", "voice": DESIGN, "input": TEXT,
                                "response_format": "pcm", "stream_format": "sse",
                                "judge": True, **BODY})
    assert response.status_code == 200
    events = [json.loads(line[6:]) for line in response.text.splitlines()
              if line.startswith("data: ")]
    assert events[-1]["type"] == "speech.audio.done"
    judgement = events[-1]["judgement"]
    assert [j["judge"] for j in judgement["judgements"]] == ["voice", "words", "sound"]
    assert judgement["combined"] is not None
    audio = b"".join(base64.b64decode(e["audio"]) for e in events[:-1])
    assert len(audio) > 0


def test_the_judges_load_once_on_the_model_thread(tiny_checkpoint, monkeypatch):
    """Two judged requests: one Judges, made and used on the renderer's own thread."""
    import asyncio

    from studio.serve.renderer import Renderer, Ticket
    from studio.serve.request import parse_speech
    from studio.serve.voices import ResolvedVoice
    from studio.service import judging

    made, used = [], []  # judges_for builds its Judges through the module's name

    class Counted(judging.Judges):
        def __init__(self, *args, **kwargs):
            made.append(threading.current_thread().name)
            super().__init__(*args, **kwargs)

        def judge_takes(self, *args, **kwargs):
            used.append(threading.current_thread().name)
            return super().judge_takes(*args, **kwargs)

    monkeypatch.setattr(judging, "Judges", Counted)
    renderer = Renderer(str(tiny_checkpoint), device="cpu", precision="fp32")
    renderer.start()

    async def speak(seed):
        ticket = Ticket(parse_speech({"input": TEXT, "steps": 2, "seed": seed, "judge": True}),
                        ResolvedVoice(None, None, None, None, None),
                        asyncio.get_running_loop())
        renderer.submit(ticket)
        while True:
            kind, payload = await ticket.events.get()
            if kind != "chunk":
                assert kind == "done", payload
                return payload

    try:
        first, second = asyncio.run(speak(1)), asyncio.run(speak(2))
    finally:
        renderer.stop()
    assert made == ["omnivoice-serve-model"] and used == ["omnivoice-serve-model"] * 2
    assert first.judgement["combined"] is not None and second.judgement is not None
