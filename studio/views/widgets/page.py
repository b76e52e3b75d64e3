"""Pieces of the scrolling view pages (Clone, Design)."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QVBoxLayout


class ContentLayout(QVBoxLayout):
    """A column that tells its scroll area it has no height-for-width.

    Wrapped hint labels make a layout height-for-width, and QScrollArea then sizes
    the page to its *preferred* height, scrolling at any window size. Without it the
    page fills the viewport and scrolls only below its minimum height.
    """

    def hasHeightForWidth(self) -> bool:
        return False


def rule() -> QFrame:
    """A thin horizontal separator between sections."""
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line
