"""A titled section whose body folds away behind an arrow button; a click anywhere on
its heading row folds it too (not only on the arrow and the words). Opened by the user
inside a scroll area, it scrolls into view: a section at the bottom of a laptop-sized
page otherwise opens below the fold and looks as if nothing happened."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QScrollArea, QSizePolicy, QToolButton, QVBoxLayout, QWidget


class CollapsibleSection(QWidget):
    """``title`` on an arrow button; ``body`` shows when expanded."""

    toggled = Signal(bool)  # every change, a restored state included
    clicked = Signal(bool)  # the user opened (True) or folded it: react only to this

    def __init__(self, title: str, body: QWidget, expanded: bool = False,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.body = body
        self.button = QToolButton(self)
        self.button.setObjectName("sectionToggle")
        self.button.setText(title)
        self.button.setCheckable(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setAutoRaise(True)
        # A heading that folds, not a pressed-in button when open.
        self.button.setStyleSheet("QToolButton { border: none; font-weight: 600; padding: 2px 0; }")
        self.button.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.button.setAccessibleName(f"{title} section")
        self.button.setToolTip(f"Show or hide the {title.lower()} settings")
        self.button.toggled.connect(self._apply)
        self.button.clicked.connect(self.clicked)
        self.clicked.connect(self._reveal_when_opened)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(body)
        self.button.setChecked(expanded)
        self._apply(expanded)

    def is_expanded(self) -> bool:
        return self.button.isChecked()

    def set_expanded(self, expanded: bool) -> None:
        self.button.setChecked(expanded)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        """A click on the heading row beside the button's words folds it as well."""
        if (event.button() == Qt.MouseButton.LeftButton and self.button.isEnabled()
                and event.position().y() <= self.button.geometry().bottom()):
            self.button.click()  # (emits clicked, as a click on the words does)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _reveal_when_opened(self, opened: bool) -> None:
        if opened:
            QTimer.singleShot(0, self._reveal)

    def _reveal(self, tries: int = 20) -> None:
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is None or area.widget() is None or not self.is_expanded():
            return
        page = area.widget()
        # The layouts make room for the body over a few turns of the event loop; scroll
        # once the section and the page have their new heights, not to a stale place.
        settled = (self.height() >= self.sizeHint().height()
                   and page.height() >= page.minimumSizeHint().height())
        if not settled and tries > 0:
            QTimer.singleShot(0, lambda: self._reveal(tries - 1))
            return
        # The whole section where it fits; else its heading at the top, the body below
        # (Qt's ensureWidgetVisible would centre a tall one and hide its heading).
        top = self.mapTo(page, QPoint(0, 0)).y()
        bar = area.verticalScrollBar()
        value = max(bar.value(), top + self.height() - area.viewport().height())
        bar.setValue(min(value, top))

    def _apply(self, expanded: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded)
        self.toggled.emit(expanded)
