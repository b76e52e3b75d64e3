"""A waveform strip: min/max peaks per pixel column, a playhead, click or arrow keys to seek,
(where the owner allows it) a selection dragged across it, for trimming, and (the reference
cleanup) the ends a cleanup trims shaded with the cleaned clip drawn over the original."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from studio.sound.peaks import waveform_peaks

SEEK_STEP_S = 1.0
DRAG_PX = 4  # a press that moves further than this selects instead of seeking
SWEET_SPOT_S = (3.0, 10.0)  # the reference length that clones best


class WaveformView(QWidget):
    """Draws one clip. Emits ``seek_requested(seconds)``; the owner moves the player and
    reports back with :meth:`set_position` (the view never changes playback itself)."""

    seek_requested = Signal(float)
    selection_changed = Signal(object)  # (start, end) seconds, or None when cleared

    def __init__(self, parent: QWidget | None = None, selectable: bool = False):
        super().__init__(parent)
        self._selectable = selectable
        self._selection: tuple[float, float] | None = None
        self._press_x: float | None = None  # where the left button went down
        self._dragging = False
        self._audio: np.ndarray | None = None
        self._rate = 0
        self._peaks: np.ndarray | None = None  # (width, 2), recomputed when the width changes
        self._position = 0.0
        self._cleaned: tuple[float, float, np.ndarray] | None = None  # (start s, end s, audio)
        self._cleaned_peaks: np.ndarray | None = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(56)
        self.setAccessibleName("Waveform")
        self.setToolTip("Click to move the playhead; Left and Right arrows step one second"
                        + ("; drag across the clip to select part of it" if selectable else ""))
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:
        return QSize(480, 72)

    # -- state in --------------------------------------------------------------------
    def set_audio(self, audio: np.ndarray | None, sample_rate: int = 0) -> None:
        """Show ``audio`` ((T,) or (C, T) float); None clears the view."""
        self._audio = None if audio is None else np.asarray(audio, dtype=np.float32)
        self._rate = int(sample_rate)
        self._peaks = None
        self._position = 0.0
        self._selection = None
        self._cleaned, self._cleaned_peaks = None, None
        if self._audio is None:
            self.setAccessibleDescription("No clip")
        else:
            self.setAccessibleDescription(f"Clip of {self.duration():.1f} seconds")
        self.update()

    def set_cleaned(self, start_s: float, end_s: float, audio: np.ndarray | None) -> None:
        """Show a cleanup of the clip: outside ``start_s``-``end_s`` shaded as trimmed,
        ``audio`` (the cleaned clip, as long as that span) drawn over the original;
        ``audio=None`` clears it."""
        if audio is None or not self.has_audio():
            self._cleaned = None
        else:
            start = max(0.0, min(float(start_s), self.duration()))
            end = max(start, min(float(end_s), self.duration()))
            self._cleaned = (start, end, np.asarray(audio, dtype=np.float32).reshape(-1))
        self._cleaned_peaks = None
        self.update()

    def cleaned_span(self) -> tuple[float, float] | None:
        """The kept span of the shown cleanup (seconds), or None when none is shown."""
        return None if self._cleaned is None else self._cleaned[:2]

    def set_position(self, seconds: float) -> None:
        self._position = max(0.0, min(float(seconds), self.duration()))
        self.update()

    # -- queries ---------------------------------------------------------------------
    def has_audio(self) -> bool:
        return self._audio is not None and self._rate > 0

    def duration(self) -> float:
        if not self.has_audio():
            return 0.0
        return self._audio.shape[-1] / self._rate

    def position(self) -> float:
        return self._position

    def selection(self) -> tuple[float, float] | None:
        return self._selection

    def set_selection(self, selection: tuple[float, float] | None) -> None:
        """Select ``(start, end)`` seconds (clamped, ordered); None clears."""
        if selection is not None and self.has_audio():
            start, end = sorted(max(0.0, min(float(t), self.duration())) for t in selection)
            selection = (start, end) if end - start > 0.05 else None
        else:
            selection = None
        if selection != self._selection:
            self._selection = selection
            self.setAccessibleDescription(self._describe())
            self.selection_changed.emit(selection)
            self.update()

    def _describe(self) -> str:
        if self._selection is None:
            return f"Clip of {self.duration():.1f} seconds" if self.has_audio() else "No clip"
        start, end = self._selection
        return f"{end - start:.1f} seconds selected, from {start:.1f} to {end:.1f}"

    def seconds_at(self, x: float) -> float:
        """The clip time under pixel column ``x``."""
        width = max(1, self.width())
        return max(0.0, min(1.0, x / width)) * self.duration()

    # -- input -----------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        if self.has_audio() and event.button() == Qt.MouseButton.LeftButton:
            self._press_x = event.position().x()
            if not self._selectable:
                self.seek_requested.emit(self.seconds_at(self._press_x))
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._selectable and self._press_x is not None:
            x = event.position().x()
            if self._dragging or abs(x - self._press_x) > DRAG_PX:
                self._dragging = True
                self.set_selection((self.seconds_at(self._press_x), self.seconds_at(x)))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._selectable and self._press_x is not None:
            if not self._dragging:  # a click: seek there, and drop the selection
                self.set_selection(None)
                self.seek_requested.emit(self.seconds_at(self._press_x))
            self._press_x, self._dragging = None, False
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:
        step = {Qt.Key.Key_Left: -SEEK_STEP_S, Qt.Key.Key_Right: SEEK_STEP_S}.get(event.key())
        if self.has_audio() and step is not None:
            target = max(0.0, min(self._position + step, self.duration()))
            self.seek_requested.emit(target)
            event.accept()
            return
        if self.has_audio() and event.key() == Qt.Key.Key_Home:
            self.seek_requested.emit(0.0)
            event.accept()
            return
        super().keyPressEvent(event)

    # -- painting --------------------------------------------------------------------
    def _column_peaks(self, width: int) -> np.ndarray:
        if self._peaks is None or self._peaks.shape[0] != width:
            self._peaks = waveform_peaks(self._audio, width)
        return self._peaks

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        pal = self.palette()
        frame = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        focus = self.hasFocus()
        painter.setPen(QPen(pal.color(QPalette.ColorRole.Highlight if focus else
                                      QPalette.ColorRole.Mid), 1))
        painter.setBrush(pal.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(frame, 4, 4)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)

        inner = self.rect().adjusted(2, 4, -2, -4)
        mid = inner.center().y()
        if not self.has_audio():
            painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No clip loaded")
            return

        width = max(1, inner.width())
        peaks = self._column_peaks(width)
        half = inner.height() / 2
        played_x = inner.left() + (self._position / self.duration() if self.duration() else 0) * width
        wave = pal.color(QPalette.ColorRole.Highlight)
        dim = QColor(wave)
        dim.setAlpha(150)
        painter.setPen(QPen(pal.color(QPalette.ColorRole.Midlight), 1))
        painter.drawLine(inner.left(), mid, inner.right(), mid)
        for i in range(width):
            x = inner.left() + i
            lo, hi = float(peaks[i, 0]), float(peaks[i, 1])
            y_top = mid - max(hi, 0.0) * half
            y_bottom = mid - min(lo, 0.0) * half
            painter.setPen(wave if x <= played_x else dim)
            painter.drawLine(QPointF(x, y_top), QPointF(x, max(y_bottom, y_top + 1)))

        if self._cleaned is not None:
            self._paint_cleaned(painter, inner)
        if self._selection is not None:
            self._paint_selection(painter, inner)
        painter.setPen(QPen(pal.color(QPalette.ColorRole.Text), 2))
        painter.drawLine(int(played_x), inner.top() - 2, int(played_x), inner.bottom() + 2)

    def _paint_cleaned(self, painter: QPainter, inner) -> None:
        """Trimmed ends greyed out; the cleaned clip's peaks in green over the kept span."""
        start, end, audio = self._cleaned
        total = self.duration()
        x_of = lambda t: inner.left() + t / total * inner.width()  # noqa: E731 - local helper
        grey = QColor(self.palette().color(QPalette.ColorRole.Window))
        grey.setAlpha(200)
        painter.fillRect(QRectF(inner.left(), inner.top(), x_of(start) - inner.left(),
                                inner.height()), grey)
        painter.fillRect(QRectF(x_of(end), inner.top(), inner.right() - x_of(end) + 1,
                                inner.height()), grey)
        columns = max(1, int(x_of(end) - x_of(start)))
        if audio.size == 0:
            return
        if self._cleaned_peaks is None or self._cleaned_peaks.shape[0] != columns:
            self._cleaned_peaks = waveform_peaks(audio, columns)
        mid, half = inner.center().y(), inner.height() / 2
        green = QColor(46, 160, 67, 220)
        painter.setPen(green)
        left = x_of(start)
        for i in range(columns):
            lo, hi = (float(v) for v in self._cleaned_peaks[i])
            y_top, y_bottom = mid - max(hi, 0.0) * half, mid - min(lo, 0.0) * half
            painter.drawLine(QPointF(left + i, y_top), QPointF(left + i, max(y_bottom, y_top + 1)))

    def _paint_selection(self, painter: QPainter, inner) -> None:
        """The selection shaded, green when its length is in the sweet spot, amber when
        not; ticks where a selection from its start would be 3 s and 10 s long."""
        start, end = self._selection
        total = self.duration()
        x_of = lambda t: inner.left() + t / total * inner.width()  # noqa: E731 - local helper
        good = SWEET_SPOT_S[0] <= end - start <= SWEET_SPOT_S[1]
        shade = QColor(46, 160, 67, 60) if good else QColor(210, 140, 20, 70)
        edge = QColor(46, 160, 67) if good else QColor(190, 120, 10)
        area = QRectF(x_of(start), inner.top(), x_of(end) - x_of(start), inner.height())
        painter.fillRect(area, shade)
        painter.setPen(QPen(edge, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(area)
        painter.setPen(QPen(edge, 1, Qt.PenStyle.DashLine))
        for seconds in SWEET_SPOT_S:
            if start + seconds <= total:
                x = x_of(start + seconds)
                painter.drawLine(QPointF(x, inner.bottom() - 8), QPointF(x, inner.bottom() + 2))
