"""A titled section whose body folds away behind an arrow button."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSizePolicy, QToolButton, QVBoxLayout, QWidget


class CollapsibleSection(QWidget):
    """``title`` on an arrow button; ``body`` shows when expanded."""

    toggled = Signal(bool)

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

    def _apply(self, expanded: bool) -> None:
        self.button.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded)
        self.toggled.emit(expanded)
