"""TakeDelegate: two compact lines per take (name with star and time; a mode pill, the
take's place in its batch ("Take 2/3"), who speaks or the text, details and suspect badges), a star that toggles on click, a play
marker, and a stripe that ties the takes of one batch together. Compact, so a laptop's
768 px show five or more takes, not three.

Once any listed take is judged, every row gets a third line: the combined score and a
badge per judge (a mark and a name, coloured by verdict), or a quiet "Not judged"."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QHelpEvent, QPainter, QPalette, QPolygon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from studio.judges.scores import NOT_JUDGED
from studio.views.take_judgements import (
    JUDGES,
    MARKS,
    SCORE_TIP,
    badge_text,
    badge_tip,
    score_of_100,
    score_text,
    tooltip_lines,
    verdict_color,
    verdict_of,
)
from studio.views.takes_model import TakesModel, mode_label, suspect_label, suspect_tip

MODE_COLORS = {"clone": QColor("#2e6da4"), "design": QColor("#7b4fb8"),
               "script": QColor("#2f7d5b")}
STAR_COLOR = QColor("#e0a100")
BADGE_COLORS = (QColor("#b45309"), QColor("#f59e0b"))  # (on light, on dark)
STAR_ON, STAR_OFF = "★", "☆"
NOT_JUDGED_TEXT = "Not judged"


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(6.0, font.pointSizeF() - 1))
    return small


def _bold(font: QFont) -> QFont:
    bold = QFont(font)
    bold.setBold(True)
    return bold


class TakeDelegate(QStyledItemDelegate):
    PAD = 6
    MARK = 16
    # The third line's judge badges: their text's padding, the gap between two, and the
    # gap after the score; compact, so "N/100" fits beside them at 1024 px.
    BADGE_PAD, BADGE_GAP, SCORE_GAP = 8, 4, 6
    STRIPE = 3

    star_clicked = Signal(QModelIndex)

    # ------------------------------------------------------------------ geometry
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        metrics = QFontMetrics(option.font)
        small = QFontMetrics(_small(option.font))
        height = self.PAD * 2 + metrics.height() + small.height() + 2 + 4
        if getattr(index.model(), "any_judged", False):  # (the same for every row: uniform)
            height += small.height() + 2 + 4
        return QSize(220, height)

    def _content(self, rect: QRect) -> QRect:
        return rect.adjusted(self.PAD + self.STRIPE + 2, self.PAD, -self.PAD, -self.PAD)

    def _name_line(self, option: QStyleOptionViewItem) -> QRect:
        rect = self._content(option.rect)
        rect.setLeft(rect.left() + self.MARK)
        return QRect(rect.left(), rect.top(), rect.width(), QFontMetrics(option.font).height())

    def _star_rect(self, option: QStyleOptionViewItem, index: QModelIndex) -> QRect:
        line = self._name_line(option)
        small = QFontMetrics(_small(option.font))
        clock = index.data(TakesModel.ClockRole) or ""
        right = line.right() - small.horizontalAdvance(clock) - 8
        width = QFontMetrics(option.font).horizontalAdvance(STAR_ON) + 6
        return QRect(right - width, line.top(), width, line.height())

    def _badge_rects(self, option: QStyleOptionViewItem, codes) -> list[tuple[QRect, str]]:
        """Right-aligned on the second line."""
        rect = self._content(option.rect)
        small = QFontMetrics(_small(option.font))
        line_h = QFontMetrics(option.font).height()
        top = rect.top() + line_h + 4
        right = rect.right()
        out = []
        for code in reversed(tuple(codes)):
            width = small.horizontalAdvance(suspect_label(code)) + 10
            out.append((QRect(right - width + 1, top, width, small.height() + 2), code))
            right -= width + 4
        return list(reversed(out))

    def _judged_rects(self, option: QStyleOptionViewItem, index: QModelIndex
                      ) -> list[tuple[QRect, str, str]]:
        """The third line's boxes, left to right: (rect, text, what) where what is "score"
        or a judge's key; none when the row has no third line or the take is unjudged."""
        judged = index.data(TakesModel.JudgementRole)
        if judged is None or not getattr(index.model(), "any_judged", False):
            return []
        line = self._name_line(option)
        small = QFontMetrics(_small(option.font))
        bold = QFontMetrics(_bold(_small(option.font)))
        top = line.bottom() + 4 + small.height() + 2 + 4
        height = small.height() + 2
        badges = [(badge_text(verdict_of(judged, key)), key) for key, _name in JUDGES]
        widths = [small.horizontalAdvance(text) + self.BADGE_PAD for text, _key in badges]
        # Out of 100 always where it fits; "Score" too where there is room for it. Chosen
        # for a card with the widest marks and a two-digit score, so every card of the
        # list says it the same way (at 1024 px "86/100" sat above a bare "93").
        widest = sum(max(small.horizontalAdvance(f"{mark} {name}") for mark in MARKS.values())
                     + self.BADGE_PAD + self.BADGE_GAP for _key, name in JUDGES)
        room = line.width() - widest - self.SCORE_GAP
        forms = (lambda v: f"Score {score_of_100(v)}", score_of_100, score_text)
        form = next((f for f in forms if bold.horizontalAdvance(f(0.88)) + 4 <= room),
                    forms[-1])
        score = form(judged.combined)
        out = [(QRect(line.left(), top, bold.horizontalAdvance(score) + 4, height), score,
                "score")]
        left = out[0][0].right() + 1 + self.SCORE_GAP
        for (text, key), width in zip(badges, widths):
            out.append((QRect(left, top, width, height), text, key))
            left += width + self.BADGE_GAP
        return out

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        self.initStyleOption(option, index)
        take = index.data(TakesModel.TakeRole)
        if take is None:
            return
        state = index.data(TakesModel.StateRole)
        batch_index, batch_size, first, last = index.data(TakesModel.BatchRole)
        painter.save()
        style = option.widget.style() if option.widget else None
        name = option.text
        option.text = ""
        if style:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        main = palette.color(QPalette.ColorRole.HighlightedText if selected
                             else QPalette.ColorRole.Text)
        dim = QColor(main)
        dim.setAlphaF(0.78 if selected else 0.62)
        dark = palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5
        mode = mode_label(take)
        mode_color = MODE_COLORS.get(mode.lower(), QColor("#666666"))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)

        # The batch stripe: one bar down the left edge across the rows of one Generate.
        if batch_size > 1:
            bar = QRect(option.rect.left() + 3, option.rect.top(), self.STRIPE,
                        option.rect.height())
            if first:
                bar.setTop(bar.top() + self.PAD)
            if last:
                bar.setBottom(bar.bottom() - self.PAD)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(main if selected else mode_color)
            painter.drawRoundedRect(bar, 1.5, 1.5)

        rect = self._content(option.rect)
        # Play marker: a triangle while playing, bars while paused, nothing otherwise.
        mark = QRect(rect.left(), rect.top() + 3, self.MARK - 6, self.MARK - 6)
        accent = main if selected else QColor("#2e7d32")
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        if state == "playing":
            painter.drawPolygon(QPolygon([mark.topLeft(), mark.bottomLeft(),
                                          QPoint(mark.right(), mark.center().y())]))
        elif state == "paused":
            w = max(2, mark.width() // 3)
            painter.drawRect(mark.left(), mark.top(), w, mark.height())
            painter.drawRect(mark.right() - w + 1, mark.top(), w, mark.height())

        small = _small(option.font)
        smetrics = QFontMetrics(small)
        line = self._name_line(option)

        # Line 1: name, star, time.
        clock = index.data(TakesModel.ClockRole) or ""
        painter.setFont(small)
        painter.setPen(dim)
        painter.drawText(line, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, clock)
        star = self._star_rect(option, index)
        painter.setFont(option.font)
        painter.setPen(STAR_COLOR if take.starred and not selected else
                       (main if take.starred else dim))
        painter.drawText(star, Qt.AlignmentFlag.AlignCenter,
                         STAR_ON if take.starred else STAR_OFF)
        name_rect = QRect(line.left(), line.top(), star.left() - line.left() - 4, line.height())
        bold = _bold(option.font)
        painter.setFont(bold)
        painter.setPen(main)
        painter.drawText(name_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         QFontMetrics(bold).elidedText(name, Qt.TextElideMode.ElideRight,
                                                       name_rect.width()))

        # Line 2: mode pill, who speaks (or the text), details, badges on the right.
        painter.setFont(small)
        top = line.bottom() + 4
        pill = QRect(line.left(), top, smetrics.horizontalAdvance(mode) + 12, smetrics.height() + 2)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(mode_color if not selected else main)
        painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
        painter.setPen(QColor("white") if not selected
                       else palette.color(QPalette.ColorRole.Highlight))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, mode)
        badges = self._badge_rects(option, take.suspects)
        badge_left = badges[0][0].left() if badges else rect.right()
        for box, code in badges:
            color = main if selected else BADGE_COLORS[dark]
            painter.setPen(color)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(box.adjusted(0, 0, -1, -1), 3, 3)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, suspect_label(code))
        details = QRect(pill.right() + 8, top, badge_left - pill.right() - 14, pill.height())
        row = index.data(TakesModel.RowRole)
        if row is not None and row.position:  # up front, where it is never cut off
            painter.setFont(_bold(small))
            painter.setPen(main)
            painter.drawText(details, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             row.position)
            details.setLeft(details.left()
                            + QFontMetrics(_bold(small)).horizontalAdvance(row.position) + 6)
            painter.setFont(small)
        painter.setPen(dim)
        words = " · ".join(w for w in (index.data(TakesModel.ExcerptRole),
                                       index.data(TakesModel.MetaRole)) if w)
        painter.drawText(details, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         smetrics.elidedText(words, Qt.TextElideMode.ElideRight,
                                             details.width()))
        if getattr(index.model(), "any_judged", False):
            self._paint_judged(painter, option, index, main if selected else None, dim, dark)
        painter.restore()

    def _paint_judged(self, painter: QPainter, option: QStyleOptionViewItem,
                      index: QModelIndex, selected: QColor | None, dim: QColor,
                      dark: bool) -> None:
        """Line 3: the score and the judges' badges, or a quiet "Not judged"."""
        small = _small(option.font)
        boxes = self._judged_rects(option, index)
        if not boxes:
            line = self._name_line(option)
            top = line.bottom() + 4 + QFontMetrics(small).height() + 2 + 4
            painter.setFont(small)
            painter.setPen(dim)
            painter.drawText(QRect(line.left(), top, line.width(), QFontMetrics(small).height() + 2),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             NOT_JUDGED_TEXT)
            return
        judged = index.data(TakesModel.JudgementRole)
        (score_box, score, _what), badges = boxes[0], boxes[1:]
        painter.setFont(_bold(small))
        painter.setPen(selected or option.palette.color(QPalette.ColorRole.Text))
        painter.drawText(score_box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         score)
        painter.setFont(small)
        for box, text, key in badges:
            verdict = verdict_of(judged, key).verdict
            quiet = verdict == NOT_JUDGED
            color = selected or (dim if quiet else QColor(verdict_color(verdict, dark)))
            painter.setPen(color)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            if not quiet:  # "not judged" has no frame: it should not catch the eye
                painter.drawRoundedRect(box.adjusted(0, 0, -1, -1), 3, 3)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    # ------------------------------------------------------------------ input
    def editorEvent(self, event, model, option, index) -> bool:
        """A click on the star toggles it (and does not change the selection)."""
        if (event.type() == QEvent.Type.MouseButtonRelease
                and event.button() == Qt.MouseButton.LeftButton
                and self._star_rect(option, index).contains(event.position().toPoint())):
            self.star_clicked.emit(index)
            return True
        if (event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick)
                and self._star_rect(option, index).contains(event.position().toPoint())):
            return True
        return super().editorEvent(event, model, option, index)

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView,
                  option: QStyleOptionViewItem, index: QModelIndex) -> bool:
        """A badge or the star explains itself; elsewhere the row's full tooltip."""
        take = index.data(TakesModel.TakeRole)
        if event.type() == QEvent.Type.ToolTip and take is not None:
            for box, code in self._badge_rects(option, take.suspects):
                if box.contains(event.pos()):
                    QToolTip.showText(event.globalPos(), suspect_tip(code), view, box)
                    return True
            judged = index.data(TakesModel.JudgementRole)
            for box, _text, what in self._judged_rects(option, index):
                if box.contains(event.pos()):
                    tip = ("\n".join([SCORE_TIP, ""] + tooltip_lines(judged)[1:])
                           if what == "score" else badge_tip(verdict_of(judged, what)))
                    QToolTip.showText(event.globalPos(), tip, view, box)
                    return True
            if self._star_rect(option, index).contains(event.pos()):
                QToolTip.showText(event.globalPos(),
                                  "Starred: kept forever (S toggles)" if take.starred
                                  else "Star this take to keep it (S)", view)
                return True
        return super().helpEvent(event, view, option, index)

    # ------------------------------------------------------------------ rename
    def createEditor(self, parent: QWidget, option, index) -> QWidget:
        editor = QLineEdit(parent)
        editor.setObjectName("takeNameEditor")
        editor.setAccessibleName("Take name")
        editor.setFrame(True)
        return editor

    def setEditorData(self, editor: QLineEdit, index: QModelIndex) -> None:
        editor.setText(index.data(Qt.ItemDataRole.EditRole) or "")
        editor.selectAll()

    def updateEditorGeometry(self, editor: QWidget, option, index) -> None:
        line = self._name_line(option)
        star = self._star_rect(option, index)
        editor.setGeometry(QRect(line.left() - 3, line.top() - 3,
                                 star.left() - line.left(), line.height() + 6))
