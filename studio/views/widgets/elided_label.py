"""A one-line label that ends in "…" where its text does not fit, with the whole text
in its tooltip (a take's title beside Rename and the star, on a narrow takes panel)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self._tip = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def full_text(self) -> str:
        return self._full

    def text(self) -> str:  # what it says, not what fits: tests and screen readers read this
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self.setAccessibleName(text)
        self._elide()

    def setToolTip(self, tip: str) -> None:
        """A tooltip of its own; without one, the whole text shows when it is cut."""
        self._tip = tip
        self._elide()

    def is_elided(self) -> bool:
        return super().text() != self._full

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance("…") * 3, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(0, self.contentsRect().width())
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, width)
        super().setText(shown)
        super().setToolTip(self._tip or (self._full if shown != self._full else ""))
