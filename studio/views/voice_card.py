"""VoiceCardDelegate: one saved voice as a card in the Voices list.

Name; language, the instruct of a designed voice, and tags; clip length, created, last used and how often; and a small
waveform of the clip on the right. The clip is read the first time its card is
drawn (see voices_model.read_clip), so opening a thousand voices reads none.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QToolTip

from studio.views.voices_model import VoiceRole, read_clip, when

PAD = 10
WAVE_WIDTH = 100


MIN_CARD_WIDTH = 160


def card_lines(entry) -> tuple[str, str, str]:
    """What a card says, line by line (also what tests read)."""
    voice = entry.voice
    # A designed voice says what it was designed as (a reviewer could not tell it apart).
    instruct = f"instruct: {voice.instruct}" if voice.instruct else ""
    about = " · ".join(part for part in (voice.language, instruct, ", ".join(voice.tags)) if part)
    length = f"{entry.seconds:.1f} s" if entry.seconds is not None else (
        "clip missing" if entry.read else "…")
    if voice.use_count:
        takes = "1 take" if voice.use_count == 1 else f"{voice.use_count} takes"
        use = f"{takes} · last {when(voice.last_used)}"
    else:
        use = f"no takes yet · made {when(voice.created)}"
    return voice.name, about or "no tags", f"{length} · {use}"


def card_tooltip(entry) -> str:
    """The card's lines whole (a narrow card cuts them), then what the clip says."""
    return "\n".join((*card_lines(entry), "", entry.voice.transcript)).strip()


class VoiceCardDelegate(QStyledItemDelegate):
    def helpEvent(self, event, view, option, index) -> bool:
        entry = index.data(VoiceRole) if index.isValid() else None
        if entry is None or event.type() != event.Type.ToolTip:
            return super().helpEvent(event, view, option, index)
        QToolTip.showText(event.globalPos(), card_tooltip(entry), view)
        return True

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        line = option.fontMetrics.lineSpacing()
        # As wide as the list gives it (the list sets no horizontal scrolling): a wider
        # hint cut the card under a scroll bar in a narrow window; its lines elide.
        return QSize(MIN_CARD_WIDTH, 3 * line + 2 * PAD + 6)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        entry = index.data(VoiceRole)
        if entry is None:
            return
        read_clip(entry)
        painter.save()
        pal = option.palette
        card = option.rect.adjusted(2, 2, -2, -2)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1))
        painter.setBrush(pal.color(QPalette.ColorRole.Highlight if selected
                                   else QPalette.ColorRole.Base))
        painter.drawRoundedRect(card, 6, 6)
        text_color = pal.color(QPalette.ColorRole.HighlightedText if selected
                               else QPalette.ColorRole.Text)
        dim = QColor(text_color)
        dim.setAlpha(170)

        inner = card.adjusted(PAD, PAD - 2, -PAD, -PAD + 2)
        wave = QRect(inner.right() - WAVE_WIDTH + 1, inner.top() + 4, WAVE_WIDTH, inner.height() - 8)
        text = QRect(inner.left(), inner.top(), inner.width() - WAVE_WIDTH - PAD, inner.height())
        line = option.fontMetrics.lineSpacing()
        name, about, facts = card_lines(entry)
        bold = QFont(option.font)
        bold.setBold(True)
        rows = ((name, bold, text_color), (about, option.font, dim), (facts, option.font, dim))
        for i, (words, font, color) in enumerate(rows):
            painter.setFont(font)
            painter.setPen(color)
            row = QRect(text.left(), text.top() + i * (line + 2), text.width(), line)
            elided = painter.fontMetrics().elidedText(words, Qt.TextElideMode.ElideRight, row.width())
            painter.drawText(row, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, elided)
        self._wave(painter, wave, entry.peaks, text_color if selected
                   else pal.color(QPalette.ColorRole.Highlight))
        painter.restore()

    @staticmethod
    def _wave(painter: QPainter, rect: QRect, peaks, color: QColor) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        mid = rect.center().y()
        if peaks is None:
            painter.setPen(QPen(color, 1, Qt.PenStyle.DotLine))
            painter.drawLine(rect.left(), mid, rect.right(), mid)
            return
        painter.setPen(QPen(color, 1))
        half = rect.height() / 2
        step = rect.width() / max(len(peaks), 1)
        for i, (lo, hi) in enumerate(peaks):
            x = rect.left() + i * step
            top, bottom = mid - max(float(hi), 0.0) * half, mid - min(float(lo), 0.0) * half
            painter.drawLine(QPointF(x, top), QPointF(x, max(bottom, top + 1)))
