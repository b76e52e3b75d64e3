"""A horizontal input level meter fed with dBFS values (the recorder's level_changed)."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt, Slot
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

FLOOR_DB = -60.0
# Above these levels the bar turns amber, then red: a recording near 0 dBFS clips.
WARN_DB = -12.0
CLIP_DB = -3.0


def level_fraction(dbfs: float, floor: float = FLOOR_DB) -> float:
    """Where ``dbfs`` sits on the meter, 0 (floor or silence) to 1 (0 dBFS)."""
    if not math.isfinite(dbfs) or dbfs <= floor:
        return 0.0
    return min(1.0, (dbfs - floor) / -floor)


class LevelMeter(QWidget):
    """Shows the latest level and a slowly falling peak marker."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._level = FLOOR_DB
        self._peak = FLOOR_DB
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Input level")
        self.setToolTip("Microphone level; keep the peaks out of the red")

    def sizeHint(self) -> QSize:
        return QSize(160, 10)

    def minimumSizeHint(self) -> QSize:
        return QSize(60, 8)

    def level(self) -> float:
        return self._level

    @Slot(float)
    def set_level(self, dbfs: float) -> None:
        self._level = dbfs if math.isfinite(dbfs) else FLOOR_DB
        # The peak marker falls 1.5 dB per update so a short loud burst stays readable.
        self._peak = max(self._level, self._peak - 1.5)
        self.setAccessibleDescription(f"{self._level:.0f} dBFS")
        self.update()

    def reset(self) -> None:
        self._level = self._peak = FLOOR_DB
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        pal = self.palette()
        painter.setPen(pal.color(QPalette.ColorRole.Mid))
        painter.setBrush(pal.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(rect, 3, 3)

        inner = rect.adjusted(1.5, 1.5, -1.5, -1.5)
        fraction = level_fraction(self._level)
        if fraction > 0:
            if self._level >= CLIP_DB:
                color = QColor("#d64541")
            elif self._level >= WARN_DB:
                color = QColor("#e0a030")
            else:
                color = QColor("#3fa55b")
            bar = QRectF(inner.left(), inner.top(), inner.width() * fraction, inner.height())
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawRoundedRect(bar, 2, 2)
        peak = level_fraction(self._peak)
        if peak > 0:
            x = inner.left() + inner.width() * peak
            painter.setPen(pal.color(QPalette.ColorRole.Text))
            painter.drawLine(int(x), int(inner.top()), int(x), int(inner.bottom()))
