"""TakesModel: the take library as a Qt list model, read on the GUI thread.

The model reads a read-only :class:`studio.library.takes.TakeLibrary` and never
writes it: edits (rename, star) go out as intents (``rename_requested``) and show
at once as an optimistic patch, which the next :meth:`TakesModel.reload` (after
the worker's ``takes_changed``) replaces with the library's truth.

Rows are in the order the user chose, whatever arrives: newest first (by when each take
was rendered, so the takes of one Generate click stay together, 3/3 above 2/3 above 1/3,
judged or not; a script render's takes together in line order, however its voices were
grouped to render), or best score first, every take ranked on its own.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractListModel, QMimeData, QModelIndex, QObject, Qt, QUrl, Signal

from studio.library import suspect
from studio.library.session_takes import UNSAVED
from studio.views.take_judgements import judgement_of, rank_key, tooltip_lines
from studio.views.words import shown_name

if TYPE_CHECKING:
    from studio.library.take_record import Take
    from studio.service.judging import TakeJudgement

EXCERPT_CHARS = 90
TITLE_CHARS = 48
NEWEST, BEST = "newest", "best"  # the list's orders

# What each suspect badge means; the thresholds live in studio.library.suspect.
SUSPECT_LABELS = {
    suspect.NEAR_SILENT: "Silent",
    suspect.CLIPPED: "Clipped",
    suspect.TOO_QUIET: "Too quiet",
    suspect.TOO_LOUD: "Too loud",
    suspect.LONG_SILENCE: "Long gap",
    UNSAVED: "Not saved",
}
# One short line each: the details pane shows them on one line of a narrow panel
# (a longer one was cut at "…speech this loud is usually c"); the cards' tooltips too.
SUSPECT_TIPS = {
    suspect.NEAR_SILENT: (f"Near-silent: under {suspect.NEAR_SILENT_LUFS:g} LUFS; "
                          "the render likely failed."),
    suspect.CLIPPED: "Clipped: peaks cut off at full scale; it may crackle.",
    suspect.TOO_QUIET: f"Too quiet: under {suspect.QUIET_LUFS:g} LUFS (speech: -20 to -25).",
    suspect.TOO_LOUD: f"Too loud: above {suspect.LOUD_LUFS:g} LUFS, likely distorted.",
    suspect.LONG_SILENCE: (f"Long gap: a pause of {suspect.LONG_SILENCE_S:g} s or more; "
                           "words may be missing."),
    UNSAVED: ("Not saved: the take library could not keep this take, so it is listed only "
              "until the studio closes; export it to keep it."),
}


def suspect_label(code: str) -> str:
    return SUSPECT_LABELS.get(code, code.replace("-", " ").capitalize())


def suspect_tip(code: str) -> str:
    return SUSPECT_TIPS.get(code, f"Check this take: {code.replace('-', ' ')}.")


def real_time_text(rtf: float) -> str:
    """How fast a render ran, in words: "4.0× real time" (4 s of audio a second)."""
    if not rtf or rtf <= 0 or not math.isfinite(rtf):
        return "speed unknown"
    return f"{1 / rtf:.1f}× real time"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def local_time(created: str) -> _dt.datetime:
    """A take's ISO 8601 UTC creation time in the local time zone."""
    when = _dt.datetime.fromisoformat(created)
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return when.astimezone()


def clock_text(created: str, now: _dt.datetime | None = None) -> str:
    """"14:03" for today, "3 Mar 14:03" before."""
    when = local_time(created)
    now = now or _dt.datetime.now().astimezone()
    if when.date() == now.date():
        return when.strftime("%H:%M")
    return f"{when.day} {when:%b %H:%M}"  # %-d is not portable


def rendered_on(take: Take) -> str:
    """Where the take was rendered: "cpu bf16", or a server and its model."""
    run = take.run
    if run.backend:
        host = run.backend.split("://", 1)[-1]
        return f"remote {host} ({run.server_model or run.precision})"
    return f"{run.device} {run.precision}"


def voice_text(take: Take) -> str:
    """Who speaks: the saved voice, the reference clip's name, or the designed voice's
    attributes."""
    s = take.settings
    if take.voice_name:
        return take.voice_name
    if take.clip_label:  # a cleaned clip: by the clip it was cleaned from
        return take.clip_label
    if s.reference_path:
        return Path(shown_name(Path(s.reference_path))).stem
    if s.mode == "design":
        return s.instruct or "Designed voice"
    return "No reference"


