"""Pieces of the scrolling view pages (Clone, Design)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QFrame, QVBoxLayout, QWidget


class ContentLayout(QVBoxLayout):
    """A column that tells its scroll area it has no height-for-width.

    Wrapped hint labels make a layout height-for-width, and QScrollArea then sizes
    the page to its *preferred* height, scrolling at any window size. Without it the
    page fills the viewport and scrolls only below its minimum height.
    """

    def hasHeightForWidth(self) -> bool:
        return False

    def minimumSize(self) -> QSize:
        """At least the height its items need at the width it has: a wrapped label's
        minimum is one long line, and without this the scroll area made the page that
        short, so spin boxes were squashed unreadable and the pronunciation hint was
        drawn over the Text box at 640 px."""
        size = super().minimumSize()
        width = self.geometry().width()
        if width <= 0:  # not laid out yet
            return size
        margins = self.contentsMargins()
        inner = width - margins.left() - margins.right()
        total, shown = margins.top() + margins.bottom(), 0
        for i in range(self.count()):
            item = self.itemAt(i)
            if item.spacerItem() is not None:
                total += item.minimumSize().height()
                continue
            if item.isEmpty():  # a hidden widget takes no room
                continue
            height = item.minimumSize().height()
            # A wrapped label's real height; not a panel's, whose height-for-width is its
            # preferred height (its spare room showed as a gap above the Text box).
            widget = item.widget()
            if item.hasHeightForWidth() and (widget is None or widget.layout() is None):
                height = max(height, item.heightForWidth(inner))
            total += height
            shown += 1
        total += self.spacing() * max(0, shown - 1)
        return QSize(size.width(), max(size.height(), total))


def rule() -> QFrame:
    """A thin horizontal separator between sections."""
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


def headed_content(name: str, title: QWidget, subtitle: QWidget) -> tuple[QWidget, ContentLayout]:
    """A view's scrolling inputs (named ``name``) opened by its title and subtitle; the
    view adds its own inputs to the returned layout."""
    content = QWidget()
    content.setObjectName(name)
    layout = ContentLayout(content)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(6)
    layout.addWidget(title)
    layout.addWidget(subtitle)
    layout.addSpacing(12)
    return content, layout
