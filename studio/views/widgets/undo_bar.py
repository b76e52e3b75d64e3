"""UndoBar: a strip ("Deleted 2 takes. Undo") that stays until the next edit replaces what
Undo would do, or the user dismisses it (Edit ▸ Undo works either way)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

STYLE = """
QFrame#undoBar { background: palette(tool-tip-base); border: 1px solid palette(mid);
                 border-radius: 6px; }
QFrame#undoBar QLabel { color: palette(tool-tip-text); }
"""


class UndoBar(QFrame):
    undo_clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("undoBar")
        self.setStyleSheet(STYLE)
        self.setAccessibleName("Undo")
        self.label = QLabel("")
        self.label.setObjectName("undoText")
        self.undoButton = QPushButton("Undo")
        self.undoButton.setObjectName("undoButton")
        self.undoButton.setToolTip("Bring the deleted takes back (Ctrl+Z)")
        self.closeButton = QToolButton()
        self.closeButton.setText("✕")
        self.closeButton.setAutoRaise(True)
        self.closeButton.setToolTip("Dismiss (Ctrl+Z still undoes)")
        self.closeButton.setAccessibleName("Dismiss")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 4, 4)
        layout.setSpacing(6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.undoButton)
        layout.addWidget(self.closeButton)
        self.undoButton.clicked.connect(self.undo_clicked)
        self.closeButton.clicked.connect(self.hide)
        self._stack = None
        self._index = -1  # the stack's index when the bar was shown: what Undo would undo
        self.hide()

    def follow(self, stack) -> None:
        """Hide once ``stack`` (a QUndoStack) moves past the edit the bar speaks of."""
        if self._stack is not None:
            self._stack.indexChanged.disconnect(self._moved)
        self._stack = stack
        stack.indexChanged.connect(self._moved)

    def show_edit(self, text: str) -> None:
        """Speak of the edit just pushed on the followed stack."""
        self.show_message(text)
        self._index = self._stack.index()

    def _moved(self, index: int) -> None:
        if index != self._index:  # the bar's Undo no longer means this edit
            self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self.setAccessibleDescription(text)
        self.show()

    def text(self) -> str:
        return self.label.text()
