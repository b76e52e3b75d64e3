"""ReflowRow: parts side by side when they fit, one above the other when they do not.

The Clone and Design pages scroll vertically only; a row wider than the view beside
an open takes panel was cut off on the right. A ReflowRow asks for no more width
than its widest part and stacks its parts when the row cannot hold them all.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QBoxLayout, QWidget


class ReflowRow(QWidget):
    def __init__(self, *parts: QWidget, spacing: int = 24, stacked_spacing: int = 8,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._parts = parts
        self._spacing = (spacing, stacked_spacing)
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        # Not the row's laid-out width as a minimum (a window's default): the parts stack.
        self._box.setSizeConstraint(QBoxLayout.SizeConstraint.SetNoConstraint)
        self._box.setSpacing(spacing)
        for part in parts:
            self._box.addWidget(part, 0, Qt.AlignmentFlag.AlignTop)
        self._box.addStretch(1)

    def is_stacked(self) -> bool:
        return self._box.direction() == QBoxLayout.Direction.TopToBottom

    def row_width(self) -> int:
        """The width the parts need side by side."""
        widths = [part.minimumSizeHint().width() for part in self._parts if not part.isHidden()]
        return sum(widths) + self._spacing[0] * max(len(widths) - 1, 0)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        widest = max((p.minimumSizeHint().width() for p in self._parts if not p.isHidden()),
                     default=0)
        return QSize(widest, hint.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._reflow(event.size().width())

    def _reflow(self, width: int) -> None:
        stack = width < self.row_width()
        if stack != self.is_stacked():
            self._box.setDirection(QBoxLayout.Direction.TopToBottom if stack
                                   else QBoxLayout.Direction.LeftToRight)
            self._box.setSpacing(self._spacing[1] if stack else self._spacing[0])
            self.updateGeometry()  # the height changed: the page lays out again