def mode_label(take: Take) -> str:
    """The row's pill: Script for a script line's take, else Clone or Design."""
    return "Script" if take.settings.project else take.settings.mode.capitalize()


def script_place(take: Take) -> str:
    """Where a script line's take belongs: "radio play · line 3" ("" for other takes)."""
    s = take.settings
    if not s.project:
        return ""
    name = Path(s.project).stem or s.project
    return f"{name} · line {s.project_line}" if s.project_line else name


@dataclasses.dataclass(frozen=True)
class Row:
    take: Take
    number: int  # 1-based, in creation order over the whole library
    batch_index: int  # 1-based position within its batch
    batch_size: int

    @functools.cached_property
    def judged(self) -> TakeJudgement | None:
        """The take's judgement, parsed once (rows are rebuilt on every reload)."""
        return judgement_of(self.take)

    @property
    def name(self) -> str:
        """The take's title: its name, else the first words of its text."""
        return self.take.name or excerpt(self.take.settings.text, TITLE_CHARS) \
            or f"Take {self.number}"

    @property
    def subtitle(self) -> str:
        """The row's second line: the text under a name, else who speaks (and, for a
        script line's take, its project and line)."""
        if self.take.name:
            return excerpt(self.take.settings.text)
        place = script_place(self.take)
        return f"{place} · {voice_text(self.take)}" if place else voice_text(self.take)

    @property
    def position(self) -> str:
        """"Take 2/3": where the take sits in its batch, numbered as the status bar names
        the best one ("Best: take 2/3"); empty for a take rendered alone, and for a script
        line's (its batch is its render's lines, not variations; its line is named)."""
        if self.batch_size < 2 or self.take.settings.project_line:
            return ""
        return f"Take {self.batch_index}/{self.batch_size}"

    def identity(self, seconds: bool = False) -> str:
        """What tells this take from its neighbours where only a few words fit (the A/B
        tiles, the blind reveal): its batch position and time, after its name if it has one;
        ``seconds``: the time to the second (two single takes of one minute)."""
        clock = clock_text(self.take.created)
        if seconds:
            clock += f":{local_time(self.take.created):%S}"
        when = f"{self.position or 'Take'} at {clock}"
        return f"{self.take.name} ({when[0].lower()}{when[1:]})" if self.take.name else when

    @property
    def details(self) -> str:
        """The details pane's line: the batch position, then length and speed."""
        return " · ".join(w for w in (self.position, self.compact) if w)

    @property
    def compact(self) -> str:
        """Length and speed (the list row shows the position on its own, up front)."""
        return f"{self.take.audio_seconds:.1f} s · {real_time_text(self.take.run.rtf)}"

    @property
    def variation_tip(self) -> str:
        return (f"Variation {self.take.settings.seed}: the same variation of the same "
                "settings renders the same audio again.")

    @property
    def tooltip(self) -> str:
        take = self.take
        run = take.run
        lines = [self.name, "", take.settings.text.strip(), ""]
        place = script_place(take)
        lines.append(f"{mode_label(take)} · {place + ' · ' if place else ''}{voice_text(take)}")
        lines.append(f"{self.details} · {local_time(take.created):%Y-%m-%d %H:%M:%S}")
        lines.append(self.variation_tip)
        lines.append(f"{rendered_on(take)} · {run.seconds:.1f} s to render")
        if run.rtf and run.rtf > 0 and math.isfinite(run.rtf):  # the × in the details, said
            lines.append(f"{real_time_text(run.rtf)}: {1 / run.rtf:.1f} s of audio for each "
                         "second of rendering")
        if take.loudness_lufs is not None:
            lines.append(f"Loudness {take.loudness_lufs:.1f} LUFS (clear speech: -20 to -25; "
                         "nearer 0 is louder)")
        if take.asr_cer is not None:
            lines.append(f"Speech recognition: {take.asr_cer:.0%} of characters differ")
        if take.notes.strip():
            lines += ["", take.notes.strip()]
        if take.suspects:
            lines += [""] + [suspect_tip(code) for code in take.suspects]
        judged = tooltip_lines(self.judged)
        if judged:
            lines += [""] + judged
        return "\n".join(lines)


