"""The mouse wheel scrolls pages; it never changes a setting the user is not editing.

Qt gives combo boxes, spin boxes and sliders the focus on a wheel turn and then lets the
wheel change their value, so scrolling a form past one changed Language or Device. One
application-wide filter fixes that for every view and dialog, present and future:
such a widget no longer takes focus from the wheel, and a wheel over it while it is not
focused scrolls the page it sits in instead. Click (or Tab into) it and the wheel edits
it as before.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

GUARDED = (QComboBox, QAbstractSpinBox, QAbstractSlider)


def guarded(widget: QObject) -> bool:
    """A value the wheel would change (a scroll bar is the page's own, not a setting)."""
    return isinstance(widget, GUARDED) and not isinstance(widget, QScrollBar)


def is_focused(widget: QWidget) -> bool:
    """The widget or its inner editor (a spin box's line edit) has the keyboard focus."""
    focus = QApplication.focusWidget()
    return focus is not None and (focus is widget or widget.isAncestorOf(focus))


def scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


class WheelGuard(QObject):
    """Install on the QApplication (``install``): it watches every widget's events."""

    @classmethod
    def install(cls, owner: QObject) -> WheelGuard:
        """One guard for the application's life, owned by ``owner`` (the main window):
        destroyed with it, and Qt then drops the filter."""
        guard = cls(owner)
        QApplication.instance().installEventFilter(guard)
        return guard

    def adopt(self, root: QWidget) -> None:
        """Widgets polished before the guard existed: change their focus policy now."""
        for widget in [root, *root.findChildren(QWidget)]:
            self._no_wheel_focus(widget)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish:
            self._no_wheel_focus(watched)
        elif kind == QEvent.Type.Wheel and isinstance(watched, QWidget):
            # A spin box's (or an editable combo's) line edit is the guarded widget too.
            owner = watched if guarded(watched) else watched.parentWidget()
            if owner is None or not guarded(owner) or is_focused(owner):
                return False
            area = scroll_area_of(owner)
            if area is not None:
                QApplication.sendEvent(area.viewport(), event)
            event.accept()  # handled: the value stays, and nothing below sees it again
            return True
        return False

    @staticmethod
    def _no_wheel_focus(widget: QObject) -> None:
        if guarded(widget) and widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
            widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
