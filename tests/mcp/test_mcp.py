"""The MCP server through the official SDK's own client: ``omnivoice-desktop mcp`` spawned
over stdio, and ``/mcp`` on a real ``serve`` process over streamable HTTP, both on the tiny
random checkpoint. Listing the tools, calling each, bad calls (one sentence each), and two
agents speaking at once: each gets its own take, the same as rendering it alone."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
from contextlib import asynccontextmanager

import httpx
import httpx2
import numpy as np
import pytest
import soundfile as sf
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.serve.servers import API_KEY, COMMAND, env_for, serving, speech_like_wav

TOOLS = {"health", "list_languages", "list_voices", "design_voice", "speak", "clone_voice",
         "transcribe", "list_takes", "get_take", "render_script"}
TRANSCRIPT = "A clip of speech for the test."


def stdio_client(checkpoint, data):
    env = env_for(data)
    env["HF_HUB_OFFLINE"] = "1"
    return Client(StdioServerParameters(
        command=COMMAND, env=env,
        args=["mcp", "--model", str(checkpoint), "--device", "cpu", "--precision", "fp32"]))


@asynccontextmanager
async def http_client(url, key=API_KEY):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"},
                                  timeout=120) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            yield client


def answer(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def sentence(result) -> str:
    """An error result: one line, one sentence, no traceback."""
    assert result.is_error
    [block] = result.content
    text = block.text
    assert text.endswith(".") and "\n" not in text and "Traceback" not in text, text
    assert not re.search(r"\. [A-Z]", text) and len(text) < 300, text
    return text


def audio_of(result) -> np.ndarray:
    [block] = [b for b in result.content if b.type == "audio"]
    assert block.mime_type == "audio/wav"
    wave, rate = sf.read(io.BytesIO(base64.b64decode(block.data)), dtype="int16")
    assert rate == 24000
    return wave


async def speak_both(one, two, first: dict, second: dict):
    """Two agents' speak calls in flight at the same time."""
    return await asyncio.gather(one.call_tool("speak", first), two.call_tool("speak", second))


FIRST = {"text": "The storm rolled in over the hills.", "design": "female, low pitch",
         "seed": 11, "include_audio": True}
SECOND = {"text": "A quiet morning by the sea, at last.", "voice": "Narrator", "seed": 22,
          "include_audio": True}


def check_alone_equals_together(alone: list, together: list):
    for solo, both in zip(alone, together):
        a, b = answer(solo), answer(both)
        assert a["take_id"] != b["take_id"]  # each call is its own take
        np.testing.assert_array_equal(audio_of(solo), audio_of(both))
    assert answer(together[0])["file"] != answer(together[1])["file"]
    assert audio_of(together[0]).shape != audio_of(together[1]).shape  # different texts


