"""The takes panel's project filter: All takes · Clone & Design · Script: NAME, so a
script's many line takes are filed under their project and do not bury the Clone and
Design history."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QComboBox, QSizePolicy, QStyle, QStyleOptionComboBox, QWidget

from studio.library.takes import NO_PROJECT

ALL_TAKES = "All takes"
CLONE_AND_DESIGN = "Clone & Design"
FILTER_TIP = "All takes, only the Clone and Design takes, or the line takes of one script"


def project_name(path: str) -> str:
    return Path(path).stem or path


class ProjectFilter(QComboBox):
    """``key()``: None (every take), NO_PROJECT (Clone & Design) or a project file's path.
    ``chosen``: the user picked the current entry (the window then leaves it alone)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("takesProjectFilter")
        self.setAccessibleName("Project filter")
        self.currentIndexChanged.connect(lambda _i: self.setToolTip(
            f"Showing: {self.currentText()}\n{FILTER_TIP}"))  # the whole name, where it is cut
        # As wide as its fixed items measure in this font (an average-character count cut
        # "Clone & Design"); a long script name is elided, its whole name in the tooltip.
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        # In a narrow takes panel the voice filter beside it gives way, not this one.
        self.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
        self.chosen = False
        self.activated.connect(lambda _i: setattr(self, "chosen", True))
        self._fill([])
        self.setToolTip(f"Showing: {self.currentText()}\n{FILTER_TIP}")

    def key(self) -> str | None:
        return self.currentData()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        text = max(self.fontMetrics().horizontalAdvance(t) for t in (ALL_TAKES, CLONE_AND_DESIGN))
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        whole = self.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option,
                                              QSize(text, hint.height()), self)
        return QSize(max(hint.width(), whole.width()), hint.height())

    def sizeHint(self) -> QSize:
        return self.minimumSizeHint().expandedTo(super().sizeHint())

    def projects(self) -> list[str]:
        return [self.itemData(i) for i in range(2, self.count())]

    def set_projects(self, projects: list[str], extra: str | None = None) -> None:
        """The scripts that have takes (and ``extra``, the open one, even without takes
        yet); the current choice stays when it still exists."""
        wanted = list(dict.fromkeys([*projects, *([extra] if extra else [])]))
        if wanted == self.projects():
            return
        key = self.key()
        blocked = self.blockSignals(True)
        self._fill(wanted)
        self.set_key(key)
        self.blockSignals(blocked)

    def set_key(self, key: str | None) -> bool:
        """Show ``key``'s takes; False (and All takes) when it is not listed."""
        for i in range(self.count()):
            if self.itemData(i) == key:
                self.setCurrentIndex(i)
                return True
        self.setCurrentIndex(0)
        return False

    def _fill(self, projects: list[str]) -> None:
        self.clear()
        self.addItem(ALL_TAKES, None)
        self.addItem(CLONE_AND_DESIGN, NO_PROJECT)
        for path in projects:
            self.addItem(f"Script: {project_name(path)}", path)
            self.setItemData(self.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
