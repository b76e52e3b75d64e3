"""A/B compare: two takes on one timeline, switched at the same playhead position
and loudness-matched, with a blind mode that hides which take is which.

Switching calls ``Player.play_at_same_position`` with the take's matching gain,
so the playhead carries on and the louder take is turned down to the quieter
one's loudness (``match_gains`` on the loudness stored with each take).

Blind mode maps X and Y to the two takes at random and keeps the names, the
gains and the stars out of sight until a winner is picked; then it reveals
which take won and stars it (through the controller: the GUI never writes the
library). Keys: A/B (X/Y in blind mode) pick a side, Tab toggles, Space plays.
"""

from __future__ import annotations

import random
import secrets

import numpy as np
from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from studio.errors import UserError
from studio.library.session_takes import is_unsaved
from studio.sound.loudness import gain_db, match_gains
from studio.views.ab_judgements import ABJudgements
from studio.views.take_detail import clock
from studio.views.take_judgements import judgement_of
from studio.views.takes_model import excerpt
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label
from studio.views.widgets.waveform import WaveformView

# The keys named are the sides' letters as the tiles show them (X and Y in blind mode).
HINT = ("Switch with {0} and {1} (or Tab) while it plays: the playhead stays put and both "
        "play at the same loudness.")
SIDE_STYLE = """
QPushButton[abSide="true"] { font-size: 22pt; font-weight: bold; padding: 10px;
                             border: 2px solid palette(mid); border-radius: 10px;
                             background: palette(button); }
QPushButton[abSide="true"]:checked { border-color: palette(highlight);
                                     background: palette(highlight);
                                     color: palette(highlighted-text); }
"""


def level_text(gain: float) -> str:
    """How a take's level was matched: the louder one is turned down."""
    db = gain_db(gain)
    return "as rendered" if db > -0.05 else f"turned down {-db:.1f} dB"


