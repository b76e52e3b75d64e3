"""Writing an ``.ovoice`` bundle (the format is described in :mod:`studio.library.bundle`).

No torch here: the Voices view writes the bundle a dragged voice card becomes (on a
thread, ahead of the drag), from files that were checked when the voice was saved or
imported.
Reading a bundle, which trusts nothing, is :mod:`studio.library.bundle`'s.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

from studio.atomic import atomic_write
from studio.errors import UserError
from studio.library import fields
from studio.library.voices import PROMPT_FILE, Voice, VoiceLibrary

FORMAT = "omnivoice-desktop-voice"
VERSION = 1
SUFFIX = ".ovoice"
MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 64 * 1024  # the field limits keep a real manifest under ~52 KB


def bundle_name(voice: Voice) -> str:
    """A file name for the voice's bundle: its name without characters file systems refuse."""
    safe = "".join("_" if c in '<>:"/\\|?*' or ord(c) < 32 else c for c in voice.name).strip(" .")
    return f"{safe or 'voice'}{SUFFIX}"


def write_stored(library: VoiceLibrary, voice_id: str, target: Path) -> Path:
    """The saved voice's own files as a bundle at ``target`` (no torch, no re-check)."""
    voice = library.get(voice_id)
    return write_files(voice, library.clip_path(voice.id), library.prompt_path(voice.id), target)


def write_files(voice: Voice, clip: Path, prompt: Path, target: Path) -> Path:
    """The bundle of ``voice`` from its clip and prompt files: no library (so no database
    connection) needed, for a thread other than the library's."""
    try:
        clip_data = clip.read_bytes()
        prompt_data = prompt.read_bytes()
    except OSError as exc:
        raise UserError(
            f"The voice '{voice.name}' cannot be exported because its files cannot be read "
            f"({exc.strerror or exc}); create the voice again from its reference clip."
        ) from None
    return write_bundle(voice, clip_data, prompt_data, target)


def write_bundle(voice: Voice, clip_data: bytes, prompt_data: bytes, target: Path) -> Path:
    """Write the bundle atomically at ``target``; returns it."""
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "name": voice.name,
        "transcript": voice.transcript,
        "instruct": voice.instruct,
        "seed": voice.seed,
        "tags": list(voice.tags),
        "language": voice.language,
        "created": fields.format_time(voice.created),
        "files": {
            "clip": _file_entry(voice.clip, clip_data),
            "prompt": _file_entry(PROMPT_FILE, prompt_data),
        },
    }
    manifest_data = json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8")
    if len(manifest_data) > MAX_MANIFEST_BYTES:  # the field limits make this unreachable
        raise UserError(
            f"The voice '{voice.name}' cannot be exported because its details are too long; "
            "shorten its transcript or voice design."
        )
    try:
        with atomic_write(target) as handle:
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(MANIFEST, manifest_data)
                # Stored, not deflated: audio shrinks by a few per cent at most, and
                # deflating a 10 s WAV took 117 of the bundle's 144 ms (bench_exports.py).
                archive.writestr(voice.clip, clip_data, compress_type=zipfile.ZIP_STORED)
                archive.writestr(PROMPT_FILE, prompt_data)
    except OSError as exc:
        raise UserError(
            f"Cannot write the voice file {target} ({exc.strerror or exc}); "
            "choose another folder or free some disk space."
        ) from None
    return target


def _file_entry(name: str, data: bytes) -> dict:
    return {"name": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
