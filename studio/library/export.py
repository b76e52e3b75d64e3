"""Exporting takes: the audio in a common format plus a ``.json`` sidecar holding the
take's full snapshot (how to render it again, how it was made).

Each file is written atomically (temp file, fsync, rename), and an export never
overwrites an existing file: a name already taken gets `` (2)``, `` (3)``...
"""

from __future__ import annotations

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
    try:
        target.mkdir(parents=True, exist_ok=True)
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
            f"The takes cannot be exported to {target} ({exc}); choose another folder or free "
            "some disk space."
        ) from None
    return written


def _free_path(folder: Path, stem: str, ext: str) -> Path:
    """``stem + ext`` in ``folder``, numbered until neither it nor its sidecar exists."""
    n = 1
    while True:
        name = stem if n == 1 else f"{stem} ({n})"
        path = folder / f"{name}{ext}"
        if not path.exists() and not path.with_suffix(SIDECAR_SUFFIX).exists():
            return path
        n += 1
