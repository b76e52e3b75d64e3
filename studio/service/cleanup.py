"""A reference clip cleaned once, kept as a file: what the studio shows and plays, what the
prompt cache keys on and what a voice saved from it keeps.

The cleaned clip is a WAV in the data folder named for the source's content and the
cleanup's identity (:func:`studio.judges.cleanup.identity`: the steps and the versions of
what runs them), with that identity written into the file's comment. So the file's own
sha256, which is what the prompt cache keys a clip on, covers the cleaned samples, the
steps and their versions: the same clip cleaned again (here, by the CLI, or after the file
was pruned) hits the cache, and a changed step misses it. A report of what each step did
lies beside it as JSON, so a clip cleaned before shows its cleanup without running it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.atomic import atomic_write
from studio.errors import UserError

log = logging.getLogger(__name__)

FOLDER = "cleaned_clips"
KEEP = 64  # cleaned clips kept (the newest used); a saved voice holds its own copy
SUBTYPE = "PCM_24"


@dataclass(frozen=True)
class CleanedClip:
    path: Path  # the clip to encode: the cleaned file, or the source when no step is on
    source: Path
    report: object  # studio.judges.cleanup.CleanupReport, or None when no step is on
    reused: bool = False  # found from an earlier cleaning, nothing was run


def default_folder() -> Path:
    from studio.paths import data_dir

    return data_dir() / FOLDER


def _name(source: Path, ident: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(source, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        raise UserError(f"The reference clip {source} does not exist.") from None
    except OSError as exc:
        raise UserError(f"The reference clip {source} cannot be read "
                        f"({exc.strerror or exc}).") from None
    return hashlib.sha256(digest.hexdigest().encode() + b"\0" + ident.encode()).hexdigest()


def cleaned_clip(source: str | os.PathLike, steps: tuple[str, ...], cleaner,
                 folder: Path | None = None, progress=None) -> CleanedClip:
    """The cleaned version of ``source`` with ``steps`` (a :class:`Cleaner` runs them
    when no earlier cleaning is on disk); ``progress(words, fraction)``."""
    from studio.judges.cleanup import CleanupReport, identity_text
    from studio.sound.files import read_audio

    source = Path(source)
    if not steps:
        return CleanedClip(source, source, None)
    ident = identity_text(steps)
    folder = Path(folder) if folder is not None else default_folder()
    name = _name(source, ident)
    wav, side = folder / f"{name}.wav", folder / f"{name}.json"
    if wav.is_file() and side.is_file():
        try:
            report = CleanupReport.from_dict(json.loads(side.read_text(encoding="utf-8")))
            os.utime(wav)
            return CleanedClip(wav, source, report, reused=True)
        except (OSError, ValueError, TypeError) as exc:
            log.warning("cleaned clip %s unreadable (%s); cleaning again", side, exc)
    audio, rate = read_audio(source)
    cleaned, report = cleaner.clean(audio, rate, steps, progress)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write(wav, cleaned, rate, ident)
        with atomic_write(side) as handle:  # after the clip: a report never lacks its clip
            handle.write(json.dumps(report.to_dict(), indent=1).encode("utf-8"))
    except OSError as exc:
        raise UserError(f"The cleaned clip could not be saved in {folder} "
                        f"({exc.strerror or exc}); free some space or turn cleanup off.") from None
    prune(folder, keep={name})
    return CleanedClip(wav, source, report)


def _write(path: Path, audio: np.ndarray, rate: int, ident: str) -> None:
    import soundfile as sf

    with atomic_write(path) as handle:
        with sf.SoundFile(handle, "w", samplerate=rate, channels=1, format="WAV",
                          subtype=SUBTYPE) as out:
            out.comment = f"OmniVoice Desktop cleanup {ident}"
            out.write(np.clip(audio, -1.0, 1.0))


def prune(folder: Path, keep: set[str] = frozenset(), limit: int = KEEP) -> int:
    """Delete all but the ``limit`` most recently used cleaned clips (and their reports)."""
    try:
        clips = sorted(folder.glob("*.wav"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return 0
    removed = 0
    for path in clips[limit:]:
        if path.stem in keep:
            continue
        for item in (path, path.with_suffix(".json")):
            try:
                item.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("cannot delete the cleaned clip %s (%s)", item, exc)
        removed += 1
    return removed
