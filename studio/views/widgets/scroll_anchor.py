"""ScrollAnchor: keeps a widget still on screen while content above it in a scroll area
grows or shrinks, so the place a person is about to click does not move away; never so
far that the control in use (the focus) leaves the top of the view."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QTimer
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

SETTLE_MS = 250  # a change's layout passes (wrapped labels take a second one) end by then


class ScrollAnchor(QObject):
    def __init__(self, scroll: QScrollArea, widget: QWidget):
        super().__init__(widget)
        self._scroll, self._widget = scroll, widget
        self._held: int | None = None  # the widget's top in the viewport before the change
        self._release = QTimer(self)
        self._release.setSingleShot(True)
        self._release.setInterval(SETTLE_MS)
        self._release.timeout.connect(self._let_go)
        # A later layout pass (a wrapped label settling) moves it again: restored again,
        # after that pass rather than inside it.
        scroll.verticalScrollBar().rangeChanged.connect(self._again)

    def _top(self) -> int:
        return self._widget.mapTo(self._scroll.viewport(), QPoint(0, 0)).y()

    def hold(self) -> None:
        """Call before a change above the widget: until its layout has settled, the page
        scrolls by what the change moved it (when it was in view, as far as it can)."""
        if self._held is None and self._widget.isVisible():
            top = self._top()
            if 0 <= top < self._scroll.viewport().height():
                self._held = top
        if self._held is not None:
            self._release.start()
            QTimer.singleShot(0, self._restore)

    def _again(self, _low: int, _high: int) -> None:
        if self._held is not None:
            QTimer.singleShot(0, self._restore)

    def _restore(self) -> None:
        if self._held is None or not self._widget.isVisible():
            return
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # the new heights
        bar = self._scroll.verticalScrollBar()
        value = bar.value() + self._top() - self._held
        # Never past the control the person is using (the voice picker they just chose
        # with): scrolled away, it and what it changed would vanish from under them.
        focus, page = QApplication.focusWidget(), self._scroll.widget()
        if focus is not None and page is not None and page.isAncestorOf(focus) \
                and not (focus is self._widget or self._widget.isAncestorOf(focus)):
            value = min(value, bar.value() + focus.mapTo(self._scroll.viewport(),
                                                         QPoint(0, 0)).y())
        bar.setValue(value)

    def _let_go(self) -> None:
        self._restore()
        self._held = None


class EndAnchor(QObject):
    """Keeps the end of a scroll area's page in view while a line pinned under the area
    comes or grows (a form's message above Generate): scrolled to the end, the person saw
    the last row whole, and the taller line cut it in half as if drawn over it."""

    def __init__(self, scroll: QScrollArea):
        super().__init__(scroll)
        self._scroll = scroll
        self._holding = False
        self._release = QTimer(self)
        self._release.setSingleShot(True)
        self._release.setInterval(SETTLE_MS)
        self._release.timeout.connect(self._let_go)
        scroll.verticalScrollBar().rangeChanged.connect(self._again)

    def hold(self) -> None:
        """Call before the change: when the page shows its end now, it still will after."""
        bar = self._scroll.verticalScrollBar()
        if self._holding or (self._scroll.isVisible() and bar.value() >= bar.maximum()):
            self._holding = True
            self._release.start()
            QTimer.singleShot(0, self._restore)

    def _again(self, _low: int, _high: int) -> None:
        if self._holding:
            self._restore()

    def _restore(self) -> None:
        if self._holding:
            bar = self._scroll.verticalScrollBar()
            bar.setValue(bar.maximum())

    def _let_go(self) -> None:
        self._restore()
        self._holding = False
