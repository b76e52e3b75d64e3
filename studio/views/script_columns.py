"""The widths of the Script table's columns: Text takes the room the others leave (its
words cut with "…", whole in the tooltip), and the Voice column narrows on a small
screen rather than leave (review 9: at 1024x640 the table dropped it)."""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableView

from studio.views.script_lines_model import COLUMNS, LENGTH, NUMBER, SPEAKER, STATUS, TEXT, VOICE

RESIZE_ROWS = 100  # rows the contents-sized columns measure (Qt's default: 1,000)
WIDE_TABLE = 640  # px: from it the Voice column has room for a saved voice's name
VOICE_NARROW = "⚠ No voice yet"  # what the narrowed Voice column still shows whole
TEXT_LEAST = "x" * 14  # the Text column's least room (or a quarter of the table, if more):
# with less, the Voice column leaves (it repeats what the cast above says)

_MODES = ((NUMBER, QHeaderView.ResizeMode.Fixed),
          (SPEAKER, QHeaderView.ResizeMode.ResizeToContents),
          (VOICE, QHeaderView.ResizeMode.Interactive),
          (TEXT, QHeaderView.ResizeMode.Stretch),
          (STATUS, QHeaderView.ResizeMode.Fixed),
          (LENGTH, QHeaderView.ResizeMode.ResizeToContents))


class LineColumns:
    """Sets the columns of ``table`` up and fits the Voice column to its width."""

    def __init__(self, table: QTableView):
        self.table = table
        self._narrow: bool | None = None  # a width set once per change: a dragged one stays
        header = table.horizontalHeader()
        for column, mode in _MODES:
            header.setSectionResizeMode(column, mode)
        metrics = table.fontMetrics()
        # Wide enough for the longest status, so the column does not jump as lines render.
        header.resizeSection(STATUS, metrics.horizontalAdvance("not rendered") + 16)
        # Line numbers have at most 4 digits; measuring every row's contents made opening
        # a 320-line book cost 250 ms of the GUI thread (under 100 ms now).
        header.resizeSection(NUMBER, metrics.horizontalAdvance("0000") + 16)
        header.setResizeContentsPrecision(RESIZE_ROWS)
        self.fit()

    def voice_width(self, narrow: bool) -> int:
        metrics = self.table.fontMetrics()
        return metrics.horizontalAdvance(VOICE_NARROW) + 10 if narrow \
            else metrics.horizontalAdvance("x" * 18)

    def fit(self) -> None:
        """The Voice column narrowed below WIDE_TABLE, and hidden only where the Text
        column would be left with less than TEXT_LEAST or a quarter of the table."""
        header = self.table.horizontalHeader()
        narrow = self.table.width() < WIDE_TABLE
        if narrow != self._narrow:
            self._narrow = narrow
            header.resizeSection(VOICE, self.voice_width(narrow))
        others = sum(header.sectionSize(c) for c in range(len(COLUMNS))
                     if c not in (TEXT, VOICE) and not header.isSectionHidden(c))
        width = self.table.viewport().width()
        least = max(self.table.fontMetrics().horizontalAdvance(TEXT_LEAST), width // 4)
        self.table.setColumnHidden(VOICE, width - others - self.voice_width(narrow) < least)
