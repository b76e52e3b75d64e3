"""Exporting takes: the audio in a common format plus a ``.json`` sidecar holding the
take's full snapshot (how to render it again, how it was made).

Each file is written atomically (temp file, fsync, rename), and an export never
overwrites an existing file: a name already taken gets `` (2)``, `` (3)``...
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path

from studio import __version__
from studio.atomic import atomic_write
from studio.errors import UserError
from studio.library.take_record import Take
from studio.library.takes import TakeLibrary
from studio.sound import files

# format -> (libsndfile format, subtype, file extension)
_FORMATS = {
    "WAV": ("WAV", "PCM_24", ".wav"),
    "FLAC": ("FLAC", "PCM_24", ".flac"),
    "OGG": ("OGG", "VORBIS", ".ogg"),
    "MP3": ("MP3", "MPEG_LAYER_III", ".mp3"),  # libsndfile 1.1+ built with LAME and mpg123
}
SIDECAR_SCHEMA = 1
MAX_STEM_CHARS = 80
STEM_WORDS = 6  # an unnamed take's file: the first words of its text
_UNSAFE = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')


def export_formats() -> list[str]:
    """The formats this machine's libsndfile can write, in menu order."""
    return [name for name, (container, subtype, _) in _FORMATS.items()
            if files.can_write(container, subtype)]


def default_stem(take: Take) -> str:
    """A file name without extension: the take's name, or the first words of its text
    (its time when it has no words)."""
    words = take.name or " ".join(take.settings.text.split()[:STEM_WORDS])
    if _UNSAFE.sub("", words).strip(" ."):
        return safe_stem(words)
    stamp = take.created[:19].replace("-", "").replace(":", "").replace("T", "-")
    return f"take-{stamp}"


def safe_stem(text: str) -> str:
    """``text`` as a file name without extension, on every system ("take" if nothing is left)."""
    stem = _UNSAFE.sub("_", " ".join(str(text).split())).strip(" .")
    return stem[:MAX_STEM_CHARS].rstrip(" .") or "take"


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
                 stems: Sequence[str] | None = None) -> list[Path]:
    """Write each take as ``<stem><ext>`` and ``<stem>.json`` in ``folder``; returns the
    audio paths, in the order of ``ids``. ``stems``: the file names the user chose (one
    per take), else each take's :func:`default_stem`; a name taken gets " (2)"."""
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
            data = json.dumps(sidecar(take, path.name), ensure_ascii=False, indent=2) + "\n"
            with atomic_write(path.with_suffix(".json")) as handle:
                handle.write(data.encode("utf-8"))
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
        if not path.exists() and not path.with_suffix(".json").exists():
            return path
        n += 1
