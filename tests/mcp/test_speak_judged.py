"""MCP speak with ``judge``: the take's judgement in the tool result (and kept with the
take), the argument described in the tool's schema."""

from __future__ import annotations

import asyncio

from tests.mcp.test_mcp import TRANSCRIPT, answer, stdio_client
from tests.serve.servers import speech_like_wav


def test_speak_returns_and_keeps_the_judgement_when_asked(tiny_checkpoint, tmp_path):
    data = tmp_path / "data"
    clip = speech_like_wav(tmp_path / "clip.wav", seconds=4.0)

    async def session():
        async with stdio_client(tiny_checkpoint, data) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            judge = tools["speak"].input_schema["properties"]["judge"]
            assert judge["type"] == "boolean" and judge["default"] is False
            assert "voice match" in judge["description"] and "verdict" in judge["description"]
            plain = answer(await client.call_tool("speak", {"text": "Hello there.",
                                                            "seed": 1}))
            judged = answer(await client.call_tool("speak", {
                "text": "Cloned and judged.", "clip": str(clip),
                "clip_transcript": TRANSCRIPT, "judge": True}))
            return plain, judged

    plain, judged = asyncio.run(session())
    assert "judgement" not in plain
    judgement = judged["judgement"]
    assert [j["judge"] for j in judgement["judgements"]] == ["voice", "words", "sound"]
    voice = judgement["judgements"][0]
    assert voice["details"]["against"] == "the reference clip" and voice["score"] is not None
    from studio.library.takes import TakeLibrary

    with TakeLibrary(data, read_only=True) as takes:
        assert takes.get(judged["take_id"]).judgements == judgement
        assert takes.get(plain["take_id"]).judgements is None