class ABView(QWidget):
    """Compares ``takes`` (two Take objects) read from ``library`` through ``player``.

    ``names``: how the takes are called in the panel; ``rng``: a random.Random for
    the blind shuffle (tests pass a seeded one).
    """

    winner_picked = Signal(object)  # the winning Take
    message = Signal(str)

    def __init__(self, player, controller, library, takes, *, names=None, reason=None,
                 rng: random.Random | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        if len(takes) != 2:
            raise ValueError("A/B compares exactly two takes")
        self.setObjectName("abView")
        self.setAccessibleName("A/B compare")
        self._player = player
        self._controller = controller
        self._takes = tuple(takes)
        self._names = tuple(names) if names else tuple(t.name or excerpt(t.settings.text, 40)
                                                       for t in takes)
        self._reason = reason if player is not None else "Playback is off: no player."
        self._rng = rng or random.Random(secrets.randbits(64))
        self._gains = match_gains(takes[0].loudness_lufs, takes[1].loudness_lufs)
        self._audio: list[tuple[np.ndarray, int] | None] = [None, None]
        self._order = (0, 1)  # side -> take index
        self._side = 0
        self._blind = False
        self._winner: int | None = None  # take index, once picked
        self._problem = ""
        for i, take in enumerate(self._takes):
            try:
                self._audio[i] = library.read_audio(take.id)
            except UserError as exc:
                self._problem = str(exc)
        self._build()
        self._connect()
        if player is not None:
            # Bound slots, not lambdas: Qt drops them when this view is deleted.
            player.state_changed.connect(self._player_state)
            player.position_changed.connect(self._position)
            player.loaded.connect(self._player_loaded)
        if self._audio[0] is not None:  # the player loads on the first Play or switch
            self.waveform.set_audio(*self._audio[0])
        self._refresh()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.setStyleSheet(SIDE_STYLE)
        title = heading_label("Compare two takes", size_delta=3)
        self.blindCheck = QCheckBox("Blind")
        self.blindCheck.setObjectName("blindCheck")
        self.blindCheck.setAccessibleName("Blind comparison")
        self.blindCheck.setToolTip("Hide which take is which (X and Y, in random order) until "
                                   "you pick the better one")
        subtitle = self.hintLabel = hint_label("")  # names the shown sides' keys
        subtitle.setObjectName("abHint")

        self.sideGroup = QButtonGroup(self)
        self.sideGroup.setExclusive(True)
        self.sideButtons: list[QPushButton] = []
        self.sideLabels: list[QLabel] = []
        sides = QHBoxLayout()
        sides.setSpacing(16)
        for side in (0, 1):
            button = QPushButton("AB"[side])
            button.setObjectName(f"side{'AB'[side]}Button")
            button.setProperty("abSide", True)
            button.setCheckable(True)
            button.setMinimumHeight(84)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            label = QLabel("")
            label.setObjectName(f"side{'AB'[side]}Label")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setWordWrap(True)
            label.setMinimumHeight(label.fontMetrics().lineSpacing() * 2 + 4)
            label.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            self.sideGroup.addButton(button, side)
            self.sideButtons.append(button)
            self.sideLabels.append(label)
            column = QVBoxLayout()
            column.setSpacing(6)
            column.addWidget(button)
            column.addWidget(label)
            sides.addLayout(column, 1)

        self.judgements = ABJudgements()  # hidden when neither take is judged

        self.waveform = WaveformView()
        self.waveform.setObjectName("abWaveform")
        self.waveform.setAccessibleName("Waveform of the take playing")
        self.waveform.setMinimumHeight(64)
        self.playButton = QPushButton("Play")
        self.playButton.setObjectName("abPlayButton")
        self.playButton.setMinimumWidth(96)
        self.timeLabel = QLabel("0:00")
        self.timeLabel.setObjectName("abTime")
        self.loudnessLabel = hint_label("")
        self.loudnessLabel.setObjectName("abLoudness")
        self.loudnessLabel.setWordWrap(False)

        self.pickButtons = []
        for side in (0, 1):
            button = QPushButton("")
            button.setObjectName(f"pick{'AB'[side]}Button")
            self.pickButtons.append(button)
        self.againButton = QPushButton("Shuffle again")
        self.againButton.setObjectName("shuffleButton")
        self.againButton.setToolTip("A new blind round: X and Y drawn again at random")
        self.result = MessageLabel()
        self.result.setObjectName("abResult")

        header = QHBoxLayout()
        header.addWidget(title)
        header.addStretch(1)
        header.addWidget(self.blindCheck)
        transport = QHBoxLayout()
        transport.addWidget(self.playButton)
        transport.addWidget(self.timeLabel)
        transport.addStretch(1)
        transport.addWidget(self.loudnessLabel)
        picks = QHBoxLayout()
        picks.addWidget(QLabel("Better:"))
        for button in self.pickButtons:
            picks.addWidget(button)
        picks.addStretch(1)
        picks.addWidget(self.againButton)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.setSpacing(10)
        layout.addLayout(header)
        layout.addWidget(subtitle)
        layout.addSpacing(4)
        layout.addLayout(sides)
        layout.addWidget(self.judgements)
        layout.addWidget(self.waveform)
        layout.addLayout(transport)
        layout.addSpacing(4)
        layout.addLayout(picks)
        layout.addWidget(self.result)
        layout.addStretch(1)

        def shortcut(keys, slot) -> None:
            for key in keys:
                sc = QShortcut(QKeySequence(key), self)
                sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                sc.activated.connect(slot)

        shortcut(("A", "X"), lambda: self.select(0))
        shortcut(("B", "Y"), lambda: self.select(1))
        shortcut(("Tab", "Backtab"), self.switch)
        shortcut(("Space",), self.toggle)

    def _connect(self) -> None:
        self.sideGroup.idClicked.connect(self.select)
        self.playButton.clicked.connect(self.toggle)
        self.waveform.seek_requested.connect(self._seek)
        self.blindCheck.toggled.connect(self.set_blind)
        self.againButton.clicked.connect(self.shuffle)
        self.pickButtons[0].clicked.connect(lambda: self.pick(0))
        self.pickButtons[1].clicked.connect(lambda: self.pick(1))

    # ------------------------------------------------------------------ queries
    def side_names(self) -> tuple[str, str]:
        return ("X", "Y") if self._blind else ("A", "B")

    def take_on(self, side: int):
        return self._takes[self._order[side]]

    def current_side(self) -> int:
        return self._side

    def gains(self) -> tuple[float, float]:
        """The matching gains of the two takes, in the order they were given."""
        return self._gains

    def revealed(self) -> bool:
        return not self._blind or self._winner is not None

    def _key(self, index: int) -> tuple[str, str]:
        return ("ab", self._takes[index].id)

    def _mine(self) -> bool:
        return self._player is not None and self._player.key() in (self._key(0), self._key(1))

    # ------------------------------------------------------------------ actions
    def select(self, side: int) -> None:
        """Listen to ``side``: carry on at the same time if the other side was loaded."""
        self._side = side
        index = self._order[side]
        audio = self._audio[index]
        if audio is not None:
            self.waveform.set_audio(*audio)
            if self._can_play():
                key, gain = self._key(index), self._gains[index]
                if self._mine():
                    if self._player.key() != key:
                        self._player.play_at_same_position(audio[0], audio[1], key, gain=gain)
                else:
                    self._player.load(audio[0], audio[1], key, gain=gain)
                self.waveform.set_position(self._player.position())
        self._refresh()

    def switch(self) -> None:
        self.select(1 - self._side)

    def toggle(self) -> None:
        if not self._can_play():
            return
        if not self._mine():
            self.select(self._side)
        if self._mine():
            self._player.toggle()

    def _seek(self, seconds: float) -> None:
        if self._mine():
            self._player.seek(seconds)
        self.waveform.set_position(seconds)

    def set_blind(self, blind: bool) -> None:
        if self.blindCheck.isChecked() != blind:
            self.blindCheck.setChecked(blind)  # comes back here through toggled
            return
        self._blind = blind
        self.shuffle() if blind else self._restart((0, 1))

    def shuffle(self) -> None:
        """A new blind round: sides drawn at random, nothing picked yet."""
        order = [0, 1]
        self._rng.shuffle(order)
        self._restart(tuple(order))

    def _restart(self, order: tuple[int, int]) -> None:
        self._order = order
        self._winner = None
        self.result.clear_message()
        side = self._side
        self._side = -1  # force a reload of the side under the new mapping
        self.select(side if side in (0, 1) else 0)

    def pick(self, side: int) -> None:
        """``side`` sounded better: reveal it (in blind mode) and star its take."""
        if self._winner is not None:
            return
        index = self._order[side]
        take = self._takes[index]
        self._winner = index
        can_star = self._controller is not None and not is_unsaved(take.id)
        if can_star and not take.starred:
            self._controller.star_take(take.id, True)
        name = self._names[index]
        said = f"{self.side_names()[side]} was {name}" if self._blind else f"{name} wins"
        starred = ("starred" if can_star else "not starred (not saved: export it to keep it)"
                   if self._controller is not None else "not starred (read-only)")
        self.result.show_message(f"{said}; {starred}.", error=False)
        self.message.emit(f"A/B: {said}; {starred}.")
        self.winner_picked.emit(take)
        self._refresh()

    def stop(self) -> None:
        """Pause our playback (the dialog is closing)."""
        if self._mine() and self._player.state() == "playing":
            self._player.pause()

    def _can_play(self) -> bool:
        return self._reason is None and self._player is not None

    # ------------------------------------------------------------------ rendering
    def _level_text(self, show: bool) -> str:
        """What the matching did, as a change a user hears (not the level in LUFS, whose
        sign reads backwards: a noisy take can measure above 0)."""
        a, b = self._takes
        if a.loudness_lufs is None or b.loudness_lufs is None:
            return "Not loudness-matched: a take is silent"
        if not show:
            return "Both play at the same loudness"
        downs = [(side, -gain_db(self._gains[self._order[side]])) for side in (0, 1)]
        side, db = max(downs, key=lambda d: d[1])
        if db < 0.05:
            return "Already equally loud: both play as rendered"
        return f"{self.side_names()[side]} turned down {db:.1f} dB to match"

    def _level_tip(self) -> str:
        a, b = (self.take_on(side).loudness_lufs for side in (0, 1))
        if a is None or b is None:
            return ""
        x, y = self.side_names()
        return (f"Measured loudness: {x} {a:.1f} LUFS, {y} {b:.1f} LUFS (higher is louder; "
                "speech is usually about -16 to -23). The louder one is turned down to "
                "the quieter one's level, never up, so nothing clips.")

    @Slot(str)
    def _player_state(self, _state: str) -> None:
        self._refresh_play()

    @Slot(object)
    def _player_loaded(self, _key: object) -> None:
        self._refresh_play()

    @Slot(float)
    def _position(self, seconds: float) -> None:
        if self._mine():
            self.waveform.set_position(seconds)
            self.timeLabel.setText(f"{clock(seconds)} / {clock(self._player.duration())}")

    def _refresh_play(self) -> None:
        playing = self._mine() and self._player.state() == "playing"
        self.playButton.setText("Pause" if playing else "Play")
        self.playButton.setIcon(self.style().standardIcon(
            QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay))
        self.playButton.setEnabled(self._can_play())
        self.playButton.setToolTip(self._reason or ("Pause (Space)" if playing else "Play (Space)"))

    def _refresh(self) -> None:
        names = self.side_names()
        show = self.revealed()
        for side in (0, 1):
            index = self._order[side]
            take = self._takes[index]
            button = self.sideButtons[side]
            button.setText(names[side])
            button.setChecked(side == self._side)
            button.setToolTip(f"Listen to {names[side]} (key {names[side]}; Tab switches)")
            button.setAccessibleName(f"Take {names[side]}")
            label = self.sideLabels[side]
            if show:
                won = " ★ winner" if self._winner == index else ""
                # The words only when they differ: the same text twice tells nothing apart.
                said = ("\n" + excerpt(take.settings.text, 60)
                        if self._takes[0].settings.text != self._takes[1].settings.text else "")
                label.setText(f"{self._names[index]}{won}{said}\n{take.audio_seconds:.1f} s · "
                              f"{level_text(self._gains[index])}")
            else:
                label.setText("hidden until you pick\n ")
            self.pickButtons[side].setText(f"{names[side]} is better")
            self.pickButtons[side].setEnabled(self._winner is None)
        self.judgements.show_judgements(
            (judgement_of(self.take_on(0)), judgement_of(self.take_on(1))), names, show)
        self.againButton.setVisible(self._blind)
        self.againButton.setEnabled(self._winner is not None)
        self.hintLabel.setText(HINT.format(*names))
        self.loudnessLabel.setText(self._level_text(show))
        self.loudnessLabel.setToolTip(self._level_tip() if show else "")
        if self._problem:
            self.result.show_message(self._problem)
        self._refresh_play()


class ABDialog(QDialog):
    """The A/B view in its own window; closing it pauses its playback."""

    def __init__(self, player, controller, library, takes, *, names=None, reason=None,
                 rng=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("abDialog")
        self.setWindowTitle("Compare takes")
        self.view = ABView(player, controller, library, takes, names=names, reason=reason,
                           rng=rng, parent=self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.setContentsMargins(12, 0, 12, 12)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        close.setObjectName("abCloseButton")
        close.setToolTip("Close the comparison (Esc)")
        # Never focused: A, B, Tab and Space belong to the comparison above, not this button.
        close.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        close.setAutoDefault(False)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        hint = self.sizeHint()
        self.resize(max(640, hint.width()), hint.height())
        # Modal to the main window: the keys the hint names (Tab, Space) must never reach
        # it, where Tab walks to Delete and Space presses it; a window manager's focus
        # policy (or none, as on a bare X server) cannot change that.
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.view.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.take_keyboard()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.take_keyboard()  # raised again: the keys come back to the comparison

    def take_keyboard(self) -> None:
        """Be the window the keys go to, with the comparison (its shortcuts' owner) focused;
        a focused button would take Space as a press of itself."""
        self.raise_()
        self.activateWindow()
        focused = self.focusWidget()
        if focused is None or focused is self or not self.view.isAncestorOf(focused):
            self.view.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def done(self, result: int) -> None:
        self.view.stop()
        super().done(result)
