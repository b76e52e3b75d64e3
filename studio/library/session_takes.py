"""Takes the library could not keep, held for the rest of the session, and the one reader
the takes panel uses for both kinds.

When saving fails (a damaged or busy library, a full disk), the render's audio still
reaches the user: the takes live here, in memory, listed with a "Not saved" badge,
playable, comparable and exportable until the studio closes. ``TakeShelf`` answers
``list``, ``get``, ``read_audio`` and ``voices`` as the read-only library does, so the
panel, the A/B view and export read unsaved takes like any other. No Qt here.
"""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path

import numpy as np

from studio.library.clip_source import clip_label
from studio.library.fields import name_key
from studio.library.project_takes import ProjectTakes
from studio.library.take_record import Take, voice_key
from studio.library.takes import TakeNotFound

UNSAVED_PREFIX = "unsaved-"
UNSAVED = "unsaved"  # the badge code an unsaved take carries among its suspects


def is_unsaved(take_id: str) -> bool:
    return str(take_id).startswith(UNSAVED_PREFIX)


def new_unsaved_id() -> str:
    return f"{UNSAVED_PREFIX}{secrets.token_hex(8)}"


class SessionTakes:
    """Unsaved takes of this session, newest first; deleting one keeps it for undo."""

    def __init__(self):
        self._takes: dict[str, tuple[Take, np.ndarray, int]] = {}
        self._deleted: set[str] = set()

    def add(self, take: Take, audio: np.ndarray, sample_rate: int) -> Take:
        if not is_unsaved(take.id):
            raise ValueError(f"an unsaved take's id starts with {UNSAVED_PREFIX!r}")
        if UNSAVED not in take.suspects:
            take = dataclasses.replace(take, suspects=(*take.suspects, UNSAVED))
        if take.clip_label is None:
            take = dataclasses.replace(take, clip_label=clip_label(take.settings.reference_path))
        self._takes[take.id] = (take, np.asarray(audio, dtype=np.float32), int(sample_rate))
        return take

    def __contains__(self, take_id: object) -> bool:
        return take_id in self._takes

    def __len__(self) -> int:
        return len(self._takes) - len(self._deleted)

    def delete(self, ids) -> None:
        self._deleted |= {i for i in ids if i in self._takes}

    def undelete(self, ids) -> None:
        self._deleted -= set(ids)

    def list(self, search: str = "", *, voice: str | None = None, starred: bool | None = None,
             include_deleted: bool = False, project: str | ProjectTakes | None = None
             ) -> list[Take]:
        terms = name_key(search or "").split()
        scope = ProjectTakes.of(project) if project is not None else None
        out = []
        for take_id, (take, _audio, _rate) in self._takes.items():
            if take_id in self._deleted and not include_deleted:
                continue
            if voice is not None and voice_key(take.settings) != voice:
                continue
            if starred is not None and take.starred != starred:
                continue
            if scope is not None and not scope.holds(take):
                continue
            words = name_key("\n".join((take.settings.text, take.name, take.notes)))
            if all(term in words for term in terms):
                out.append(take)
        return sorted(out, key=lambda t: t.created, reverse=True)

    def get(self, take_id: str) -> Take:
        if take_id not in self._takes:
            raise TakeNotFound(f"The unsaved take {str(take_id)[:40]!r} is no longer held; "
                               "it was cleared when the studio closed.")
        return self._takes[take_id][0]

    def read_audio(self, take_id: str) -> tuple[np.ndarray, int]:
        self.get(take_id)
        _take, audio, rate = self._takes[take_id]
        return audio, rate

    def voices(self) -> list[tuple[str, str]]:
        """``(filter key, label)`` as the library gives them (labels as it makes them)."""
        out: dict[str, str] = {}
        for take in self.list():
            reference = take.settings.reference_path
            label = (take.clip_label or Path(reference).name) if reference else "Voice design"
            out.setdefault(voice_key(take.settings), label)
        return list(out.items())

    def projects(self) -> list[str]:
        return list(dict.fromkeys(t.settings.project for t in self.list() if t.settings.project))


class TakeShelf:
    """The read-only library (None while it cannot be opened) and the session's unsaved
    takes, read as one library: unsaved takes first, being the newest."""

    def __init__(self, library, session: SessionTakes):
        self.library = library
        self.session = session

    def list(self, search: str = "", **kw) -> list[Take]:
        saved = self.library.list(search, **kw) if self.library is not None else []
        return self.session.list(search, **kw) + saved

    def get(self, take_id: str) -> Take:
        if is_unsaved(take_id) or self.library is None:
            return self.session.get(take_id)
        return self.library.get(take_id)

    def read_audio(self, take_id: str) -> tuple[np.ndarray, int]:
        if is_unsaved(take_id) or self.library is None:
            return self.session.read_audio(take_id)
        return self.library.read_audio(take_id)

    def voices(self) -> list[tuple[str, str]]:
        saved = self.library.voices() if self.library is not None else []
        keys = {key for key, _ in saved}
        return saved + [(k, label) for k, label in self.session.voices() if k not in keys]

    def projects(self) -> list[str]:
        saved = self.library.projects() if hasattr(self.library, "projects") else []
        return list(dict.fromkeys(self.session.projects() + saved))
