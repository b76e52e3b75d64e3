"""The MCP tools, over the use cases the command line and ``serve`` share.

Names are letters and underscores only (clients reject dots). Each tool's arguments are
typed and described, so the SDK derives a JSON schema a client shows its model. A call
the user can get wrong answers one sentence as an error result (``isError``), never a
traceback; an unexpected failure is logged and answered with a sentence pointing at the
log file. Every engine call is a ticket or a call on the one Renderer, so the model has
one owner and two agents' calls queue instead of mixing audio.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import io
import logging
import secrets
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import AudioContent, CallToolResult, TextContent
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from studio import __version__
from studio.errors import UserError, one_line
from studio.mcp.arguments import OneSentence, refusal
from studio.mcp.clean import CLEAN_HELP, clean_steps

log = logging.getLogger(__name__)

NAME = "omnivoice"
UNEXPECTED = "The speech server failed on this call; the details are in its log file."
INSTRUCTIONS = (
    "Text to speech with OmniVoice. Call list_voices for the saved voices, then speak with "
    "a voice name, a reference clip (with its transcript) or a design such as 'a young "
    "woman, low pitch'. Every take is kept in the studio's take library (list_takes).")


def guarded(tool):
    """A tool whose UserError is its one-sentence error result, and whose bugs are logged."""

    @functools.wraps(tool)
    async def call(*args, **kwargs):
        try:
            return await tool(*args, **kwargs)
        except UserError as exc:
            return refusal(one_line(str(exc)))
        except Exception:
            log.exception("MCP tool %s failed", tool.__name__)
            return refusal(UNEXPECTED)

    return call


def wav_bytes(audio, sample_rate: int) -> bytes:
    import soundfile as sf

    buffer = io.BytesIO()
    sf.write(buffer, audio, sample_rate, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def _clip_path(clip: str) -> Path:
    path = Path(clip).expanduser()
    if not path.is_file():
        raise UserError(f"The clip {clip[:200]} does not exist or is not a file; give the full "
                        "path of a WAV, FLAC or OGG file on this computer.")
    return path


def build_server(renderer, data_root: Path, asr_model: str | None = None) -> MCPServer:
    """The MCP server whose tools render on ``renderer`` and file takes in ``data_root``."""
    from studio.mcp.keep import keep_take, keeper

    sentences = OneSentence()
    server = MCPServer(NAME, instructions=INSTRUCTIONS, version=__version__,
                       middleware=[sentences])
    sentences.server = server  # it reads the tools' schemas
    takes = keeper(data_root)  # used on the model's thread only (Renderer.call)
    clean_clip = renderer.cleaner  # the server's one Cleaner, on the model's thread too

    async def on_model_thread(work):
        return await asyncio.wrap_future(renderer.call(work))

    @server.tool(description="The server's state: its model, whether it is loaded, and how "
                             "many calls are queued or rendering.")
    @guarded
    async def health() -> dict:
        return {"status": "ok", "model": renderer.model_id,
                "model_loaded": renderer.engine is not None,
                "queue": {"admitted": renderer.admitted, "limit": renderer.limit},
                "version": __version__}

    @server.tool(description="The languages the model speaks (ids and names); pass an id or "
                             "a name as speak's language.")
    @guarded
    async def list_languages(
        search: Annotated[str | None, Field(
            description="keep only languages whose id or name contains this")] = None,
    ) -> dict:
        from studio.engine.languages import load_languages

        wanted = (search or "").strip().lower()
        found = [{"id": e.id, "name": e.name} for e in load_languages().entries
                 if wanted in e.id.lower() or wanted in e.name.lower()]
        return {"languages": found}

    @server.tool(description="The saved voices of the studio (name, language, tags); pass a "
                             "name as speak's voice.")
    @guarded
    async def list_voices() -> dict:
        from studio.serve.voices import saved_voices

        voices = await run_in_threadpool(saved_voices, data_root)
        return {"voices": [{"name": v["name"], "language": v["language"], "tags": v["tags"]}
                           for v in voices if v["type"] == "saved"]}  # not serve's stock names

    @server.tool(description="Turn a plain description of a voice ('an old man with a deep "
                             "voice, British accent') into the design speak takes; a word it "
                             "does not understand is named in the error.")
    @guarded
    async def design_voice(
        description: Annotated[str, Field(description="the voice in plain words")],
    ) -> dict:
        from studio.engine.describe import instruct_or_description, selection_from_instruct

        design = instruct_or_description(description)
        if design is None:
            raise UserError("The description is empty; describe the voice, for example "
                            "'a young woman, high pitch'.")
        picked = selection_from_instruct(design) or {}
        return {"design": design,
                "attributes": {key: value for key, value in picked.items() if value}}

    @server.tool(description="Speak a text and keep the take in the studio's take library. "
                             "The voice is at most one of: a saved voice (voice), a reference "
                             "clip to clone (clip with clip_transcript), or a design (a "
                             "description or design_voice's design); with none the model "
                             "picks a voice. Returns the take's file path, its audio when "
                             "include_audio is true, and its judgement when judge is true.")
    @guarded
    async def speak(
        text: Annotated[str, Field(description="what to say")],
        voice: Annotated[str | None, Field(description="a saved voice's name (list_voices)")] = None,
        clip: Annotated[str | None, Field(
            description="path of a 3-10 s reference clip on this computer to clone")] = None,
        clip_transcript: Annotated[str | None, Field(
            description="the words spoken in clip (required with clip)")] = None,
        clean: Annotated[list[str] | None, Field(description=CLEAN_HELP)] = None,
        design: Annotated[str | None, Field(
            description="a voice design or description, such as 'female, low pitch'")] = None,
        language: Annotated[str | None, Field(
            description="a language id or name (list_languages); default: detected")] = None,
        seed: Annotated[int | None, Field(
            description="a seed, to render the same take again")] = None,
        speed: Annotated[float | None, Field(description="speaking rate, 1 is normal")] = None,
        include_audio: Annotated[bool, Field(
            description="also return the audio (WAV) in the result")] = False,
        judge: Annotated[bool, Field(description=(
            "also judge the take (takes seconds): 'judgement' then holds a combined score "
            "0-1 and, per judge (voice match to the clip or saved voice, words heard "
            "against the text, sound quality), a score 0-1, a verdict (ok, warn, bad, "
            "not judged) and one line saying why"))] = False,
    ):
        from studio.serve.renderer import QueueFull, Ticket
        from studio.serve.request import check_request, parse_speech, probe_ref_audio
        from studio.serve.voices import resolve_voice

        if sum(x is not None for x in (voice, clip, design)) > 1:
            raise UserError("Give at most one of voice, clip and design; they each choose "
                            "the voice.")
        if clip is not None and not (clip_transcript or "").strip():
            raise UserError("A clip needs its transcript in clip_transcript (the words it "
                            "speaks).")
        steps = clean_steps(clean)
        if steps and clip is None:
            raise UserError("The argument 'clean' cleans a reference clip; give the clip too, or leave "
                            "clean out.")
        saved = await run_in_threadpool(_saved_voice, data_root, voice) if voice else None
        body = {"input": text, "voice": saved.name if saved else None,
                "instructions": design, "language": language, "seed": seed,
                "speed": speed, "judge": judge}
        parsed = parse_speech(body)
        path = _clip_path(clip) if clip is not None else None
        cleanup_notes: list[str] = []
        if path is not None:
            path, cleanup_notes = await on_model_thread(lambda engine: clean_clip(path, steps))
            data = await run_in_threadpool(path.read_bytes)
            probe_ref_audio(data)
            parsed.ref_audio, parsed.ref_text = data, clip_transcript
            parsed.ref_key = hashlib.sha256(data).hexdigest()
        resolved = await run_in_threadpool(resolve_voice, parsed, data_root)
        notes = check_request(parsed, resolved)
        if parsed.seed is None and resolved.seed is None:
            parsed.seed = secrets.randbits(31)
        ticket = Ticket(parsed, resolved, asyncio.get_running_loop())
        try:
            renderer.submit(ticket)
        except QueueFull as full:
            raise UserError(f"The server is busy ({renderer.limit} calls are queued or "
                            f"rendering); try again in {full.retry_after} s.") from None
        try:
            while True:
                kind, payload = await ticket.events.get()
                if kind == "error":
                    raise UserError(payload[1])
                if kind == "done":
                    break
        except asyncio.CancelledError:
            ticket.leave()
            raise
        rendered = payload
        warnings: list[str] = []
        take_id, kept = await on_model_thread(lambda engine: keep_take(
            takes, engine, text=text, language=parsed.language or resolved.language,
            instruct=resolved.instruct, clip=path, ref_text=clip_transcript,
            voice_id=saved.id if saved else None, speed=parsed.speed,
            options=parsed.options, rendered=rendered, warn=warnings.append))
        answer = {"take_id": take_id,
                  "file": str(kept) if kept else None,
                  "seconds": round(rendered.audio.shape[-1] / rendered.sample_rate, 3),
                  "sample_rate": rendered.sample_rate, "seed": rendered.seed,
                  "voice": resolved.name or resolved.instruct or ("clip" if path else "auto"),
                  "notes": cleanup_notes + notes + warnings}
        if judge:
            answer["judgement"] = rendered.judgement
        content: list = [TextContent(type="text", text=_json(answer))]
        if include_audio or take_id is None:
            wav = await run_in_threadpool(wav_bytes, rendered.audio, rendered.sample_rate)
            content.append(AudioContent(type="audio", data=base64.b64encode(wav).decode(),
                                        mime_type="audio/wav"))
        return CallToolResult(content=content, structured_content=answer)

    @server.tool(description="Save a reference clip as a named voice (3-10 s of one person "
                             "speaking), so speak can use it by name.")
    @guarded
    async def clone_voice(
        name: Annotated[str, Field(description="the new voice's name")],
        clip: Annotated[str, Field(description="path of the clip on this computer")],
        transcript: Annotated[str, Field(description="the words spoken in the clip")],
        language: Annotated[str | None, Field(description="the voice's language")] = None,
        tags: Annotated[list[str] | None, Field(description="tags to find it by")] = None,
        clean: Annotated[list[str] | None, Field(description=CLEAN_HELP)] = None,
    ) -> dict:
        from studio.engine.prompt_cache import default_cache_folder, disk_cache_enabled
        from studio.service.voice_save import check_new_voice, save_voice
        from studio.service.voices import prompt_source

        if not transcript.strip():
            raise UserError("The transcript is empty; give the words spoken in the clip.")
        steps, source = clean_steps(clean), _clip_path(clip)
        path, cleanup_notes = await on_model_thread(lambda engine: clean_clip(source, steps))
        new = await run_in_threadpool(check_new_voice, name, path, tags or (), language, data_root)
        cache = default_cache_folder() if disk_cache_enabled() else None

        def save(engine):
            return save_voice(prompt_source(engine, cache, None), new, transcript,
                              root=data_root)

        saved, _source = await on_model_thread(save)
        return {"name": saved.name, "language": saved.language, "tags": list(saved.tags),
                "clip_seconds": round(new.seconds, 2), "notes": cleanup_notes}

    @server.tool(description="Transcribe a clip with the speech recognition model (it must "
                             "be downloaded in the studio first).")
    @guarded
    async def transcribe(
        clip: Annotated[str, Field(description="path of the clip on this computer")],
    ) -> dict:
        from studio.engine.asr import DEFAULT_ASR_MODEL, Transcriber
        from studio.engine.audio import to_mono
        from studio.sound.files import read_audio

        wave, rate = await run_in_threadpool(read_audio, _clip_path(clip))

        def hear(engine):
            return Transcriber(asr_model or DEFAULT_ASR_MODEL, str(engine.device))(
                to_mono(wave), rate)

        return {"text": await on_model_thread(hear)}

    @server.tool(description="The kept takes, newest first: id, text, voice, length, "
                             "file path.")
    @guarded
    async def list_takes(
        search: Annotated[str | None, Field(
            description="keep takes whose text, name or notes contain every word")] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="at most this many")] = 20,
    ) -> dict:
        found = await run_in_threadpool(_takes, data_root, search or "", limit)
        return {"takes": found}

    @server.tool(description="One kept take by id: its settings, file path, scores, and its "
                             "audio when include_audio is true.")
    @guarded
    async def get_take(
        take_id: Annotated[str, Field(description="an id from list_takes or speak")],
        include_audio: Annotated[bool, Field(description="also return the audio (WAV)")] = False,
    ):
        summary, audio = await run_in_threadpool(_take, data_root, take_id, include_audio)
        content: list = [TextContent(type="text", text=_json(summary))]
        if audio is not None:
            content.append(AudioContent(type="audio", data=base64.b64encode(audio).decode(),
                                        mime_type="audio/wav"))
        return CallToolResult(content=content, structured_content=summary)

    @server.tool(description="Render a multi-speaker script into one mix at -16 LUFS. The "
                             "script is 'Name: words' lines (a line without a name continues "
                             "the speaker, a blank line is a longer pause); voices gives each "
                             "speaker a saved voice, a clip or a design.")
    @guarded
    async def render_script(
        script: Annotated[str, Field(description="the script text, 'Name: words' per line")],
        voices: Annotated[dict[str, dict], Field(description=(
            'each speaker\'s voice: {"voice": saved name}, {"ref": clip path, "ref_text": '
            'its words} or {"instruct": a design or description}; each may add "seed" and '
            '"language"'))],
        output: Annotated[str, Field(
            description="path of the mix to write (.wav, .flac, .ogg or .mp3)")],
        markdown: Annotated[bool, Field(
            description="read '# Title' lines as chapters")] = False,
        seed: Annotated[int | None, Field(
            description="line n gets seed + n, so the render can be repeated")] = None,
    ) -> dict:
        from studio.engine.describe import instruct_or_description
        from studio.engine.lexicon import load_pronunciations
        from studio.engine.options import GenerationOptions
        from studio.engine.prompt_cache import default_cache_folder, disk_cache_enabled
        from studio.scripts.export import check_mix_path, stage_outputs
        from studio.scripts.parse import parse_text
        from studio.scripts.render import check_timeline, render_script
        from studio.scripts.voices import script_voices, voice_specs
        from studio.service.voices import prompt_source
        from studio.staged import Staged

        parsed = parse_text(script, markdown=markdown)
        if not parsed.lines:
            raise UserError("The script has no lines; write 'Name: words' lines.")
        check_timeline(parsed)
        mix = check_mix_path(Path(output).expanduser())
        specs = voice_specs(voices, parsed.speakers, "(render_script's voices)", Path.cwd())
        for spec in specs.values():  # a description reads as the Design view reads it
            if "instruct" in spec:
                spec["instruct"] = instruct_or_description(spec["instruct"])
        cache = default_cache_folder() if disk_cache_enabled() else None

        def render(engine):
            chosen = script_voices(engine, prompt_source(engine, cache, None), specs, data_root)
            return render_script(engine, parsed, chosen, GenerationOptions(), seed=seed,
                                 lexicon=load_pronunciations(root=data_root))

        rendered = await on_model_thread(render)

        def write():
            with Staged() as staged:
                stage_outputs(staged, parsed, rendered, mix, {})
                staged.commit()

        await run_in_threadpool(write)
        return {"file": str(mix), "lines": len(parsed.lines), "speakers": parsed.speakers,
                "seconds": round(rendered.seconds, 3), "seeds": rendered.seeds,
                "lufs": None if rendered.lufs is None else round(rendered.lufs, 2),
                "warnings": rendered.warnings}

    return server


def _json(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _saved_voice(root: Path, name: str):
    from studio.library.voices import VoiceLibrary, VoiceNotFound

    try:
        with VoiceLibrary(root, read_only=True) as library:
            return library.find(name)
    except VoiceNotFound:
        raise UserError(f"No saved voice is named '{name[:60]}'; list_voices lists them, and "
                        "design takes a description.") from None


def _summary(take) -> dict:
    s = take.settings
    return {"take_id": take.id, "created": take.created, "text": s.text,
            "voice": take.voice_name or s.instruct or ("clip" if s.reference_path else "auto"),
            "language": s.language, "seed": s.seed, "seconds": round(take.audio_seconds, 3),
            "loudness_lufs": take.loudness_lufs, "suspects": list(take.suspects),
            "asr_cer": take.asr_cer, "starred": take.starred, "file": str(take.audio_path)}


def _open_takes(root: Path):
    from studio.library.takes import TakeLibrary

    return TakeLibrary(root, read_only=True)


def _takes(root: Path, search: str, limit: int) -> list[dict]:
    from studio.library.db import DB_FILE

    if not (root / DB_FILE).exists():
        return []
    with _open_takes(root) as library:
        return [_summary(t) for t in library.list(search)[:limit]]


def _take(root: Path, take_id: str, include_audio: bool):
    from studio.library.db import DB_FILE
    from studio.library.takes import TakeNotFound

    if not (root / DB_FILE).exists():
        raise TakeNotFound(f"The take {take_id[:40]!r} is not in the library; list_takes "
                           "lists the takes.")
    with _open_takes(root) as library:
        take = library.get(take_id)
        audio = None
        if include_audio:
            wave, rate = library.read_audio(take.id)
            audio = wav_bytes(wave, rate)
    return _summary(take), audio
