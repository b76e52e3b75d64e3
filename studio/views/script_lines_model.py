"""The Script view's table: one row per line of the open project, with its speaker (in
the speaker's colour), its text (edited in place), its status and its length.

The project is the one owner of the lines; this model only shows what it was last given
(``reload``) and hands text edits back as a signal, so every edit goes through the
project and its undo history.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QAbstractTableModel, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

COLUMNS = ("#", "Speaker", "Voice", "Text", "Status", "Length")
NUMBER, SPEAKER, VOICE, TEXT, STATUS, LENGTH = range(len(COLUMNS))
MISSING_COLOUR = "#c62828"  # a voice that is gone
STATUS_COLOURS = {
    "done": "#2f855a",
    "stale": "#b7791f",
    "suspect": "#c53030",
    "rendering": "#2b6cb0",
    "queued": "#718096",
    "not rendered": "#718096",
}
STATUS_WORDS = {"stale": "changed"}  # what the status column says, where it differs
STATUS_TIPS = {
    "done": "Rendered from the text and voice it has now",
    "stale": "Its text or its speaker's voice changed since its take was rendered",
    "suspect": "Its take may be damaged: listen, and render it again if it sounds wrong",
    "rendering": "Rendering now",
    "queued": "Waiting for its turn in this render",
    "not rendered": "No take yet",
}
# A line with no text yet (one just added) shows these, never stored as its text.
EMPTY_LINE_HINT = "Name: what they say"  # grey in the cell: fits it at 1024x640
EMPTY_LINE_TIP = "Type what the line says; a leading \u201cName:\u201d makes Name its speaker."


@dataclass(frozen=True)
class LineRow:
    line_id: int
    speaker: str
    colour: str
    text: str
    status: str
    seconds: float | None
    take: str | None
    problem: str = ""  # a suspect take's first named reason ("silent", "too loud")
    voice: str = ""  # its speaker's voice, as the cast names it
    voice_problem: str = ""  # why that voice cannot render (deleted, missing), else ""
    chapter: str = ""  # the chapter's title when a chapter starts at this line, else ""


class ScriptLinesModel(QAbstractTableModel):
    text_edited = Signal(int, str)  # line id, new text

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[LineRow] = []

    def reload(self, rows: list[LineRow]) -> None:
        if len(rows) == len(self._rows):
            self._rows = rows  # same shape: keep the view's selection and editor
            if rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, LENGTH))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row(self, n: int) -> LineRow | None:
        return self._rows[n] if 0 <= n < len(self._rows) else None

    def row_of(self, line_id: int) -> int:
        return next((n for n, r in enumerate(self._rows) if r.line_id == line_id), -1)

    def rows(self) -> list[LineRow]:
        return list(self._rows)

    # -- Qt -------------------------------------------------------------------------
    def rowCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._rows)

    def columnCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def flags(self, index):
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.column() == TEXT else base

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        row = self.row(index.row())
        if row is None:
            return None
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if column == NUMBER:  # a book's 500 lines read as chapters, not one list
                return f"§ {index.row() + 1}" if row.chapter else str(index.row() + 1)
            if column == SPEAKER:
                return row.speaker
            if column == VOICE:
                return ("⚠ " if row.voice_problem else "") + row.voice
            if column == TEXT:
                if row.chapter and role == Qt.ItemDataRole.DisplayRole:
                    return f"{row.chapter} \u2014 {row.text}"
                return row.text
            if column == STATUS:
                if row.status == "suspect":
                    return row.problem or "check"
                return STATUS_WORDS.get(row.status, row.status)
            if column == LENGTH:
                return "" if row.seconds is None else f"{row.seconds:.1f} s"
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == SPEAKER and row.colour:
                return QBrush(QColor(row.colour))
            if column == VOICE and row.voice_problem:
                return QBrush(QColor(MISSING_COLOUR))
            if column == STATUS:
                return QBrush(QColor(STATUS_COLOURS.get(row.status, "#718096")))
        if role == Qt.ItemDataRole.FontRole and (column == SPEAKER or (
                row.chapter and column in (NUMBER, TEXT))):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == STATUS:
                return STATUS_TIPS.get(row.status)
            if column in (NUMBER, TEXT) and row.chapter:
                return f"Chapter \u201c{row.chapter}\u201d starts here.\n{row.text}"
            if column == TEXT:
                return row.text or EMPTY_LINE_TIP
            if column == VOICE:
                return row.voice_problem or row.voice
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (NUMBER, LENGTH):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        row = self.row(index.row())
        if row is None or index.column() != TEXT or role != Qt.ItemDataRole.EditRole:
            return False
        text = " ".join(str(value).split())
        if not text or text == row.text:
            return False
        self.text_edited.emit(row.line_id, text)
        return True