def batch_order(members: Sequence[Take]) -> list[Take]:
    """One batch's takes as listed: a script render's in line order (it renders the lines
    grouped by voice: line 2 of a second voice was kept after line 3 and listed above it),
    a Generate's newest first."""
    if all(t.settings.project_line for t in members):
        return sorted(members, key=lambda t: (t.settings.project_line, t.created))
    return sorted(members, key=lambda t: t.created, reverse=True)


def arrange(takes: Sequence[Take], numbers: dict[str, int], order: str = NEWEST) -> list[Row]:
    """Rows newest first (``takes`` come newest first), a batch's takes together; ``order``
    BEST: every take by its score, best first (equal scores and the unjudged newest first)."""
    batches: dict[str, list[Take]] = {}
    for take in takes:
        batches.setdefault(take.batch or take.id, []).append(take)
    positions = {}  # take id -> (its place in its batch by render time, the batch's size)
    for members in batches.values():
        for i, take in enumerate(sorted(members, key=lambda t: t.created), start=1):
            positions[take.id] = (i, len(members))
    # Dicts keep insertion order: the batch of the newest take first.
    listed = [take for members in batches.values() for take in batch_order(members)]
    rows = [Row(take, numbers.get(take.id, 0), *positions[take.id]) for take in listed]
    if order == BEST:  # (stable: equal scores and the unjudged stay newest first)
        rows.sort(key=lambda r: rank_key(r.take))
    return rows


