"""MCP speak and clone_voice with ``clean``: the clip cleaned first, into the same cleaned-clip
files as the Clone view and ``synth --clean``, what cleanup did told in the answer's notes, and
a bad step or a clean without a clip refused in one sentence."""

from __future__ import annotations

import asyncio

from studio.sound.files import read_audio
from tests.mcp.test_mcp import answer, sentence, stdio_client
from tests.padded_clip import PADDED_CLIP_TEXT as TEXT


def test_speak_and_clone_voice_clean_the_clip_first(tiny_checkpoint, tmp_path, padded_clip):
    data = tmp_path / "data"
    seconds = read_audio(padded_clip)[0].shape[-1] / read_audio(padded_clip)[1]

    async def session():
        async with stdio_client(tiny_checkpoint, data) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            for name in ("speak", "clone_voice"):
                assert "trim" in tools[name].input_schema["properties"]["clean"]["description"]
            spoken = answer(await client.call_tool("speak", {
                "text": "Hello.", "clip": str(padded_clip), "clip_transcript": TEXT,
                "clean": ["trim"], "seed": 1}))
            saved = answer(await client.call_tool("clone_voice", {
                "name": "Trimmed", "clip": str(padded_clip), "transcript": TEXT,
                "clean": ["all"]}))
            plain = answer(await client.call_tool("clone_voice", {
                "name": "As recorded", "clip": str(padded_clip), "transcript": TEXT}))
            refused = [sentence(await client.call_tool("speak", arguments)) for arguments in (
                {"text": "x", "clip": str(padded_clip), "clip_transcript": TEXT, "clean": ["echo"]},
                {"text": "x", "design": "female", "clean": ["trim"]})]
            return spoken, saved, plain, refused

    spoken, saved, plain, refused = asyncio.run(session())
    [note] = [n for n in spoken["notes"] if n.startswith("Cleanup: ")]
    assert "trimmed at the start" in note
    cleaned = sorted((data / "cleaned_clips").glob("*.wav"))
    assert len(cleaned) == 2  # trim for speak, all three steps for the saved voice
    assert all(read_audio(p)[0].shape[-1] / read_audio(p)[1] < seconds - 1.5 for p in cleaned)
    assert saved["clip_seconds"] < plain["clip_seconds"] - 1.5
    assert any(n.startswith("Cleanup: ") and "loudness" in n for n in saved["notes"])
    assert plain["notes"] == []
    assert refused[0].startswith("Unknown cleanup step 'echo'; choose from noise, trim, loudness")
    assert refused[1] == ("The argument 'clean' cleans a reference clip; give the clip too, or "
                          "leave clean out.")
