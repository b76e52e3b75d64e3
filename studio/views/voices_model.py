"""The Voices view's list: saved voices, searched, filtered by tag and sorted.

The model reads a read-only :class:`~studio.library.voices.VoiceLibrary` and never
writes it. A search runs over names, tags, transcripts and notes folded once per
read, so a keystroke filters a thousand voices in about a millisecond; a card's
clip length and waveform are read from its file only when the card is drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt

from studio.library.fields import name_key

SORTS = {  # label -> key over an Entry; each sorts ascending
    "Name": lambda e: e.folded_name,
    "Recently used": lambda e: -(e.voice.last_used or e.voice.created).timestamp(),
    "Most used": lambda e: (-e.voice.use_count, e.folded_name),
    "Newest": lambda e: -e.voice.created.timestamp(),
}
DEFAULT_SORT = "Recently used"
ALL_TAGS = "All tags"
VoiceRole = Qt.ItemDataRole.UserRole + 1
WAVE_COLUMNS = 96  # the card's little waveform, in peaks


@dataclasses.dataclass
class Entry:
    voice: object  # studio.library.voices.Voice
    clip: Path
    folded_name: str
    haystack: tuple[str, ...]
    seconds: float | None = None  # read with the peaks, when the card is first drawn
    peaks: np.ndarray | None = None
    read: bool = False


def entries(voices: Iterable, voices_dir: Path) -> list[Entry]:
    out = []
    for voice in voices:
        folded = name_key(voice.name)
        haystack = (folded, *(name_key(t) for t in voice.tags), name_key(voice.transcript),
                    name_key(voice.notes))
        out.append(Entry(voice, voices_dir / voice.id / voice.clip, folded, haystack))
    return out


def select(all_entries: list[Entry], search: str = "", tag: str | None = None,
           sort: str = DEFAULT_SORT) -> list[Entry]:
    """The entries whose name, tags, transcript or notes hold every word of ``search``,
    carrying ``tag`` (any case) when one is given, in ``sort`` order."""
    terms = name_key(search).split()
    wanted = name_key(tag) if tag else None
    kept = [e for e in all_entries
            if (wanted is None or wanted in (name_key(t) for t in e.voice.tags))
            and all(any(term in text for text in e.haystack) for term in terms)]
    return sorted(kept, key=SORTS.get(sort, SORTS[DEFAULT_SORT]))


def read_clip(entry: Entry) -> None:
    """Fill in the clip's length and a small waveform (once; a missing file stays None)."""
    if entry.read:
        return
    entry.read = True
    try:
        from studio.sound.files import decode
        from studio.sound.peaks import waveform_peaks

        audio, rate = decode(str(entry.clip))
        entry.seconds = audio.shape[0] / rate if rate else None
        entry.peaks = waveform_peaks(audio.mean(axis=1), WAVE_COLUMNS)
    except Exception:  # unreadable: the card says so instead of a length
        entry.seconds, entry.peaks = None, None


def when(moment: datetime | None, now: datetime | None = None) -> str:
    """A short local date for a card: "today 14:05", "3 Dec", "3 Dec 2025"."""
    if moment is None:
        return "never"
    local = moment.astimezone()
    today = (now or datetime.now(timezone.utc)).astimezone()
    if local.date() == today.date():
        return f"today {local:%H:%M}"
    if local.year == today.year:
        return f"{local.day} {local:%b}"
    return f"{local.day} {local:%b %Y}"


class ReadsVoices:
    """A view that reads the saved voices: a read-only VoiceLibrary of the data folder,
    opened on first use (or the one given, for tests) and closed with the view."""

    _library = None

    def library(self):
        if self._library is None:
            from studio.library.voices import VoiceLibrary

            self._library = VoiceLibrary(read_only=True)
        return self._library

    def close_library(self) -> None:
        if self._library is not None:
            self._library.close()


class VoicesModel(QAbstractListModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._all: list[Entry] = []
        self._shown: list[Entry] = []
        self._filter = ("", None, DEFAULT_SORT)

    # -- reading --------------------------------------------------------------------
    def reload(self, library) -> None:
        """Read the voices again (after the worker changed them); keeps search and sort.
        What was read of each clip is kept for voices that are still there."""
        known = {e.voice.id: e for e in self._all}
        fresh = entries(library.list() if library is not None else [],
                        library.voices_dir if library is not None else Path())
        for entry in fresh:
            old = known.get(entry.voice.id)
            if old is not None and old.clip == entry.clip:
                entry.seconds, entry.peaks, entry.read = old.seconds, old.peaks, old.read
        self._all = fresh
        self.apply(*self._filter)

    def apply(self, search: str = "", tag: str | None = None, sort: str = DEFAULT_SORT) -> None:
        self._filter = (search, tag, sort)
        self.beginResetModel()
        self._shown = select(self._all, search, tag, sort)
        self.endResetModel()

    # -- queries --------------------------------------------------------------------
    def total(self) -> int:
        return len(self._all)

    def tags(self) -> list[str]:
        """Every tag in the library once (the first spelling seen), sorted ignoring case."""
        seen: dict[str, str] = {}
        for entry in self._all:
            for tag in entry.voice.tags:
                seen.setdefault(name_key(tag), tag)
        return sorted(seen.values(), key=name_key)

    def voice(self, voice_id: str):
        """The voice as last read (shown or filtered out), or None."""
        return next((e.voice for e in self._all if e.voice.id == voice_id), None)

    def entry(self, row: int) -> Entry | None:
        return self._shown[row] if 0 <= row < len(self._shown) else None

    def row_of(self, voice_id: str) -> int:
        return next((i for i, e in enumerate(self._shown) if e.voice.id == voice_id), -1)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's API
        return 0 if parent.isValid() else len(self._shown)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        entry = self.entry(index.row()) if index.isValid() else None
        if entry is None:
            return None
        voice = entry.voice
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return voice.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return voice.transcript
        if role == VoiceRole:
            return entry
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsDragEnabled if index.isValid() else base