class TakesModel(QAbstractListModel):
    """One row per take. Custom roles give the delegate and the tests what they need."""

    TakeRole = Qt.ItemDataRole.UserRole + 1
    MetaRole = Qt.ItemDataRole.UserRole + 2
    StateRole = Qt.ItemDataRole.UserRole + 3  # "playing", "paused" or ""
    ExcerptRole = Qt.ItemDataRole.UserRole + 4
    BatchRole = Qt.ItemDataRole.UserRole + 5  # (index, size, first row of it, last row of it)
    RowRole = Qt.ItemDataRole.UserRole + 6
    ClockRole = Qt.ItemDataRole.UserRole + 7
    JudgementRole = Qt.ItemDataRole.UserRole + 8  # TakeJudgement, or None: not judged

    rename_requested = Signal(str, str)  # take id, new name

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._rows: list[Row] = []
        self._numbers: dict[str, int] = {}  # take id -> its number (see _number)
        self._newest = ""  # the creation time of the newest numbered take
        self._active: tuple[object, str] = (None, "")  # (player key, state)
        self._order = NEWEST
        self.any_judged = False  # some listed take is judged: rows make room for the badges
        self.drag_files: Callable[[list[Row]], list[Path]] | None = None

    # ------------------------------------------------------------------ reading
    def reload(self, library, search: str = "", voice: str | None = None,
               starred: bool | None = None, project: str | None = None) -> None:
        """Read the library again (None: no library yet, no rows)."""
        # (only a set project filter is passed: older readers and fakes know no projects)
        more = {} if project is None else {"project": project}
        takes = [] if library is None else library.list(search, voice=voice, starred=starred,
                                                       **more)
        numbers = self._number(library, takes)
        self.beginResetModel()
        self._rows = arrange(takes, numbers, self._order)
        self.any_judged = any(isinstance(getattr(t, "judgements", None), dict) for t in takes)
        self.endResetModel()

    def set_order(self, order: str) -> None:
        """NEWEST (newest first) or BEST (by score); the next reload applies it."""
        self._order = order

    def order(self) -> str:
        return self._order

    def _number(self, library, takes: Sequence[Take]) -> dict[str, int]:
        """Numbers count every take ever kept (deleted ones too), oldest first, so deleting
        one never renumbers the others. Takes newer than all numbered ones (a render) get
        the next numbers; anything else (an older take appearing) numbers all again."""
        new = sorted((t for t in takes if t.id not in self._numbers), key=lambda t: t.created)
        if new and self._numbers and new[0].created > self._newest:
            top = max(self._numbers.values())
            self._numbers.update({t.id: top + i for i, t in enumerate(new, start=1)})
            self._newest = new[-1].created
        elif new and library is not None:
            order = sorted(library.list(include_deleted=True), key=lambda t: t.created)
            self._numbers = {t.id: n for n, t in enumerate(order, start=1)}
            self._newest = order[-1].created if order else ""
        return self._numbers

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        take = row.take
        if role == Qt.ItemDataRole.DisplayRole:
            return row.name
        if role == Qt.ItemDataRole.EditRole:
            return take.name or row.name
        if role == self.ExcerptRole:
            return row.subtitle
        if role == self.MetaRole:
            return row.compact
        if role == self.ClockRole:
            return clock_text(take.created)
        if role == self.TakeRole:
            return take
        if role == self.RowRole:
            return row
        if role == self.StateRole:
            key, state = self._active
            return state if key == self.key_of(take) else ""
        if role == self.BatchRole:  # first/last: where the batch's stripe starts and ends
            r = index.row()
            return (row.batch_index, row.batch_size, not self._same_batch(r, r - 1),
                    not self._same_batch(r, r + 1))
        if role == self.JudgementRole:
            return row.judged
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tooltip
        if role == Qt.ItemDataRole.AccessibleTextRole:
            star = "Starred. " if take.starred else ""
            suspects = "".join(f" {suspect_tip(c)}" for c in take.suspects)
            judged = "".join(f" {line.rstrip('.')}." for line in tooltip_lines(row.judged))
            return f"{star}{row.name}. {row.subtitle}. {row.details}.{suspects}{judged}"
        return None

    def _same_batch(self, r: int, other: int) -> bool:
        if not 0 <= other < len(self._rows):
            return False
        a, b = self._rows[r].take, self._rows[other].take
        return (a.batch or a.id) == (b.batch or b.id)

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid():
            base |= Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled
        return base

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Rename: ask for it (the worker writes), and show the new name meanwhile."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row = self._rows[index.row()]
        name = " ".join(str(value).split())
        if name == row.name or name == row.take.name:
            return False
        self.patch(row.take.id, name=name)
        self.rename_requested.emit(row.take.id, name)
        return True

    # ------------------------------------------------------------------ lookups
    @staticmethod
    def key_of(take: Take) -> tuple[str, str]:
        """What the player is given for a take."""
        return TakesModel.key_for(take.id)

    @staticmethod
    def key_for(take_id: str) -> tuple[str, str]:
        return ("take", take_id)

    def take(self, row: int) -> Take | None:
        return self._rows[row].take if 0 <= row < len(self._rows) else None

    def row_info(self, row: int) -> Row | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def takes(self) -> list[Take]:
        return [r.take for r in self._rows]

    def row_of_id(self, take_id: str) -> int:
        return next((r for r, row in enumerate(self._rows) if row.take.id == take_id), -1)

    def row_of(self, key: object) -> int:
        if isinstance(key, tuple) and len(key) == 2 and key[0] == "take":
            return self.row_of_id(key[1])
        return -1

    # ------------------------------------------------------------------ changes
    def patch(self, take_id: str, **changes) -> None:
        """Show a change before the library has it (the next reload brings the truth)."""
        r = self.row_of_id(take_id)
        if r < 0:
            return
        row = self._rows[r]
        self._rows[r] = dataclasses.replace(row, take=dataclasses.replace(row.take, **changes))
        index = self.index(r)
        self.dataChanged.emit(index, index)

    def set_active(self, key: object, state: str) -> None:
        """Mark which take the player holds and in what state, for the delegate."""
        previous = self.row_of(self._active[0])
        self._active = (key, state)
        for row in {previous, self.row_of(key)} - {-1}:
            index = self.index(row)
            self.dataChanged.emit(index, index, [self.StateRole])

    # ------------------------------------------------------------------ drag out
    def supportedDragActions(self) -> Qt.DropAction:
        # Copy only: a move would let a file manager take the library's own file.
        return Qt.DropAction.CopyAction

    def mimeTypes(self) -> list[str]:
        return ["text/uri-list"]

    def mimeData(self, indexes) -> QMimeData:
        mime = QMimeData()
        rows = sorted({i.row() for i in indexes if i.isValid()})
        chosen = [self._rows[r] for r in rows if 0 <= r < len(self._rows)]
        if chosen and self.drag_files is not None:
            paths = self.drag_files(chosen)
            mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
            mime.setText("\n".join(str(p) for p in paths))
        return mime
