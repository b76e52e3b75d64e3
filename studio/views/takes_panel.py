"""The takes rendered since the studio opened, newest first, with Play/Pause.

``TakesModel`` holds the takes (one row per take of a RenderResult); ``TakesPanel``
shows them and plays the selected one through the app's shared Player. The panel
only listens to the player's signals for its state, so a clip started elsewhere
(the reference panel) shows correctly here too.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPoint,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPolygon
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListView,
    QPushButton,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from studio.views.widgets.labels import heading_label, hint_label
from studio.worker.jobs import RenderResult

EXCERPT_CHARS = 90
MODE_COLORS = {"clone": QColor("#2e6da4"), "design": QColor("#7b4fb8")}


@dataclass(frozen=True)
class Take:
    key: tuple[str, int]  # what the player is given, unique for the session
    text: str
    mode: str
    seed: int
    number: int  # 1-based, within its render
    count: int  # takes in its render
    seconds: float  # length of the audio
    rtf: float  # render time / audio time for the whole render
    created: _dt.datetime
    audio: np.ndarray
    sample_rate: int

    @property
    def excerpt(self) -> str:
        text = " ".join(self.text.split())
        return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "…"

    @property
    def details(self) -> str:
        parts = [f"take {self.number}/{self.count}"] if self.count > 1 else []
        parts += [f"seed {self.seed}", f"{self.seconds:.1f} s", f"RTF {self.rtf:.2f}"]
        return " · ".join(parts)

    @property
    def meta(self) -> str:
        return " · ".join((self.mode.capitalize(), self.details,
                           self.created.strftime("%H:%M:%S")))


def takes_from(result: RenderResult, ids, now: _dt.datetime) -> list[Take]:
    audio_seconds = result.audio_seconds
    rtf = result.seconds / audio_seconds if audio_seconds > 0 else 0.0
    count = len(result.takes)
    return [
        Take(
            key=("take", next(ids)),
            text=result.request.text,
            mode=result.request.mode,
            seed=t.seed,
            number=i,
            count=count,
            seconds=t.audio.shape[-1] / t.sample_rate,
            rtf=rtf,
            created=now,
            audio=t.audio,
            sample_rate=t.sample_rate,
        )
        for i, t in enumerate(result.takes, start=1)
    ]


class TakesModel(QAbstractListModel):
    """Takes, newest first. Custom roles give the delegate and tests what they need."""

    TakeRole = Qt.ItemDataRole.UserRole + 1
    MetaRole = Qt.ItemDataRole.UserRole + 2
    StateRole = Qt.ItemDataRole.UserRole + 3  # "playing", "paused" or ""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._takes: list[Take] = []
        self._ids = itertools.count(1)
        self._active: tuple[object, str] = (None, "")  # (player key, state)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt API
        return 0 if parent.isValid() else len(self._takes)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._takes):
            return None
        take = self._takes[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return take.excerpt
        if role == self.MetaRole:
            return take.meta
        if role == self.TakeRole:
            return take
        if role == self.StateRole:
            key, state = self._active
            return state if key == take.key else ""
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{take.text}\n\n{take.meta}"
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{take.excerpt}. {take.meta}"
        return None

    def add_result(self, result: RenderResult, now: _dt.datetime | None = None) -> int:
        """Add one row per take, at the top; returns how many were added."""
        takes = takes_from(result, self._ids, now or _dt.datetime.now())
        if not takes:
            return 0
        self.beginInsertRows(QModelIndex(), 0, len(takes) - 1)
        self._takes[:0] = takes
        self.endInsertRows()
        return len(takes)

    def take(self, row: int) -> Take | None:
        return self._takes[row] if 0 <= row < len(self._takes) else None

    def row_of(self, key: object) -> int:
        return next((r for r, t in enumerate(self._takes) if t.key == key), -1)

    def set_active(self, key: object, state: str) -> None:
        """Mark which take the player holds and in what state, for the delegate."""
        previous = self.row_of(self._active[0])
        self._active = (key, state)
        for row in {previous, self.row_of(key)} - {-1}:
            index = self.index(row)
            self.dataChanged.emit(index, index, [self.StateRole])


class TakeDelegate(QStyledItemDelegate):
    """Two lines per take: the text excerpt, then mode pill and details; a play marker."""

    PAD = 8
    MARK = 18

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        metrics = QFontMetrics(option.font)
        small = QFontMetrics(self._small(option.font))
        return QSize(200, self.PAD * 2 + metrics.height() + 4 + small.height() + 2)

    @staticmethod
    def _small(font: QFont) -> QFont:
        small = QFont(font)
        small.setPointSizeF(max(6.0, font.pointSizeF() - 1))
        return small

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        self.initStyleOption(option, index)
        take: Take = index.data(TakesModel.TakeRole)
        state = index.data(TakesModel.StateRole)
        painter.save()
        style = option.widget.style() if option.widget else None
        text = option.text
        option.text = ""
        if style:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        main = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        dim = QColor(main)
        dim.setAlphaF(0.72 if selected else 0.6)

        rect = option.rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        # Play marker: a triangle while playing, bars while paused, nothing otherwise.
        mark = QRect(rect.left(), rect.top() + 2, self.MARK - 6, self.MARK - 6)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        accent = QColor("#2e7d32") if not selected else main
        if state == "playing":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(accent)
            painter.drawPolygon(QPolygon([mark.topLeft(), mark.bottomLeft(),
                                          QPoint(mark.right(), mark.center().y())]))
        elif state == "paused":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(accent)
            w = max(2, mark.width() // 3)
            painter.drawRect(mark.left(), mark.top(), w, mark.height())
            painter.drawRect(mark.right() - w + 1, mark.top(), w, mark.height())
        rect.setLeft(rect.left() + self.MARK)

        metrics = QFontMetrics(option.font)
        small = self._small(option.font)
        smetrics = QFontMetrics(small)
        line = QRect(rect.left(), rect.top(), rect.width(), metrics.height())
        if take is not None:  # the time, right-aligned on the first line
            clock = take.created.strftime("%H:%M")
            painter.setFont(small)
            painter.setPen(dim)
            painter.drawText(line, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             clock)
            line.setRight(line.right() - smetrics.horizontalAdvance(clock) - 10)
        painter.setFont(option.font)
        painter.setPen(main)
        painter.drawText(line, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(text, Qt.TextElideMode.ElideRight, line.width()))

        painter.setFont(small)
        top = line.bottom() + 5
        mode = take.mode.capitalize() if take else ""
        pill_w = smetrics.horizontalAdvance(mode) + 12
        pill = QRect(rect.left(), top, pill_w, smetrics.height() + 2)
        color = MODE_COLORS.get(take.mode if take else "", QColor("#666666"))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color if not selected else main)
        painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
        painter.setPen(QColor("white") if not selected else palette.color(QPalette.ColorRole.Highlight))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, mode)
        rest = take.details if take is not None else ""
        details = QRect(pill.right() + 8, top, rect.right() - pill.right() - 8, pill.height())
        painter.setPen(dim)
        painter.drawText(details, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         smetrics.elidedText(rest, Qt.TextElideMode.ElideRight, details.width()))
        painter.restore()


class TakesPanel(QWidget):
    """The takes list with Play/Pause through the shared player (Space toggles)."""

    play_failed = Signal(str)  # one sentence, for the status bar

    def __init__(self, player=None, *, audio_status=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("takesPanel")
        self.setAccessibleName("Takes")
        self._player = player
        self.model = TakesModel(self)
        self._reason: str | None = None
        self._build()
        if player is not None:
            player.state_changed.connect(self._player_state)
            player.position_changed.connect(self._player_position)
            player.error.connect(self.play_failed)
        if audio_status is None:
            from studio.audio.backend import audio_status as probe

            audio_status = probe()
        self.set_audio_status(audio_status)

    def _build(self) -> None:
        self.title = heading_label("Takes", size_delta=2)
        self.countLabel = hint_label("")
        self.countLabel.setWordWrap(False)
        self.countLabel.setAccessibleName("Number of takes")

        self.list = QListView()
        self.list.setObjectName("takesList")
        self.list.setModel(self.model)
        self.list.setItemDelegate(TakeDelegate(self.list))
        self.list.setSelectionMode(QListView.SelectionMode.SingleSelection)
        self.list.setUniformItemSizes(True)
        self.list.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.setAccessibleName("Takes rendered this session")
        self.list.setToolTip("Takes rendered since the studio opened, newest first. "
                             "Space or double-click plays the selected take.")
        self.list.installEventFilter(self)
        self.list.doubleClicked.connect(lambda _index: self.toggle())
        self.list.selectionModel().currentChanged.connect(lambda *_: self._refresh())

        self.empty = hint_label("Takes you render appear here. Select one and press Space "
                                "to play it.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setObjectName("takesEmpty")
        self.empty.setContentsMargins(16, 16, 16, 16)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.list)

        self.playButton = QPushButton("Play")
        self.playButton.setObjectName("playTakeButton")
        self.playButton.setAccessibleName("Play or pause the selected take")
        self.playButton.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.playButton.setMinimumWidth(96)
        self.playButton.clicked.connect(self.toggle)
        self.timeLabel = QLabel("")
        self.timeLabel.setObjectName("takeTime")
        self.timeLabel.setAccessibleName("Playback position")

        header = QHBoxLayout()
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.countLabel)
        bar = QHBoxLayout()
        bar.addWidget(self.playButton)
        bar.addStretch(1)
        bar.addWidget(self.timeLabel)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 18, 12, 12)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addWidget(self.stack, 1)
        layout.addLayout(bar)
        self._refresh()

    # ------------------------------------------------------------------ API
    def set_audio_status(self, status) -> None:
        """Play needs a player and a working output; otherwise the button says why not."""
        if self._player is None:
            self._reason = "Playback is off: no player."
        elif not status.available:
            self._reason = status.reason or "Playback is off."
        else:
            self._reason = None
        self._refresh()

    def add_result(self, result: RenderResult) -> None:
        added = self.model.add_result(result)
        if added:
            self.list.setCurrentIndex(self.model.index(0))
        self._refresh()

    def selected(self) -> Take | None:
        index = self.list.currentIndex()
        return self.model.take(index.row()) if index.isValid() else None

    def toggle(self) -> None:
        """Play the selected take, or pause/resume it if the player already holds it."""
        take = self.selected()
        if take is None or self._reason is not None:
            return
        if self._player.key() == take.key:
            self._player.toggle()
        else:
            self._player.load(take.audio, take.sample_rate, take.key)
            self._player.play()

    # ------------------------------------------------------------------ events
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.list and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Space and not event.modifiers()):
            self.toggle()
            return True
        return super().eventFilter(watched, event)

    def _player_state(self, state: str) -> None:
        key = self._player.key()
        mine = isinstance(key, tuple) and self.model.row_of(key) >= 0
        self.model.set_active(key if mine else None, state if mine and state != "stopped" else "")
        self._refresh()

    def _player_position(self, seconds: float) -> None:
        if self.model.row_of(self._player.key()) >= 0:
            self.timeLabel.setText(f"{_clock(seconds)} / {_clock(self._player.duration())}")

    def _refresh(self) -> None:
        count = self.model.rowCount()
        self.countLabel.setText(f"{count} take{'s' if count != 1 else ''}" if count else "")
        self.stack.setCurrentWidget(self.list if count else self.empty)
        take = self.selected()
        playing = (self._player is not None and take is not None
                   and self._player.key() == take.key and self._player.state() == "playing")
        self.playButton.setText("Pause" if playing else "Play")
        self.playButton.setIcon(self.style().standardIcon(
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay))
        if self._reason is not None:
            self.playButton.setEnabled(False)
            self.playButton.setToolTip(self._reason)
        elif take is None:
            self.playButton.setEnabled(False)
            self.playButton.setToolTip("Select a take to play it")
        else:
            self.playButton.setEnabled(True)
            self.playButton.setToolTip("Pause the take (Space)" if playing
                                       else "Play the selected take (Space)")
        if take is None or self._player is None or self._player.key() != take.key:
            self.timeLabel.setText(_clock(take.seconds) if take else "")


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"
