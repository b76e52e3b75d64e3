"""`omnivoice-desktop voices ...`: the saved voices from the command line.

``list``, ``export``, ``import`` and ``delete`` never load the model; ``save``
loads it once to encode the clip, through the prompt cache, as the studio does.
Every command checks what it can before it writes, so a refusal leaves the
library as it was.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.cli.common import library_chatter_to_log, print_summary
from studio.cli.options import add_hardware, add_json, add_model
from studio.engine.options import model_source
from studio.errors import UserError


def add_parser(commands) -> None:
    voices = commands.add_parser("voices", help="saved voices: list, save, export, import, delete")
    sub = voices.add_subparsers(dest="voices_command", required=True, metavar="COMMAND")

    listing = sub.add_parser("list", help="the saved voices, newest first")
    add_json(listing)

    save = sub.add_parser("save", help="save a reference clip as a voice")
    save.add_argument("name", help="the voice's name (unique, ignoring case)")
    save.add_argument("--ref", type=Path, required=True, help="reference clip, 1 to 30 s of speech")
    save.add_argument("--ref-text", help="transcript of the clip (omit to auto-transcribe)")
    save.add_argument("--tags", default="", help="comma-separated tags, e.g. calm,narrator")
    save.add_argument("--lang", help="the voice's language id or name (used when a render names none)")
    add_model(save, "checkpoint folder or repo id that encodes the clip")
    save.add_argument("--asr-model", default=None, help="Whisper model for auto-transcription")
    save.add_argument("--no-preprocess", action="store_true", help="do not trim the clip")
    add_hardware(save)
    add_json(save)

    export = sub.add_parser("export", help="write a voice to a portable .ovoice file")
    export.add_argument("name")
    export.add_argument("file", type=Path, help="the .ovoice file to write")
    add_json(export)

    imported = sub.add_parser("import", help="add the voice in an .ovoice file")
    imported.add_argument("file", type=Path, help="the .ovoice file to read")
    imported.add_argument("--rename", help="save it under this name instead of its own")
    add_json(imported)

    delete = sub.add_parser("delete", help="delete a saved voice and its files")
    delete.add_argument("name")
    add_json(delete)


def run(args: argparse.Namespace) -> int:
    print_summary(args, summarise(args))
    return 0


def summarise(args: argparse.Namespace) -> dict:
    """Carry out one ``voices`` command; returns its summary (``message`` for people)."""
    from studio.library.voices import VoiceLibrary

    command = args.voices_command
    if command == "save":
        return _save(args, args.studio_model)
    with VoiceLibrary() as library:
        if command == "list":
            voices = [describe(library, voice) for voice in library.list()]
            return {"voices": voices, "message": _table(voices)}
        if command == "export":
            from studio.library.bundle import export_voice

            voice = library.find(args.name)
            path = export_voice(library, voice.id, args.file)
            return {"name": voice.name, "file": str(path),
                    "message": f"Exported the voice '{voice.name}' to {path}."}
        if command == "import":
            return _import(library, args)
        voice = library.find(args.name)
        library.delete(voice.id)
        return {"name": voice.name, "deleted": True, "message": f"Deleted the voice '{voice.name}'."}


def describe(library, voice) -> dict:
    from studio.library.fields import format_time
    from studio.sound.files import clip_seconds

    seconds = clip_seconds(library.clip_path(voice.id))
    return {
        "name": voice.name,
        "language": voice.language,
        "tags": list(voice.tags),
        "transcript": voice.transcript,
        "clip_seconds": round(seconds, 2) if seconds is not None else None,
        "created": format_time(voice.created),
        "id": voice.id,
    }


def _table(voices: list[dict]) -> str:
    if not voices:
        return "No saved voices yet; save one with `omnivoice-desktop voices save NAME --ref CLIP`."
    rows = [("NAME", "LANGUAGE", "CLIP", "TAGS", "CREATED")]
    for voice in voices:
        clip = f"{voice['clip_seconds']:.1f} s" if voice["clip_seconds"] is not None else "?"
        rows.append((voice["name"], voice["language"] or "-", clip,
                     ", ".join(voice["tags"]) or "-", voice["created"][:10]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                     for row in rows)


def _import(library, args) -> dict:
    from studio.library import fields
    from studio.library.bundle import read_bundle

    contents = read_bundle(args.file)  # every part checked before anything is written
    try:
        name = fields.clean_name(args.rename) if args.rename is not None else contents.name
    except fields.InvalidField as exc:
        raise UserError(exc.sentence()) from None
    if library.name_taken(name):
        hint = "another name" if args.rename is not None else "another name with --rename NEW"
        raise UserError(f"A voice named '{name}' is already in the library; import it under {hint}.")
    voice = library.create_from_data(
        name, contents.clip_data, Path(contents.clip_name).suffix, contents.prompt,
        transcript=contents.transcript, instruct=contents.instruct, seed=contents.seed,
        tags=contents.tags, language=contents.language, created=contents.created,
    )
    return {"name": voice.name, "id": voice.id,
            "message": f"Imported the voice '{voice.name}' from {args.file}."}


def _save(args, studio_model: str | None) -> dict:
    from studio.engine.asr import DEFAULT_ASR_MODEL
    from studio.engine.engine import Engine
    from studio.engine.prompt_cache import default_cache_folder, disk_cache_enabled
    from studio.service.voice_save import check_new_voice, save_voice
    from studio.service.voices import prompt_source

    # Everything that needs no model first, so a clash or a bad clip costs nothing.
    new = check_new_voice(args.name, args.ref, args.tags.split(","), args.lang)
    seconds = new.seconds
    with library_chatter_to_log():
        engine = Engine.load(model_source(args.model, studio_model), device=args.device,
                             precision=args.precision)
        prompts = prompt_source(engine, default_cache_folder() if disk_cache_enabled() else None,
                                args.asr_model or DEFAULT_ASR_MODEL)
        voice, source = save_voice(prompts, new, args.ref_text,
                                   preprocess=not args.no_preprocess)
    return {
        "name": voice.name, "id": voice.id, "transcript": voice.transcript,
        "clip_seconds": round(seconds, 2), "prompt_source": source,
        "encodes": prompts.encodes, "transcriptions": prompts.transcriptions,
        "message": f"Saved the voice '{voice.name}' ({seconds:.1f} s clip).",
    }
