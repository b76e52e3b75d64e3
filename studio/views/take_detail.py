"""The selected take's detail pane: name, waveform, play, notes and the action buttons.

The pane only shows what the takes panel tells it and says what was clicked, as
signals; the panel owns the library, the player and the controller. That keeps the
pane free of the take list's state, so it renders from one ``show_take`` call.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.library.session_takes import is_unsaved
from studio.views.judgement_pane import JudgementPane
from studio.views.take_delegate import STAR_OFF, STAR_ON
from studio.views.takes_model import (
    Row,
    mode_label,
    rendered_on,
    script_place,
    suspect_tip,
    voice_text,
)
from studio.views.widgets.elided_label import ElidedLabel
from studio.views.widgets.labels import MessageLabel, hint_label
from studio.views.widgets.waveform import WaveformView

NOTES_DELAY_MS = 800
SCROLL_MIN_LINES = 4  # the details' least height: the name and the waveform's top
DETAIL_LINES = 5  # how the take was made and what is suspect in it, together


class DetailScroll(QScrollArea):
    """The details' scroll area: as tall as its content when there is room (a plain
    QScrollArea caps its hint), down to a few lines when there is none."""

    def __init__(self, body: QWidget):
        super().__init__()
        self.setObjectName("takeDetailScroll")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setMinimumHeight(self.fontMetrics().lineSpacing() * SCROLL_MIN_LINES)
        self.setWidget(body)
        body.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A scroll area keeps its hint when its content grows (the Judgements heading
        # shows once a listed take is judged): tell the panel's layout, which otherwise
        # left the room to the list and scrolled the details.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def sizeHint(self) -> QSize:
        hint = self.widget().sizeHint()
        return QSize(hint.width(), hint.height() + 2 * self.frameWidth())


def clock(seconds: float) -> str:
    """m:ss, as the time label shows it."""
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


class TakeDetail(QFrame):
    """One take's details and the buttons that act on the selection."""

    play_clicked = Signal()
    seek_requested = Signal(float)  # seconds, from a click on the waveform
    play_from_requested = Signal(float)  # seconds: play the take from there (a word change)
    star_clicked = Signal()
    rename_clicked = Signal()
    notes_committed = Signal(str, str)  # take id, the notes as typed (stripped)
    rerender_clicked = Signal(bool)  # vary: a new seed instead of the same one
    copy_clicked = Signal()
    export_clicked = Signal()
    compare_clicked = Signal()
    delete_clicked = Signal()
    use_as_voice_clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("takeDetail")
        self._notes_for: str | None = None  # the take the notes editor holds
        self._waveform_for: str | None = None  # the take the waveform was last loaded with
        self._shown: str | None = None  # the take the details show
        self._build()
        self._connect()

    def _build(self) -> None:
        self.nameLabel = ElidedLabel("")  # cut with "…" beside Rename, whole in its tooltip
        self.nameLabel.setObjectName("takeName")
        font = self.nameLabel.font()
        font.setBold(True)
        self.nameLabel.setFont(font)
        self.starButton = QToolButton()
        self.starButton.setObjectName("starButton")
        self.starButton.setCheckable(True)
        self.starButton.setAutoRaise(True)
        self.starButton.setText(STAR_OFF)
        self.starButton.setAccessibleName("Star")
        self.renameButton = QToolButton()
        self.renameButton.setObjectName("renameButton")
        self.renameButton.setText("Rename")
        self.renameButton.setAutoRaise(True)
        self.renameButton.setToolTip("Rename the take (F2)")

        self.waveform = WaveformView()
        self.waveform.setObjectName("takeWaveform")
        self.waveform.setAccessibleName("Waveform of the selected take")
        self.waveform.setMinimumHeight(52)

        self.playButton = QPushButton("Play")
        self.playButton.setObjectName("playTakeButton")
        self.playButton.setAccessibleName("Play or pause the selected take")
        self.playButton.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.playButton.setMinimumWidth(88)
        self.timeLabel = QLabel("")
        self.timeLabel.setObjectName("takeTime")
        self.timeLabel.setAccessibleName("Playback position")
        self.infoLabel = hint_label("")
        self.infoLabel.setObjectName("takeInfo")
        self.infoLabel.setAccessibleName("How the take was made")
        self.suspectLabel = MessageLabel()
        self.suspectLabel.setObjectName("takeSuspects")
        self.judgementsSection = JudgementPane()
        self.judgementsSection.hide()  # until a listed take is judged

        self.notesEdit = QPlainTextEdit()
        self.notesEdit.setObjectName("takeNotes")
        self.notesEdit.setPlaceholderText("Notes…")
        self.notesEdit.setAccessibleName("Notes on the take")
        self.notesEdit.setToolTip("Your notes on this take; saved as you type and searchable")
        self.notesEdit.setTabChangesFocus(True)
        self.notesEdit.setFixedHeight(self.notesEdit.fontMetrics().lineSpacing() * 2 + 14)
        self._notes_timer = QTimer(self)
        self._notes_timer.setSingleShot(True)
        self._notes_timer.setInterval(NOTES_DELAY_MS)

        def action(name: str, text: str, tip: str) -> QPushButton:
            button = QPushButton(text)
            button.setObjectName(name)
            button.setToolTip(tip)
            button.setAccessibleName(text.rstrip("…"))
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            # Shares the row evenly, but never so narrow that its word is cut.
            button.setMinimumWidth(button.fontMetrics().horizontalAdvance(text) + 12)
            return button

        self.rerenderButton = action("rerenderButton", "Re-render",
                                     "Render this take again, same variation: identical audio")
        self.varyButton = action("varyButton", "New variation",
                                 "Render this take's settings again as another variation")
        self.copyButton = action("copySettingsButton", "Use settings",
                                 "Put this take's text and settings into its Clone or Design "
                                 "form, its variation locked (Ctrl+Z puts your form back)")
        self.exportButton = action("exportButton", "Export…",
                                   "Save the selected takes as audio files with their settings")
        self.compareButton = action("compareButton", "Compare A/B",
                                    "Compare the two selected takes, loudness-matched")
        self.deleteButton = action("deleteButton", "Delete",
                                   "Delete the selected takes (Delete; Ctrl+Z brings them back)")
        self.useAsVoiceButton = action(
            "useAsVoiceButton", "Save as voice…",
            "Keep this take's voice under a name, to pick in Clone or a script's cast: "
            "how a designed voice stays the same from line to line")

        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.nameLabel, 1)
        top.addWidget(self.renameButton)
        top.addWidget(self.starButton)
        transport = QHBoxLayout()
        transport.addWidget(self.playButton)
        transport.addStretch(1)
        transport.addWidget(self.timeLabel)
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(6)
        buttons = (self.rerenderButton, self.varyButton, self.copyButton,
                   self.exportButton, self.compareButton, self.deleteButton)
        for i, button in enumerate(buttons):
            grid.addWidget(button, i // 3, i % 3)
        for col in range(3):
            # Ignored-policy buttons share the width evenly, so a column narrower than its
            # widest word let that button run into its neighbour, gap and all.
            grid.setColumnMinimumWidth(col, max(b.minimumWidth() for b in buttons[col::3]))
        grid.addWidget(self.useAsVoiceButton, 2, 0, 1, 3)

        # What the take is scrolls inside itself; the actions stay pinned below it. So an
        # open judgement on a short screen (1024x640) takes the details' room, not the
        # list's: the panel keeps several takes in sight while one is read.
        body = QWidget()
        body.setObjectName("takeDetailBody")
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addLayout(top)
        column.addWidget(self.waveform)
        column.addLayout(transport)
        column.addWidget(self._details())
        column.addWidget(self.judgementsSection)
        column.addWidget(self.notesEdit)
        self.scroll = DetailScroll(body)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 4, 0, 0)
        outer.setSpacing(6)
        outer.addWidget(self.scroll, 1)
        outer.addLayout(grid)

    def _details(self) -> QWidget:
        """How the take was made and what is suspect in it, wrapped, sharing a box of fixed
        height: the title row above stays put from take to take. A short line leaves its
        room to the other (review 6, item 4: "…it may crackle. To…" was cut at 1366x768 and
        "…real time · cpu" at 1024x640); a text longer than the box is whole in the tooltip."""
        box = QWidget()
        box.setObjectName("takeDetails")
        rows = QVBoxLayout(box)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(2)
        for label in (self.infoLabel, self.suspectLabel):
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            label.setWordWrap(True)
            policy = label.sizePolicy()
            policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)  # a long one wraps, not widening
            label.setSizePolicy(policy)
            rows.addWidget(label)
        rows.addStretch(1)
        box.setFixedHeight(self.infoLabel.fontMetrics().lineSpacing() * DETAIL_LINES + 6)
        return box

    def _connect(self) -> None:
        self.waveform.seek_requested.connect(self.seek_requested)
        self.judgementsSection.play_from.connect(self.play_from_requested)
        self.judgementsSection.clicked.connect(self._judgements_toggled)  # not a restore
        self.playButton.clicked.connect(lambda _checked=False: self.play_clicked.emit())
        self.starButton.clicked.connect(lambda _checked=False: self.star_clicked.emit())
        self.renameButton.clicked.connect(lambda _checked=False: self.rename_clicked.emit())
        self.notesEdit.textChanged.connect(self._notes_edited)
        self._notes_timer.timeout.connect(self.commit_notes)
        self.rerenderButton.clicked.connect(lambda _checked=False: self.rerender_clicked.emit(False))
        self.varyButton.clicked.connect(lambda _checked=False: self.rerender_clicked.emit(True))
        self.copyButton.clicked.connect(lambda _checked=False: self.copy_clicked.emit())
        self.useAsVoiceButton.clicked.connect(
            lambda _checked=False: self.use_as_voice_clicked.emit())
        self.exportButton.clicked.connect(lambda _checked=False: self.export_clicked.emit())
        self.compareButton.clicked.connect(lambda _checked=False: self.compare_clicked.emit())
        self.deleteButton.clicked.connect(lambda _checked=False: self.delete_clicked.emit())

    def _judgements_toggled(self, expanded: bool) -> None:
        if expanded:  # opened to be read: its heading to the top once the layout has it
            QTimer.singleShot(0, lambda: self.scroll.verticalScrollBar().setValue(
                self.judgementsSection.y()))

    # ------------------------------------------------------------------ showing
    def show_take(self, row: Row | None, count: int, writable: bool,
                  judging: bool = False) -> None:
        """Show the current take (``row``) of ``count`` selected; ``writable``: edits allowed;
        ``judging``: some listed take is judged, so the Judgements section shows (for
        every take, so the details keep their height).

        The notes are left alone while the user types in them for this same take, so a
        reload does not move the cursor or drop unsent keys.
        """
        take = row.take if row else None
        self.setEnabled(take is not None)
        if take is not None and take.id != self._shown:
            # Another take: its name, waveform and Play first. A review found a new take's
            # Play half hidden, the details left scrolled down to the last one's judgements.
            self.scroll.verticalScrollBar().setValue(0)
        self._shown = take.id if take is not None else None
        self.judgementsSection.setVisible(judging and take is not None)
        if judging and take is not None:
            self.judgementsSection.show_judgement(row.judged, take.settings.text)
        if take is None:
            self.nameLabel.setText("No take selected")
            self.waveform.set_audio(None)
            self._waveform_for = None  # so selecting a take again draws it
            self.infoLabel.setText("")
            self.suspectLabel.clear_message()
            self._set_notes(None, "")
        else:
            self.nameLabel.setText(row.name if count < 2 else f"{row.name} (+{count - 1} more)")
            self.nameLabel.setToolTip(row.name)
            place = script_place(take)  # a script line's: its project and line
            self.infoLabel.setText(" · ".join(w for w in (  # "Take 2/3" first, as on its card
                row.position, mode_label(take), place, voice_text(take), row.compact,
                rendered_on(take)) if w))
            self.infoLabel.setToolTip(f"{row.variation_tip}\n\n{row.tooltip}")
            self.show_problem(" ".join(suspect_tip(c) for c in take.suspects))
        starred = take is not None and take.starred
        self.starButton.setChecked(starred)
        self.starButton.setText(STAR_ON if starred else STAR_OFF)
        self.starButton.setToolTip("Unstar the take (S)" if starred
                                   else "Star the take: starred takes are never pruned (S)")
        writable = writable and take is not None
        # An unsaved take lives only in memory: nothing to keep a star, name or notes in.
        editable = writable and not is_unsaved(take.id)
        for button in (self.starButton, self.renameButton):
            button.setEnabled(editable)
        self.deleteButton.setEnabled(writable)
        self.notesEdit.setReadOnly(not editable)
        for button in (self.rerenderButton, self.varyButton, self.copyButton, self.exportButton):
            button.setEnabled(take is not None)
        # The voice is made from the take's audio file: a take kept only in memory has none.
        self.useAsVoiceButton.setEnabled(take is not None and not is_unsaved(take.id))
        self.compareButton.setEnabled(count == 2)
        self.compareButton.setToolTip(
            "Compare the two selected takes, loudness-matched" if count == 2 else
            "Select exactly two takes (Ctrl+click) to compare them")

    def show_notes(self, take_id: str, text: str) -> None:
        """Put a take's notes in the editor, unless the user is typing this take's notes."""
        if take_id != self._notes_for or not self.notesEdit.hasFocus():
            self._set_notes(take_id, text)

    def show_audio(self, take_id: str, audio: tuple[np.ndarray, int] | None,
                   position: float | None = None) -> None:
        """Draw a take's waveform; reloading the same take would lose the playhead, so it doesn't.

        ``position``: where the playhead goes when the waveform is (re)loaded (None: the start).
        """
        if audio is None:
            self.waveform.set_audio(None)
            self._waveform_for = None
            return
        if self._waveform_for != take_id:
            self.waveform.set_audio(*audio)
            self._waveform_for = take_id
            if position is not None:
                self.waveform.set_position(position)

    def show_problem(self, text: str) -> None:
        """A sentence about the take that cannot wait (e.g. its audio cannot be read); its
        one line may cut it: whole in the tooltip. Empty: none."""
        self.suspectLabel.show_message(text)
        self.suspectLabel.setToolTip(text)

    # ------------------------------------------------------------------ playback
    def show_play_state(self, playing: bool, blocked: str | None) -> None:
        """Play or Pause; ``blocked``: why Play is off (None: it is on)."""
        self.playButton.setText("Pause" if playing else "Play")
        self.playButton.setIcon(self.style().standardIcon(
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay))
        self.playButton.setEnabled(blocked is None)
        self.playButton.setToolTip(blocked if blocked is not None else
                                   "Pause the take (Space)" if playing
                                   else "Play the selected take (Space)")

    def show_length(self, seconds: float | None) -> None:
        """The take's length while the player does not hold it (None: no take)."""
        self.timeLabel.setText(clock(seconds) if seconds is not None else "")

    def show_position(self, seconds: float, duration: float) -> None:
        """The playhead while the player plays this take."""
        self.waveform.set_position(seconds)
        self.timeLabel.setText(f"{clock(seconds)} / {clock(duration)}")

    def set_start(self, seconds: float) -> None:
        """Move the playhead while the player holds another clip: where Play will start."""
        self.waveform.set_position(seconds)

    def start(self) -> float:
        """Where Play starts: the playhead if it sits inside the take, else 0."""
        start = self.waveform.position()
        return start if 0 < start < self.waveform.duration() else 0.0

    # ------------------------------------------------------------------ notes
    def notes_for(self) -> str | None:
        """The take the notes editor holds (None: no take)."""
        return self._notes_for

    def commit_notes(self) -> None:
        """Send the notes being typed now instead of after the pause (before a reload or a
        selection change would lose them)."""
        self._notes_timer.stop()
        if self._notes_for is not None:
            self.notes_committed.emit(self._notes_for, self.notesEdit.toPlainText().strip())

    def _notes_edited(self) -> None:
        if self._notes_for is not None:
            self._notes_timer.start()

    def _set_notes(self, take_id: str | None, text: str) -> None:
        self._notes_for = take_id
        if self.notesEdit.toPlainText() != text:
            self.notesEdit.blockSignals(True)
            self.notesEdit.setPlainText(text)
            self.notesEdit.blockSignals(False)
