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
        self.hide()

    def show_message(self, text: str) -> None:
        self.label.setText(text)
        self.setAccessibleDescription(text)
        self.show()

    def text(self) -> str:
        return self.label.text()
