"""The Script view's cast: every speaker with its colour, its voice (a saved voice's name,
the words that describe it, or a clip), how many lines it speaks, a preview button, and
a warning when its voice is gone (a deleted saved voice, a moved clip).

``cast_entries`` works the cast out from a project's speakers and the saved voices' names
(no Qt); ``CastPanel`` shows it and asks for previews and for a speaker to edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.views.play_state import play_icon

MISSING_COLOUR = "#c62828"
CAST_COLUMNS = ("Speaker", "Voice", "Lines", "")
NAME, VOICE, LINES, PREVIEW = range(len(CAST_COLUMNS))


@dataclass(frozen=True)
class CastEntry:
    speaker_id: int
    name: str
    colour: str
    voice: str  # what the cast and the lines table say for the voice
    lines: int
    problem: str = ""  # one sentence when the voice cannot render, else ""


def voice_words(speaker, saved: set[str]) -> tuple[str, str]:
    """(how the speaker's voice is named, the problem with it or "") for a project Speaker;
    ``saved``: the saved voices' names, folded to lower case."""
    if speaker.kind == "voice":
        if (speaker.voice or "").lower() not in saved:
            return (f"Saved voice: {speaker.voice} (deleted)",
                    f"{speaker.name}'s voice {speaker.voice} is no longer in your voices; "
                    "pick another voice for them.")
        return f"Saved voice: {speaker.voice}", ""
    if speaker.kind == "clip":
        name = Path(speaker.clip or "").name
        if not speaker.clip or not Path(speaker.clip).is_file():
            return (f"Clip {name} (missing)",
                    f"{speaker.name}'s clip {name} is not there any more; put it back or pick "
                    "another voice.")
        return f"Clip {name}", ""
    if not speaker.instruct:
        return "No voice yet", (f"Give {speaker.name} a voice: pick a saved voice or describe "
                                "one.")
    return f"Described: {speaker.instruct}", ""


def cast_entries(speakers, lines, saved: set[str]) -> list[CastEntry]:
    counts: dict[int, int] = {}
    for line in lines:
        counts[line.speaker] = counts.get(line.speaker, 0) + 1
    out = []
    for s in speakers:
        voice, problem = voice_words(s, saved)
        out.append(CastEntry(s.id, s.name, s.colour, voice, counts.get(s.id, 0), problem))
    return out


def preview_source(speaker, lines, saved_clip: Path | None) -> tuple[str, object]:
    """What the preview plays: ("clip", path) of a saved voice (``saved_clip``) or a clip
    speaker; ("take", id) of a described voice's first rendered line; ("render", line id)
    of its first line when none is rendered; ("none", None) when it speaks no line."""
    if speaker.kind == "voice" and saved_clip is not None:
        return "clip", Path(saved_clip)
    if speaker.kind == "clip" and speaker.clip:
        return "clip", Path(speaker.clip)
    mine = [line for line in lines if line.speaker == speaker.id]
    done = next((line for line in mine if line.take), None)
    if done is not None:
        return "take", done.take
    return ("render", mine[0].id) if mine else ("none", None)


def swatch(colour: str, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(colour or "#718096"))
    return QIcon(pixmap)


class CastPanel(QWidget):
    preview_requested = Signal(int)  # speaker id
    speaker_chosen = Signal(int)  # speaker id: show its voice for editing

    def __init__(self, parent: QWidget | None = None, *, play_off: str | None = None):
        super().__init__(parent)
        self.setObjectName("scriptCast")
        self._play_off = play_off  # why the previews are greyed (None: they play)
        self.setAccessibleName("Cast")
        self.entries: list[CastEntry] = []
        self.table = QTableWidget(0, len(CAST_COLUMNS))
        self.table.setObjectName("castTable")
        self.table.setAccessibleName("Cast: the speakers and their voices")
        self.table.setHorizontalHeaderLabels(CAST_COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for column, mode in ((NAME, QHeaderView.ResizeMode.ResizeToContents),
                             (VOICE, QHeaderView.ResizeMode.Stretch),
                             (LINES, QHeaderView.ResizeMode.ResizeToContents),
                             (PREVIEW, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.table.itemSelectionChanged.connect(self._chosen)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)
        self.show_cast([])

    def show_cast(self, entries: list[CastEntry]) -> None:
        keep = self.current_speaker()
        self.entries = list(entries)
        blocked = self.table.blockSignals(True)
        self.table.setRowCount(len(entries))
        play = play_icon(self)
        for row, entry in enumerate(entries):
            name = QTableWidgetItem(swatch(entry.colour), entry.name)
            name.setForeground(QBrush(QColor(entry.colour or "#718096")))
            font = name.font()
            font.setBold(True)
            name.setFont(font)
            voice = QTableWidgetItem(("⚠ " if entry.problem else "") + entry.voice)
            voice.setToolTip(entry.problem or entry.voice)
            if entry.problem:
                voice.setForeground(QBrush(QColor(MISSING_COLOUR)))
            lines = QTableWidgetItem(str(entry.lines))
            lines.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            for column, item in ((NAME, name), (VOICE, voice), (LINES, lines)):
                item.setData(Qt.ItemDataRole.UserRole, entry.speaker_id)
                self.table.setItem(row, column, item)
            button = QPushButton(play, "")
            button.setObjectName(f"castPreview{row + 1}")
            button.setFlat(True)
            button.setAccessibleName(f"Preview {entry.name}'s voice")
            button.setToolTip(entry.problem or self._play_off or f"Hear {entry.name}'s voice")
            button.setEnabled(not entry.problem and self._play_off is None)
            button.clicked.connect(lambda _c=False, s=entry.speaker_id: self.preview_requested.emit(s))
            self.table.setCellWidget(row, PREVIEW, button)
        self.select_speaker(keep)
        self.table.blockSignals(blocked)
        # As tall as the cast (up to five speakers; more scroll), so the lines keep the room.
        rows = max(1, min(len(entries), 5))
        self.table.setFixedHeight(self.table.horizontalHeader().sizeHint().height()
                                  + rows * self.table.verticalHeader().defaultSectionSize() + 4)

    def current_speaker(self) -> int | None:
        row = self.table.currentRow()
        return self.entries[row].speaker_id if 0 <= row < len(self.entries) else None

    def select_speaker(self, speaker_id: int | None) -> None:
        for row, entry in enumerate(self.entries):
            if entry.speaker_id == speaker_id:
                self.table.selectRow(row)
                return

    def problems(self) -> list[str]:
        return [e.problem for e in self.entries if e.problem]

    def _chosen(self) -> None:
        speaker = self.current_speaker()
        if speaker is not None:
            self.speaker_chosen.emit(speaker)
