"""A reference clip cleaned once, kept as a file: what the studio shows and plays, what the
prompt cache keys on and what a voice saved from it keeps.

The cleaned clip is a WAV in the data folder named for the source's content and the
cleanup's identity (:func:`studio.judges.cleanup.identity`: the steps and the versions of
what runs them), with that identity written into the file's comment. So the file's own
sha256, which is what the prompt cache keys a clip on, covers the cleaned samples, the
steps and their versions: the same clip cleaned again (here, by the CLI, or after the file
was pruned) hits the cache, and a changed step misses it. A report of what each step did
lies beside it as JSON, so a clip cleaned before shows its cleanup without running it; it
also names the source clip (:mod:`studio.library.clip_source`), which labels the takes.
A clip that comes as bytes (``serve``'s ref_audio) is named by the same digest of its
content, so it meets the same file. A server's front ends share one :class:`ClipCleaner`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.atomic import atomic_write
from studio.errors import UserError
from studio.library.clip_source import SOURCE_KEY

log = logging.getLogger(__name__)

FOLDER = "cleaned_clips"
KEEP = 64  # cleaned clips kept (the newest used) besides those takes render from;
# a saved voice holds its own copy
SUBTYPE = "PCM_24"


@dataclass(frozen=True)
class CleanedClip:
    path: Path  # the clip to encode: the cleaned file, or the source when no step is on
    source: Path | None  # None: the clip came as bytes (serve's ref_audio)
    report: object  # studio.judges.cleanup.CleanupReport, or None when no step is on
    reused: bool = False  # found from an earlier cleaning, nothing was run


def default_folder() -> Path:
    from studio.paths import data_dir

    return data_dir() / FOLDER


def _file_digest(source: Path) -> str:
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
    return digest.hexdigest()


def _name(digest: str, ident: str) -> str:
    return hashlib.sha256(digest.encode() + b"\0" + ident.encode()).hexdigest()


def cleaned_clip(source: str | os.PathLike, steps: tuple[str, ...], cleaner,
                 folder: Path | None = None, progress=None) -> CleanedClip:
    """The cleaned version of ``source`` with ``steps`` (a :class:`Cleaner` runs them
    when no earlier cleaning is on disk); ``progress(words, fraction)``."""
    from studio.sound.files import read_audio

    source = Path(source)
    if not steps:
        return CleanedClip(source, source, None)
    return _cleaned(_file_digest(source), source.name, lambda: read_audio(source), steps,
                    cleaner, folder, progress, source)


def cleaned_bytes(data: bytes, decode, steps: tuple[str, ...], cleaner,
                  folder: Path | None = None, label: str = "ref_audio") -> CleanedClip:
    """``data``, a clip that came as bytes (serve's ref_audio), cleaned with ``steps`` (at
    least one) into the very file the same clip on disk would be cleaned into: the name
    keys on the content, not on a path. ``decode()`` gives its (samples, rate), within
    the caller's limits, only when no earlier cleaning is on disk; ``label`` stands for
    the file name in the report."""
    return _cleaned(hashlib.sha256(data).hexdigest(), label, decode, steps, cleaner, folder,
                    None, None)


def _cleaned(digest: str, label: str, decode, steps, cleaner, folder, progress,
             source: Path | None) -> CleanedClip:
    from studio.judges.cleanup import CleanupReport, identity_text

    ident = identity_text(steps)
    folder = Path(folder) if folder is not None else default_folder()
    name = _name(digest, ident)
    wav, side = folder / f"{name}.wav", folder / f"{name}.json"
    if wav.is_file() and side.is_file():
        try:
            data = json.loads(side.read_text(encoding="utf-8"))
            named = data.pop(SOURCE_KEY, None)
            report = CleanupReport.from_dict(data)
            os.utime(wav)
            if not named:  # cleaned before reports named their source: name it now
                _write_report(side, report, label)
            return CleanedClip(wav, source, report, reused=True)
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            log.warning("cleaned clip %s unreadable (%s); cleaning again", side, exc)
    audio, rate = decode()
    cleaned, report = cleaner.clean(audio, rate, steps, progress)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _write(wav, cleaned, rate, ident)
        _write_report(side, report, label)  # after the clip: a report never lacks its clip
    except OSError as exc:
        raise UserError(f"The cleaned clip could not be saved in {folder} "
                        f"({exc.strerror or exc}); free some space or turn cleanup off.") from None
    prune(folder, keep={name})
    return CleanedClip(wav, source, report)


def _write_report(side: Path, report, label: str) -> None:
    """The report, with the source's file name (``label``) that labels the takes rendered
    from it."""
    with atomic_write(side) as handle:
        data = {**report.to_dict(), SOURCE_KEY: label}
        handle.write(json.dumps(data, indent=1).encode("utf-8"))


def _write(path: Path, audio: np.ndarray, rate: int, ident: str) -> None:
    import soundfile as sf

    with atomic_write(path) as handle:
        with sf.SoundFile(handle, "w", samplerate=rate, channels=1, format="WAV",
                          subtype=SUBTYPE) as out:
            out.comment = f"OmniVoice Desktop cleanup {ident}"
            out.write(np.clip(audio, -1.0, 1.0))


def clips_in_use(data_root: Path) -> set[Path] | None:
    """The reference clips the takes in ``data_root`` render from, deleted ones too (Undo
    brings them back until they are purged); None when the take library cannot be read."""
    from studio.library.takes import TakeLibrary

    try:
        with TakeLibrary(data_root, read_only=True) as library:
            return {Path(p).absolute() for p in library.reference_paths()}
    except (UserError, OSError, sqlite3.Error) as exc:
        log.warning("cannot read which cleaned clips takes use (%s); none pruned", exc)
        return None


def prune(folder: Path, keep: set[str] = frozenset(), limit: int | None = None) -> int:
    """Delete all but the ``limit`` (KEEP) most recently used cleaned clips (and their
    reports), never one a take renders from: a take must stay renderable again."""
    limit = KEEP if limit is None else limit
    try:
        clips = sorted(folder.glob("*.wav"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return 0
    if len(clips) <= limit:
        return 0  # the take library is read only when something would go
    used = clips_in_use(folder.parent)  # the cleaned clips live in their data folder
    if used is None:
        return 0
    removed = 0
    for path in clips[limit:]:
        if path.stem in keep or path.absolute() in used:
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


class ClipCleaner:
    """One server's cleanup (``serve``'s ref_audio, the MCP tools' clips): clips cleaned into
    ``data_root``'s cleaned-clip folder (the data folder's when None) by one Cleaner, whose
    models load on first use. It is called on the model's thread only, so one runs at a
    time."""

    def __init__(self, data_root: Path | None = None):
        self.data_root = data_root
        self._cleaner = None

    @property
    def folder(self) -> Path:
        return Path(self.data_root) / FOLDER if self.data_root is not None else default_folder()

    def cleaner(self):
        if self._cleaner is None:
            from studio.judges.cleanup import Cleaner, speaker_encoder_or_none

            self._cleaner = Cleaner(speakers=speaker_encoder_or_none())
        return self._cleaner

    def __call__(self, clip: Path, steps: tuple[str, ...]) -> tuple[Path, list[str]]:
        """The clip to use and what to tell the caller (what cleanup did, its warnings)."""
        if not steps:
            return clip, []
        made = cleaned_clip(clip, steps, self.cleaner(), self.folder)
        return made.path, notes(made.report)

    def clean_bytes(self, data: bytes, decode, steps: tuple[str, ...]) -> CleanedClip:
        """:func:`cleaned_bytes` with this server's Cleaner and folder."""
        return cleaned_bytes(data, decode, steps, self.cleaner(), self.folder)


def notes(report) -> list[str]:
    """What cleanup did and its warnings, one sentence each."""
    return [f"Cleanup: {report.summary()}", *report.warnings]