def test_stdio_every_tool_bad_calls_and_two_calls_at_once(tiny_checkpoint, tmp_path):
    data = tmp_path / "data"
    clip = speech_like_wav(tmp_path / "clip.wav", seconds=4.0)

    async def session():
        async with stdio_client(tiny_checkpoint, data) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            for tool in tools.values():  # names every client accepts; schemas that explain
                assert re.fullmatch(r"[A-Za-z0-9_]{1,64}", tool.name)
                assert tool.description
                for name, prop in tool.input_schema.get("properties", {}).items():
                    assert prop.get("description"), (tool.name, name)

            health = answer(await client.call_tool("health", {}))
            assert health["model_loaded"] and health["model"] == "OmniVoice"
            languages = answer(await client.call_tool("list_languages", {"search": "english"}))
            assert {"id": "en", "name": "English"} in languages["languages"]
            assert answer(await client.call_tool("list_voices", {})) == {"voices": []}

            saved = answer(await client.call_tool("clone_voice", {
                "name": "Narrator", "clip": str(clip), "transcript": TRANSCRIPT,
                "language": "English", "tags": ["calm"]}))
            assert saved["name"] == "Narrator" and saved["language"] == "en"
            voices = answer(await client.call_tool("list_voices", {}))
            assert voices == {"voices": [{"name": "Narrator", "language": "en",
                                          "tags": ["calm"]}]}

            design = answer(await client.call_tool(
                "design_voice", {"description": "an old man with a deep voice"}))
            assert design["design"] and design["attributes"]

            spoken = await client.call_tool("speak", {"text": "Hello there.",
                                                      "voice": "Narrator", "seed": 5})
            said = answer(spoken)
            assert said["file"].endswith(".flac") and (data / "takes").is_dir()
            assert not [b for b in spoken.content if b.type == "audio"]  # asked for none
            cloned = answer(await client.call_tool("speak", {
                "text": "Cloned from the clip.", "clip": str(clip),
                "clip_transcript": TRANSCRIPT}))
            assert cloned["voice"] == "clip"

            takes = answer(await client.call_tool("list_takes", {}))["takes"]
            assert [t["take_id"] for t in takes] == [cloned["take_id"], said["take_id"]]
            assert takes[1]["voice"] == "Narrator" and takes[1]["seed"] == 5
            fetched = await client.call_tool("get_take", {"take_id": said["take_id"],
                                                          "include_audio": True})
            assert answer(fetched)["text"] == "Hello there."
            kept, _ = sf.read(said["file"], dtype="int16")
            np.testing.assert_array_equal(audio_of(fetched), kept)

            mix = tmp_path / "dialogue.wav"
            mixed = answer(await client.call_tool("render_script", {
                "script": "Ann: Hello there.\nBob: Hello, Ann.", "output": str(mix),
                "voices": {"Ann": {"voice": "Narrator"},
                           "Bob": {"instruct": "an old man with a deep voice"}}, "seed": 1}))
            assert mixed["speakers"] == ["Ann", "Bob"] and mixed["file"] == str(mix)
            assert sf.info(mix).duration == pytest.approx(mixed["seconds"], abs=0.05)

            # No speech recognition model on this machine: one sentence, not a hang.
            assert "speech recognition model" in sentence(
                await client.call_tool("transcribe", {"clip": str(clip)}))

            bad = {
                "speak": [{}, {"text": 5}, {"text": "x", "voice": "Nobody"},
                          {"text": "x", "voice": "Narrator", "design": "female"},
                          {"text": "x", "clip": str(clip)},
                          {"text": "x", "clip": str(tmp_path / "missing.wav"),
                           "clip_transcript": "x"},
                          {"text": "x", "design": "a purple voice of glass"},
                          {"text": "x", "txt": "y"}],
                "list_takes": [{"limit": 0}],
                "get_take": [{"take_id": "0" * 32}],
                "clone_voice": [{"name": "Narrator", "clip": str(clip), "transcript": "x"}],
                "design_voice": [{"description": ""}],
                "render_script": [
                    {"script": "Ann: Hi.\nBob: Hi.", "voices": {"Ann": {"voice": "Narrator"}},
                     "output": str(tmp_path / "m.wav")},
                    {"script": "Ann: Hi.", "voices": {"Ann": {"voice": "Narrator"}},
                     "output": str(tmp_path / "m.txt")}],
            }
            said_bad = []
            for tool, calls in bad.items():
                for arguments in calls:
                    said_bad.append(sentence(await client.call_tool(tool, arguments)))
            assert "speak needs the argument 'text'." in said_bad
            assert "The argument 'text' of speak must be a string." in said_bad
            assert "The argument 'limit' of list_takes must be at least 1." in said_bad
            assert any("No saved voice is named 'Nobody'" in s for s in said_bad)
            assert any("has no voice for Bob" in s for s in said_bad)

            # Two calls at once on the one engine: each its own take, as rendered alone.
            alone = [await client.call_tool("speak", FIRST),
                     await client.call_tool("speak", SECOND)]
            together = await speak_both(client, client, FIRST, SECOND)
            check_alone_equals_together(alone, together)

    asyncio.run(session())


@pytest.fixture(scope="module")
def served(tiny_checkpoint, tmp_path_factory):
    """``serve --api-key`` with one saved voice, "Narrator"."""
    import subprocess

    root = tmp_path_factory.mktemp("mcp-serve")
    data = root / "data"
    clip = speech_like_wav(root / "clip.wav", seconds=4.0)
    saved = subprocess.run([COMMAND, "voices", "save", "Narrator", "--ref", str(clip),
                            "--ref-text", TRANSCRIPT, "--model", str(tiny_checkpoint),
                            "--device", "cpu"],
                           env=env_for(data), capture_output=True, text=True, timeout=180)
    assert saved.returncode == 0, saved.stderr
    with serving(tiny_checkpoint, root, data, "--api-key", API_KEY) as server:
        yield server


def test_http_needs_the_key(served):
    refused = httpx.post(f"{served.url}/mcp", json={"jsonrpc": "2.0", "id": 1,
                                                    "method": "tools/list"})
    assert refused.status_code == 401
    assert "API key" in refused.json()["error"]["message"]


def test_http_two_agents_at_once(served):
    async def session():
        async with http_client(served.url) as one, http_client(served.url) as two:
            tools = {tool.name for tool in (await one.list_tools()).tools}
            assert tools == TOOLS
            voices = answer(await two.call_tool("list_voices", {}))["voices"]
            assert [v["name"] for v in voices] == ["Narrator"]
            assert "speak needs the argument 'text'." == sentence(
                await one.call_tool("speak", {}))
            alone = [await one.call_tool("speak", FIRST), await two.call_tool("speak", SECOND)]
            together = await speak_both(one, two, FIRST, SECOND)
            check_alone_equals_together(alone, together)
            takes = answer(await one.call_tool("list_takes", {"limit": 10}))["takes"]
            assert len(takes) == 4  # every call's take is in the library

    asyncio.run(session())
    assert "Traceback" not in served.log_text()
