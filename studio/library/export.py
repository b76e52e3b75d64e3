"""Exporting takes: the audio in a common format plus a ``.json`` sidecar holding the
take's full snapshot (how to render it again, how it was made).

Each file is written atomically (temp file, fsync, rename), and an export never
overwrites an existing file: a name already taken gets `` (2)``, `` (3)``...
"""

from __future__ import annotations

import errno
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path

from studio import __version__
from studio.atomic import atomic_write
from studio.errors import UserError
from studio.library.take_record import Take
from studio.library.takes import TakeLibrary
from studio.outputs import name_of, safe_stem, title_of
from studio.sound import files

# format -> (libsndfile format, subtype, file extension)
_FORMATS = {
    "WAV": ("WAV", "PCM_24", ".wav"),
    "FLAC": ("FLAC", "PCM_24", ".flac"),
    "OGG": ("OGG", "VORBIS", ".ogg"),
    "MP3": ("MP3", "MPEG_LAYER_III", ".mp3"),  # libsndfile 1.1+ built with LAME and mpg123
}
SIDECAR_SCHEMA = 1
SIDECAR_SUFFIX = ".json"


def export_formats() -> list[str]:
    """The formats this machine's libsndfile can write, in menu order."""
    return [name for name, (container, subtype, _) in _FORMATS.items()
            if files.can_write(container, subtype)]


def default_stem(take: Take, place: str = "") -> str:
    """A file name without extension: the take's name, else a short title from its text
    (outputs.title_of: "Chapter two", never "Chapter two. The rain had not"), the saved
    voice it speaks in and ``place`` (such as "take 2", telling a batch's takes apart);
    its time when it has no words."""
    if take.name and safe_stem(take.name, ""):
        return safe_stem(take.name)
    title = title_of(take.settings.text)
    if safe_stem(title, ""):
        return name_of(title, take.voice_name or "", place)
    stamp = take.created[:19].replace("-", "").replace(":", "").replace("T", "-")
    return name_of(f"take-{stamp}", place)


def sidecar(take: Take, audio_file: str) -> dict:
    """The JSON sidecar of an exported take."""
    return {
        "schema": SIDECAR_SCHEMA,
        "app": f"OmniVoice Desktop {__version__}",
        "audio_file": audio_file,
        "id": take.id,
        "created": take.created,
        "name": take.name,
        "notes": take.notes,
        "starred": take.starred,
        "batch": take.batch,
        "sample_rate": take.sample_rate,
        "audio_seconds": take.audio_seconds,
        "loudness_lufs": take.loudness_lufs,
        "suspects": list(take.suspects),
        "asr_cer": take.asr_cer,
        "settings": asdict(take.settings),
        "run": asdict(take.run),
    }


def export_takes(library: TakeLibrary, ids: Iterable[str], folder: str | Path, fmt: str,
                 stems: Sequence[str] | None = None, *, sidecars: bool = True) -> list[Path]:
    """Write each take as ``<stem><ext>`` (and, with ``sidecars``, ``<stem>.json``) in
    ``folder``, made when missing; returns the audio paths, in the order of ``ids``.
    ``stems``: the file names the user chose (one per take), else each take's
    :func:`default_stem`; a name taken gets " (2)"."""
    key = str(fmt).upper().lstrip(".")
    if key not in export_formats():
        raise UserError(
            f"The export format {str(fmt)[:20]!r} is not available here; choose one of "
            f"{', '.join(export_formats())}."
        )
    container, subtype, ext = _FORMATS[key]
    takes = [library.get(take_id) for take_id in ids]  # every id is checked before writing
    target = Path(folder)
    written: list[Path] = []
    make_folder(target)
    try:
        for n, take in enumerate(takes):
            audio, rate = library.read_audio(take.id)
            chosen = stems[n] if stems is not None and n < len(stems) else None
            path = _free_path(target, safe_stem(chosen) if chosen else default_stem(take), ext)
            with atomic_write(path) as handle:
                files.write(handle, audio, rate, container, subtype)
            if sidecars:
                data = json.dumps(sidecar(take, path.name), ensure_ascii=False, indent=2)
                with atomic_write(path.with_suffix(SIDECAR_SUFFIX)) as handle:
                    handle.write((data + "\n").encode("utf-8"))
            written.append(path)
    except (OSError, files.FileError) as exc:
        raise UserError(
            f"The takes cannot be exported to {target} ({getattr(exc, 'strerror', None) or exc}); "
            "choose another folder or free some disk space."
        ) from None
    return written


def make_folder(folder: Path) -> None:
    """``folder`` made with its parents (or already there); else one sentence saying
    which folder, why it cannot be made, and what to do (the system's "[Errno 2] No such
    file or directory" named neither the folder nor a way out)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"The folder {folder} cannot be made: {_why_not(folder, exc)}; "
                        "choose another folder.") from None


def _why_not(folder: Path, exc: OSError) -> str:
    """Why ``folder`` cannot be made, in words about the place that refuses it: the
    deepest part of its path that exists."""
    there = next((p for p in (folder, *folder.parents) if p.exists()), folder.anchor)
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) or (Path(there).exists()
                                                     and not Path(there).is_dir()):
        return f"{there} is a file, not a folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"you are not allowed to write in {there}"
    if exc.errno == errno.EROFS:
        return f"{there} is on a disk that can only be read"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk of {there} is full"
    if exc.errno == errno.ENAMETOOLONG:
        return "its name is too long"
    if exc.errno == errno.ENOENT:
        return f"{there} does not take new folders"
    return f"{there} refuses it ({exc.strerror or exc})"


def _free_path(folder: Path, stem: str, ext: str) -> Path:
    """``stem + ext`` in ``folder``, numbered until neither it nor its sidecar exists."""
    n = 1
    while True:
        name = stem if n == 1 else f"{stem} ({n})"
        path = folder / f"{name}{ext}"
        if not path.exists() and not path.with_suffix(SIDECAR_SUFFIX).exists():
            return path
        n += 1
