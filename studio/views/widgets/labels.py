"""Label styles shared by the views: section headings, quiet hints, inline messages."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

# (on a light window, on a dark one): each keeps readable contrast on its background.
ERROR_COLORS = (QColor("#c62828"), QColor("#ef6b6b"))
INFO_COLORS = (QColor("#2e6da4"), QColor("#7fb2e5"))


def _tone(palette: QPalette, colors: tuple[QColor, QColor]) -> QColor:
    dark = palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5
    return colors[1] if dark else colors[0]


def heading_label(text: str, parent: QWidget | None = None, size_delta: int = 1) -> QLabel:
    label = QLabel(text, parent)
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() + size_delta)
    label.setFont(font)
    return label


def hint_label(text: str, parent: QWidget | None = None) -> QLabel:
    """Secondary text: smaller and in the placeholder colour, wrapped."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() - 0.5)
    label.setFont(font)
    pal = label.palette()
    pal.setColor(QPalette.ColorRole.WindowText, pal.color(QPalette.ColorRole.PlaceholderText))
    label.setPalette(pal)
    return label


class MessageLabel(QLabel):
    """An inline message under a control: hidden when empty, red for errors.

    Users' mistakes are told here in one sentence rather than in a dialog.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._error = False
        self.hide()

    def show_message(self, text: str, error: bool = True) -> None:
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.WindowText,
                     _tone(pal, ERROR_COLORS if error else INFO_COLORS))
        self.setPalette(pal)
        self._error = error and bool(text)
        self.setText(text)
        self.setAccessibleDescription(text)
        self.setVisible(bool(text))

    def clear_message(self) -> None:
        self._error = False
        self.setText("")
        self.setAccessibleDescription("")
        self.hide()

    def is_error(self) -> bool:
        return self._error
