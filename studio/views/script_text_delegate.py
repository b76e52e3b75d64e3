"""The Script table's Text cells: a line with no text yet (one just added) shows a grey
hint, in its cell and in its editor, that is never its text -- a "…" stored as the text
stayed in front of what was typed after a click, and hid a "Name:" at the start."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLineEdit, QStyle, QStyledItemDelegate

from studio.views.script_lines_model import EMPTY_LINE_HINT, EMPTY_LINE_TIP, TEXT


class LineTextDelegate(QStyledItemDelegate):
    """Paints the hint in an empty Text cell and gives the cell's editor the same one."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        if index.column() != TEXT or option.text:
            return
        option.text = EMPTY_LINE_HINT
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        colour = QColor(option.palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText))
        if selected:
            colour.setAlphaF(0.7)  # the highlight's own text colour, faded: still a hint
        for role in (QPalette.ColorRole.Text, QPalette.ColorRole.HighlightedText):
            option.palette.setColor(role, colour)
        option.font.setItalic(True)

    def createEditor(self, parent, option, index):
        editor = super().createEditor(parent, option, index)
        if index.column() == TEXT and isinstance(editor, QLineEdit):
            editor.setPlaceholderText(EMPTY_LINE_HINT)
            editor.setToolTip(EMPTY_LINE_TIP)
        return editor
