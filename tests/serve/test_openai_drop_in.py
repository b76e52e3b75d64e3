"""Apps written against OpenAI's speech API, unchanged, with the official SDK: its stock
voice names speak (each a fixed design with a locked seed, unless a saved voice has the
name), and ``stream_format`` gets what OpenAI and vLLM-Omni answer: ``sse`` a stream of
``speech.audio.delta`` / ``speech.audio.done`` events with base64 audio, ``audio`` raw
audio as it renders."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import subprocess
import typing

import httpx
import numpy as np
import pytest
import soundfile as sf
from openai import OpenAI
from openai.types.audio.speech_create_params import Voice

from studio.serve.app import StreamStopped, sse_body
from studio.serve.stock_voices import STOCK_VOICES
from studio.sound.stream_out import SSE_DELTA, SSE_DONE, SSE_ERROR
from tests.serve.servers import (
    API_KEY,
    COMMAND,
    DESIGN,
    STEPS,
    assert_one_sentence,
    env_for,
    serving,
    speech_like_wav,
)

TEXT = "The storm rolled in over the hills just after noon."
GREEDY = {"steps": STEPS, "seed": 5, "position_temperature": 0, "class_temperature": 0}
# The SDK's own list of OpenAI's voice names (the Literal in its Voice type).
SDK_VOICES = sorted(next(a for a in typing.get_args(Voice)
                         if typing.get_origin(a) is typing.Literal).__args__)


@pytest.fixture(scope="module")
def server(tiny_checkpoint, tmp_path_factory):
    """``serve`` whose data folder holds "Narrator" and "Nova", one clip saved twice
    under two names (so the two speak alike for a seed)."""
    root = tmp_path_factory.mktemp("drop-in")
    data = root / "data"
    clip = speech_like_wav(root / "clip.wav")
    for name in ("Narrator", "Nova"):
        saved = subprocess.run([COMMAND, "voices", "save", name, "--ref", str(clip),
                                "--ref-text", "A clip of speech for the test.", "--model",
                                str(tiny_checkpoint), "--device", "cpu"],
                               env=env_for(data), capture_output=True, text=True, timeout=180)
        assert saved.returncode == 0, saved.stderr
    with serving(tiny_checkpoint, root, data, "--api-key", API_KEY) as running:
        yield running


@pytest.fixture(scope="module")
def client(server):
    return OpenAI(base_url=f"{server.url}/v1", api_key=API_KEY, max_retries=0)


def pcm(client, **kwargs) -> bytes:
    return client.audio.speech.create(model="tts-1", input=TEXT, response_format="pcm",
                                      **kwargs).content


def sse_events(body: bytes) -> list[tuple[str, dict]]:
    """(event name, JSON data) for each event of a text/event-stream body."""
    events = []
    for block in body.decode().split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_the_table_covers_every_voice_name_the_sdk_knows():
    assert SDK_VOICES == sorted(STOCK_VOICES)


@pytest.mark.parametrize("name", SDK_VOICES)
def test_each_stock_voice_speaks(client, name):
    audio = np.frombuffer(pcm(client, voice=name, extra_body={"steps": STEPS}), "<i2")
    assert audio.size > 24000 * 0.5 and np.abs(audio).max() > 0


def test_a_stock_voice_is_its_design_with_its_locked_seed(client):
    stock = STOCK_VOICES["alloy"]
    steps = {"steps": STEPS}  # default temperatures: only the seed makes it repeatable
    first = pcm(client, voice="alloy", extra_body=steps)
    again = pcm(client, voice="Alloy", extra_body=steps)
    designed = pcm(client, voice=stock.instruct, extra_body={**steps, "seed": stock.seed})
    assert first == again == designed


def test_a_saved_voice_with_a_stock_name_wins(client):
    saved = pcm(client, voice="nova", extra_body=GREEDY)
    assert saved == pcm(client, voice="Narrator", extra_body=GREEDY)
    stock = STOCK_VOICES["nova"]
    assert saved != pcm(client, voice=stock.instruct, extra_body=GREEDY)


def test_a_voice_object_names_a_voice_by_its_id(client):
    """The SDK's other spelling of a voice, {"id": ...} (its custom voices)."""
    assert pcm(client, voice={"id": "Narrator"}, extra_body=GREEDY) == \
        pcm(client, voice="Narrator", extra_body=GREEDY)


def test_voices_lists_the_stock_names(server):
    listed = httpx.get(f"{server.url}/v1/voices",
                       headers={"Authorization": f"Bearer {API_KEY}"}).json()["voices"]
    stock = {v["id"]: v for v in listed if v["type"] == "stock"}
    assert sorted(stock) == sorted(set(STOCK_VOICES) - {"nova"})  # a saved Nova hides it
    assert stock["alloy"]["description"] == STOCK_VOICES["alloy"].instruct


@pytest.mark.parametrize("fmt", ["pcm", "wav"])
def test_sse_streams_delta_and_done_events(client, fmt):
    whole = client.audio.speech.create(model="tts-1", voice=DESIGN, input=TEXT,
                                       response_format=fmt, extra_body=GREEDY).content
    with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice=DESIGN, input=TEXT, response_format=fmt,
            stream_format="sse", extra_body=GREEDY) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.read())
    names = [name for name, _ in events]
    assert names[-1] == SSE_DONE and set(names[:-1]) == {SSE_DELTA}
    assert all(data["type"] == name for name, data in events)
    audio = b"".join(base64.b64decode(data["audio"]) for _, data in events[:-1])
    if fmt == "wav":  # a stream's header says "length unknown"; the samples are the file's
        assert audio[:4] == b"RIFF" and audio[36:40] == b"data"
        samples, _ = sf.read(io.BytesIO(whole), dtype="int16")
        assert audio[44:] == samples.tobytes()
    else:
        assert audio == whole


def test_sse_of_a_whole_file_format_is_one_delta(client):
    with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice=DESIGN, input=TEXT, response_format="flac",
            stream_format="sse", extra_body=GREEDY) as response:
        events = sse_events(response.read())
    assert [name for name, _ in events] == [SSE_DELTA, SSE_DONE]
    samples, rate = sf.read(io.BytesIO(base64.b64decode(events[0][1]["audio"])), dtype="int16")
    assert rate == 24000 and samples.size > 0


def test_stream_format_audio_streams_raw_audio(client):
    whole = pcm(client, voice=DESIGN, extra_body=GREEDY)
    with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice=DESIGN, input=TEXT, response_format="pcm",
            stream_format="audio", extra_body=GREEDY) as response:
        assert "content-length" not in response.headers  # sent as it renders
        assert response.headers["content-type"] == "audio/pcm"
        assert b"".join(response.iter_bytes()) == whole


def test_an_unknown_stream_format_is_one_sentence(server):
    answer = httpx.post(f"{server.url}/v1/audio/speech",
                        headers={"Authorization": f"Bearer {API_KEY}"},
                        json={"input": TEXT, "voice": DESIGN, "stream_format": "chunks"})
    assert "stream_format" in assert_one_sentence(answer, 400)


def test_a_render_failing_mid_stream_ends_with_an_error_event():
    failed = "The server failed to render this request; the details are in its log file."

    async def pieces():
        yield b"\x01\x00"
        raise StreamStopped(500, failed)

    async def read():
        return b"".join([event async for event in sse_body(pieces(), "pcm")])

    events = sse_events(asyncio.run(read()))
    assert [name for name, _ in events] == [SSE_DELTA, SSE_ERROR]
    assert events[1][1]["error"] == {"message": failed, "type": "server_error", "code": 500}
