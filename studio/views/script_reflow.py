"""A row of control groups that stacks them when the view is too narrow for all of them.

At 1024 x 640 the Script view is ~470 px wide (beside the sidebar and the takes panel): a
plain row squeezed its combos, spin box and buttons until their text was cut. Here each
group keeps the width its text needs, and the groups go one under the other instead.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLabel, QSizePolicy, QWidget

SPACING = 6


def natural_width(widget: QWidget) -> int:
    """The width at which nothing of the widget's text is cut (a wrapped label: one line)."""
    if isinstance(widget, QLabel) and widget.wordWrap():
        margins = widget.contentsMargins()
        return (widget.fontMetrics().horizontalAdvance(widget.text()) + margins.left()
                + margins.right() + 2 * widget.margin() + 2)
    # A minimum width set on it reserves room for a text it shows only at times.
    return max(widget.sizeHint().width(), widget.minimumSizeHint().width(), widget.minimumWidth())


class ReflowRow(QWidget):
    """Groups side by side when they fit at their natural widths, else one per line.

    ``groups``: sequences of widgets, and None for a stretch; ``grow``: the widgets that
    take the spare width (each never narrower than its minimum width). Every other widget
    keeps its size hint, so a button's or combo's text is never cut.

    The row is decided by the width it is given, with hysteresis: a text that grows may
    stack it, but one that shrinks again does not lay it flat (only more width does), so
    the row does not jump back and forth under a person's pointer as counts and labels
    come and go.
    """

    def __init__(self, *groups, grow=(), parent: QWidget | None = None):
        super().__init__(parent)
        self._box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(SPACING)
        self._groups: list[QWidget] = []
        self._items: list[list[QWidget]] = []
        self._most = 0  # the most width the groups have needed side by side
        for group in groups:
            holder = QWidget(self)
            line = QHBoxLayout(holder)
            line.setContentsMargins(0, 0, 0, 0)
            line.setSpacing(SPACING)
            widgets, grows = [], False
            for widget in group:
                if widget is None:
                    line.addStretch(1)
                    grows = True
                    continue
                growing = any(widget is g for g in grow)
                grows = grows or growing
                if not growing:  # its text's width, no less (cut) and no more (spread)
                    widget.setSizePolicy(QSizePolicy.Policy.Fixed,
                                         widget.sizePolicy().verticalPolicy())
                line.addWidget(widget, 1 if growing else 0)
                widgets.append(widget)
            if not grows:
                line.addStretch(1)  # stacked, the group stays at the left
            self._box.addWidget(holder, 1 if grows else 0)
            self._groups.append(holder)
            self._items.append(widgets)

    def needed_width(self) -> int:
        """The width the groups need side by side (the most they ever needed)."""
        widths = []
        for widgets in self._items:
            shown = [w for w in widgets  # one that keeps its place hidden counts too
                     if not w.isHidden() or w.sizePolicy().retainSizeWhenHidden()]
            if shown:
                widths.append(sum(natural_width(w) for w in shown)
                              + SPACING * (len(shown) - 1))
        self._most = max(self._most, sum(widths) + SPACING * max(0, len(widths) - 1))
        return self._most

    def stacked(self) -> bool:
        return self._box.direction() == QBoxLayout.Direction.TopToBottom

    def minimumSizeHint(self) -> QSize:
        # Stacked, the row needs only its widest group: the view may be that narrow.
        width = max((g.minimumSizeHint().width() for g in self._groups), default=0)
        return QSize(width, super().minimumSizeHint().height())

    def reflow(self, width: int | None = None) -> None:
        width = self.width() if width is None else width
        direction = (QBoxLayout.Direction.TopToBottom if width < self.needed_width()
                     else QBoxLayout.Direction.LeftToRight)
        if direction != self._box.direction():
            self._box.setDirection(direction)

    def resizeEvent(self, event) -> None:
        self.reflow(event.size().width())
        super().resizeEvent(event)
