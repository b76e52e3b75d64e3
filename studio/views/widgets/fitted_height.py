"""A panel's minimum height as its wrapped contents need it at the width it has.

A page (:class:`studio.views.widgets.page.ContentLayout`) gives a panel its minimum
height, which its layout works out without wrapping: at a narrow page (1024x640) its
wrapped labels take more lines than that, and the last were drawn over one another and
cut (the Clone view's cleanup lines under the clip). A panel that mixes this in asks
for its layout's height at its own width, again whenever that width changes.
"""

from __future__ import annotations

from PySide6.QtCore import QSize


class FitsItsWidth:
    """For a QWidget with a layout; put it before the Qt class among the bases."""

    def minimumSizeHint(self) -> QSize:
        size = super().minimumSizeHint()
        layout = self.layout()
        if layout is None or not layout.hasHeightForWidth() or self.width() <= 0:
            return size
        return QSize(size.width(), max(size.height(), layout.heightForWidth(self.width())))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # another width: another height
