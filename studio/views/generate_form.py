"""GenerateForm: the text, language, quality and advanced inputs shared by Clone and Design.

The form renders state and emits intents: ``generate_requested`` / ``cancel_requested``.
The owning view reads :meth:`GenerateForm.request_fields` and builds the request; the
engine validates everything again, so the form only shapes the values.

Long because every generate input (text, language, quality, the advanced decode
settings) and the pinned action row share one form's state and its hints.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.engine.items import SynthesisItem, check_item
from studio.engine.options import (
    DEFAULT_PRESET,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TEXT_CHARS,
    PRESETS,
    SPEED_RANGE,
    DecodeOptions,
    GenerationOptions,
)
from studio.engine.text import NONVERBAL_TAGS, PAUSE_TAGS
from studio.errors import UserError
from studio.views.live_preview import LivePreview
from studio.views.progress_text import (
    CANCELLING,
    CANCELLING_TIP,
    attempt_of,
    fitted,
    format_eta,
    progress_parts,
)
from studio.views.widgets.collapsible import CollapsibleSection
from studio.views.widgets.labels import MessageLabel, hint_label
from studio.views.widgets.language_picker import LanguagePicker
from studio.views.widgets.page import ContentLayout
from studio.views.widgets.reflow import ReflowRow
from studio.views.widgets.scroll_anchor import EndAnchor
from studio.views.words import tag_words

# What each preset (studio.engine.options.PRESETS: name -> steps) is for, on its button.
PRESET_TIPS = {
    "Draft": "fastest, for trying ideas",
    "Standard": "a good balance of speed and quality",
    "Final": "best quality, about twice as slow as Standard",
}
LENGTH_MODES = ("natural", "speed", "duration")
MAX_TAKES = 8
DONE_SHOWN_MS = 4000  # "Done" then gives the bar back to the model's state
FIELD_WIDTH = 120
NO_TEXT = "Type the text the voice should say."
PRONUNCIATION_HINT = (
    "Pronunciation: pinyin with tone digits (ni3 hao3), "
    "CMU phonemes in brackets ([B EY1 S])."
)
_DEFAULT_DECODE = DecodeOptions()
_DEFAULT_OPTIONS = GenerationOptions()


def seeds_for(takes: int, locked_seed: int | None) -> tuple[int | None, ...]:
    """A locked seed s gives (s, s+1, ...): each take differs yet re-renders exactly."""
    if locked_seed is None:
        return (None,) * takes
    return tuple((locked_seed + i) % (MAX_SEED + 1) for i in range(takes))


class _StepClock:
    """Estimates time left from the mean step time since the first progress report.

    Timing starts at the first report rather than at Generate, so model loading and
    reference encoding do not inflate the per-step estimate.
    """

    def __init__(self, clock: Callable[[], float]):
        self._clock = clock
        self._start: tuple[float, int] | None = None

    def reset(self) -> None:
        self._start = None

    def seconds_left(self, done: int, total: int) -> float | None:
        now = self._clock()
        if self._start is None or done < self._start[1]:
            self._start = (now, done)
            return None
        t0, done0 = self._start
        if done == done0:
            return None
        return (now - t0) / (done - done0) * (total - done)


class GenerateForm(QWidget):
    generate_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, state_prefix: str, parent: QWidget | None = None,
                 clock: Callable[[], float] = time.monotonic, player=None):
        super().__init__(parent)
        self._prefix = state_prefix.strip("/")
        self.livePreview = LivePreview(player)  # the first take while it renders
        self._clock = _StepClock(clock)
        self._attempt: str | None = None  # "try 2 of 3" while rendering until one passes
        self._busy = False
        self._cancelling = False  # Cancel pressed; the worker stops at its next step
        # The window's model state (studio.model_state): its words when idle, and why
        # Generate is disabled ("" while a model or a server can render).
        self._idle_text, self._blocked = "Ready", ""
        self._above = 0  # widgets a view put above the text (add_above)
        self._missing = ""  # the message about an input Generate found missing, while shown
        # The view's check of its own inputs (a clip): the first one missing, as its
        # sentence and the control to fix it in, or None; the form checks the text itself.
        self._check: Callable[[], tuple[str, QWidget] | None] = lambda: None
        self.doneTimer = QTimer(self)
        self.doneTimer.setSingleShot(True)
        self.doneTimer.setInterval(DONE_SHOWN_MS)
        self._build()
        self._connect()
        self.set_busy(False)
        self.reset_progress()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        # Text header: label, character count, Insert tag menu.
        self.textLabel = QLabel("&Text")
        font = self.textLabel.font()
        font.setBold(True)
        self.textLabel.setFont(font)
        self.charCount = hint_label("")
        self.charCount.setWordWrap(False)
        self.charCount.setAccessibleName("Character count")
        self.charCount.setToolTip(f"Texts up to {MAX_TEXT_CHARS:,} characters")
        self.tagButton = QPushButton("Insert tag")
        self.tagButton.setObjectName("insertTagButton")
        self.tagButton.setAccessibleName("Insert non-verbal tag")
        self.tagButton.setToolTip("Insert a non-verbal sound such as [laughter] at the cursor")
        self.tagMenu = QMenu(self.tagButton)
        self.tagMenu.setToolTipsVisible(True)
        for tag in NONVERBAL_TAGS:  # the sound first, the tag it writes on the right
            action = QAction(f"{tag_words(tag)}\t{tag}", self.tagMenu)
            action.setData(tag)
            action.setToolTip(f"Insert {tag} at the cursor: {tag_words(tag).lower()}")
            action.triggered.connect(lambda _checked=False, t=tag: self.insert_tag(t))
            self.tagMenu.addAction(action)
        self.tagMenu.addSeparator()
        for tag in PAUSE_TAGS:  # our extension: exact silence there (docs/user-guide.md)
            action = QAction(f"{tag_words(tag)}\t{tag}", self.tagMenu)
            action.setData(tag)
            action.setToolTip(f"Insert {tag}: the text splits there, with that much silence; "
                              "edit the number for another length")
            action.triggered.connect(lambda _checked=False, t=tag: self.insert_tag(t))
            self.tagMenu.addAction(action)
        self.tagButton.setMenu(self.tagMenu)

        header = QHBoxLayout()
        header.setSpacing(8)
        header.addWidget(self.textLabel)
        header.addStretch(1)
        header.addWidget(self.charCount)
        header.addWidget(self.tagButton)

        self.textEdit = QPlainTextEdit()
        self.textEdit.setObjectName("textEdit")
        self.textEdit.setPlaceholderText("Type what the voice should say…")
        self.textEdit.setAccessibleName("Text to speak")
        self.textEdit.setToolTip("The text to speak. Ctrl+Enter generates.")
        self.textEdit.setTabChangesFocus(True)  # keep Tab for keyboard navigation
        self.textEdit.setMinimumHeight(96)
        self.textEdit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.textLabel.setBuddy(self.textEdit)
        self.hintLabel = hint_label(PRONUNCIATION_HINT)
        self.hintLabel.setObjectName("pronunciationHint")

        # Language and quality on one row.
        self.languagePicker = LanguagePicker()
        self.languagePicker.setObjectName("languagePicker")
        languageLabel = QLabel("&Language")
        languageLabel.setBuddy(self.languagePicker)

        self.presetGroup = QButtonGroup(self)
        self.presetGroup.setExclusive(True)
        presetRow = QHBoxLayout()
        presetRow.setSpacing(0)
        self.presetButtons: dict[str, QPushButton] = {}
        for i, (name, steps) in enumerate(PRESETS.items()):
            button = QPushButton(name)
            button.setCheckable(True)
            button.setObjectName(f"preset{name}")
            button.setAccessibleName(f"{name} quality preset")
            button.setToolTip(f"{steps} decoding steps: {PRESET_TIPS[name]}")
            button.setMinimumWidth(84)
            self.presetGroup.addButton(button, i)
            self.presetButtons[name] = button
            presetRow.addWidget(button)
        self.stepsLabel = QLabel()
        self.stepsLabel.setAccessibleName("Decoding steps")
        presetRow.addSpacing(10)
        presetRow.addWidget(self.stepsLabel)
        presetRow.addStretch(1)
        qualityLabel = QLabel("&Quality")
        qualityLabel.setBuddy(self.presetButtons[DEFAULT_PRESET])

        basics = QGridLayout()
        basics.setHorizontalSpacing(10)
        basics.setVerticalSpacing(8)
        # One above the other: side by side they made the page wider than the view
        # beside an open takes panel, and it was cut off on the right.
        basics.addWidget(languageLabel, 0, 0)
        basics.addWidget(self.languagePicker, 0, 1)
        basics.addWidget(qualityLabel, 1, 0)
        basics.addLayout(presetRow, 1, 1)
        basics.setColumnStretch(1, 1)
        basics.setColumnStretch(2, 1)  # the picker and presets take half a wide row

        self.advanced = CollapsibleSection("Advanced", self._build_advanced())
        self.advanced.setObjectName("advancedSection")
        # Takes with Language and Quality, not folded under Advanced: auditioning several
        # takes is what a person comes here to do (there is room for the row at 1024x640).
        takesLabel = QLabel("T&akes")
        takesLabel.setBuddy(self.takesSpin)
        basics.addWidget(takesLabel, 2, 0)
        basics.addLayout(self._takesRow, 2, 1)

        # Messages, progress and the two actions.
        self.message = MessageLabel()
        self.message.setObjectName("formMessage")
        self.progressBar = QProgressBar()
        self.progressBar.setObjectName("progressBar")
        self.progressBar.setAccessibleName("Generation progress")
        self.progressBar.setToolTip("Decoding progress and the estimated time left")
        self.progressBar.setTextVisible(True)
        self.progressBar.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progressBar.setMinimumHeight(24)
        self.cancelButton = QPushButton("Cancel")
        self.cancelButton.setObjectName("cancelButton")
        self.cancelButton.setAccessibleName("Cancel generation")
        self.cancelButton.setToolTip("Stop the render in progress (Esc)")
        self.generateButton = QPushButton("Generate")
        self.generateButton.setObjectName("generateButton")
        self.generateButton.setAccessibleName("Generate")
        self.generateButton.setToolTip("Render the text with these settings (Ctrl+Enter)")
        self.generateButton.setProperty("primary", True)  # for the app style sheet
        for button in (self.cancelButton, self.generateButton):
            button.setMinimumWidth(104)
            button.setMinimumHeight(30)
        font = self.generateButton.font()
        font.setBold(True)
        self.generateButton.setFont(font)

        actions = QHBoxLayout()
        actions.setSpacing(8)
        actions.addWidget(self.progressBar, 1)
        actions.addSpacing(4)
        actions.addWidget(self.cancelButton)
        actions.addWidget(self.generateButton)

        # The inputs scroll; the message, the live strip and the action row stay pinned
        # below them, so Generate, progress and Cancel are on screen in every state
        # (Advanced open, a message, the strip, many takes) on a laptop's 768 px or less.
        self.page = QWidget()
        self.page.setObjectName("formPage")
        self._pageLayout = ContentLayout(self.page)
        self._pageLayout.setContentsMargins(0, 0, 0, 0)
        self._pageLayout.setSpacing(8)
        self._pageLayout.addLayout(header)
        self._pageLayout.addWidget(self.textEdit, 1)
        self._pageLayout.addWidget(self.hintLabel)
        self._pageLayout.addSpacing(4)
        self._pageLayout.addLayout(basics)
        self._pageLayout.addWidget(self.advanced)
        self.scroll = QScrollArea()
        self.scroll.setObjectName("formScroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self.page)

        self.actionBar = QWidget()
        self.actionBar.setObjectName("formActionBar")
        bar = QVBoxLayout(self.actionBar)
        bar.setContentsMargins(0, 6, 0, 0)
        bar.setSpacing(6)
        bar.addWidget(self.message)
        bar.addWidget(self.livePreview)
        bar.addLayout(actions)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.actionBar)
        self._endAnchor = EndAnchor(self.scroll)  # a message coming keeps the last row whole

        self.generateShortcut = QShortcut(self)
        self.generateShortcut.setKeys([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.generateShortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.cancelShortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.cancelShortcut.setContext(Qt.ShortcutContext.WindowShortcut)

    def _build_advanced(self) -> QWidget:
        body = QWidget()
        body.setObjectName("advancedBody")

        self.guidanceSpin = QDoubleSpinBox()
        self.guidanceSpin.setObjectName("guidanceSpin")
        self.guidanceSpin.setRange(0.0, 10.0)
        self.guidanceSpin.setSingleStep(0.1)
        self.guidanceSpin.setDecimals(1)
        self.guidanceSpin.setValue(_DEFAULT_DECODE.guidance_scale)
        self.guidanceSpin.setAccessibleName("Guidance scale")
        self.guidanceSpin.setToolTip(
            "Classifier-free guidance: higher follows the text and voice more closely "
            f"(default {_DEFAULT_DECODE.guidance_scale})"
        )

        self.tShiftSpin = QDoubleSpinBox()
        self.tShiftSpin.setObjectName("tShiftSpin")
        self.tShiftSpin.setRange(0.01, 10.0)
        self.tShiftSpin.setSingleStep(0.05)
        self.tShiftSpin.setDecimals(2)
        self.tShiftSpin.setValue(_DEFAULT_DECODE.t_shift)
        self.tShiftSpin.setAccessibleName("Time-step shift")
        self.tShiftSpin.setToolTip(
            "Shifts the decoding schedule; lower spends more steps on coarse structure "
            f"(default {_DEFAULT_DECODE.t_shift})"
        )

        self.lengthMode = QComboBox()
        self.lengthMode.setObjectName("lengthMode")
        self.lengthMode.addItem("Natural", "natural")
        self.lengthMode.addItem("Speed factor", "speed")
        self.lengthMode.addItem("Fixed duration", "duration")
        self.lengthMode.setAccessibleName("Length mode")
        self.lengthMode.setToolTip(
            "Natural: length estimated from the text. Speed factor: faster or slower than "
            "natural. Fixed duration: exactly this many seconds."
        )
        self.speedSpin = QDoubleSpinBox()
        self.speedSpin.setObjectName("speedSpin")
        self.speedSpin.setRange(*SPEED_RANGE)
        self.speedSpin.setSingleStep(0.05)
        self.speedSpin.setDecimals(2)
        self.speedSpin.setValue(1.0)
        self.speedSpin.setSuffix(" ×")
        self.speedSpin.setAccessibleName("Speed factor")
        self.speedSpin.setToolTip(
            f"Above 1 speaks faster, below 1 slower ({SPEED_RANGE[0]} to {SPEED_RANGE[1]})"
        )
        self.durationSpin = QDoubleSpinBox()
        self.durationSpin.setObjectName("durationSpin")
        self.durationSpin.setRange(0.1, MAX_SECONDS)
        self.durationSpin.setSingleStep(0.5)
        self.durationSpin.setDecimals(1)
        self.durationSpin.setValue(10.0)
        self.durationSpin.setSuffix(" s")
        self.durationSpin.setAccessibleName("Duration in seconds")
        self.durationSpin.setToolTip("The length of each take in seconds")
        naturalNote = hint_label("estimated from the text")
        self.lengthStack = QStackedWidget()
        self.lengthStack.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        for page in (naturalNote, self.speedSpin, self.durationSpin):
            self.lengthStack.addWidget(page)
        lengthRow = QHBoxLayout()
        lengthRow.setSpacing(6)
        lengthRow.addWidget(self.lengthMode)
        lengthRow.addWidget(self.lengthStack)
        lengthRow.addStretch(1)

        # The Script page says the same of a described speaker ("Same variation each render").
        self.seedLock = QCheckBox("Same each render")
        self.seedLock.setObjectName("seedLock")
        self.seedLock.setAccessibleName("Same variation each render")
        self.seedLock.setToolTip(
            "Ticked: each Generate renders this variation (and the next numbers for more "
            "takes), so a take can be rendered again exactly. Unticked: new ones each time.")
        self.seedSpin = QSpinBox()
        self.seedSpin.setObjectName("seedSpin")
        self.seedSpin.setRange(0, MAX_SEED)
        self.seedSpin.setValue(0)
        self.seedSpin.setAccessibleName("Variation number")
        self.seedSpin.setToolTip("The variation of the first take when locked (its random seed)")
        self.seedSpin.setEnabled(False)
        seedRow = QHBoxLayout()
        seedRow.setSpacing(6)
        seedRow.addWidget(self.seedLock)
        seedRow.addWidget(self.seedSpin)
        seedRow.addStretch(1)

        self.takesSpin = QSpinBox()
        self.takesSpin.setObjectName("takesSpin")
        self.takesSpin.setRange(1, MAX_TAKES)
        self.takesSpin.setValue(1)
        self.takesSpin.setAccessibleName("Number of takes")
        self.takesSpin.setToolTip(
            f"How many variations to render in one batch (1 to {MAX_TAKES})"
        )
        self.untilPassCheck = QCheckBox("Until one passes")
        self.untilPassCheck.setObjectName("untilPassCheck")
        self.untilPassCheck.setAccessibleName("Render until one passes (at most the takes)")
        self.untilPassCheck.setToolTip(
            "Render one take at a time, each judged, and stop at the first that passes, "
            "at most Takes of them. A take passes when no judge says poor and its combined "
            "score reaches the threshold in Settings, Judging.")
        self.untilPassCheck.setEnabled(False)  # with more than one take
        takesRow = self._takesRow = QHBoxLayout()  # placed with the basics (_build)
        takesRow.setSpacing(10)
        takesRow.addWidget(self.takesSpin)
        takesRow.addWidget(self.untilPassCheck)
        takesRow.addStretch(1)

        # Named for what each acts on (the generated speech, or the reference clip as the
        # model encodes it), in words Clone's "Clean the clip" steps do not use.
        self.denoiseCheck = QCheckBox("Quiet background")
        self.denoiseCheck.setObjectName("denoiseCheck")
        self.denoiseCheck.setChecked(_DEFAULT_OPTIONS.denoise)
        self.denoiseCheck.setAccessibleName("Quiet background in the generated speech")
        self.denoiseCheck.setToolTip(
            "The generated speech: ask the model for it without the reference clip's "
            "background noise. To clean the clip itself, use Clean the clip ▸ Noise in Clone")
        self.preprocessCheck = QCheckBox("Auto-trim reference")
        self.preprocessCheck.setObjectName("preprocessCheck")
        self.preprocessCheck.setChecked(True)
        self.preprocessCheck.setAccessibleName("Auto-trim the reference clip as it is encoded")
        self.preprocessCheck.setToolTip(
            "The reference clip, as the model encodes it: long pauses shortened, ends "
            "trimmed, over 20 s without a transcript cut at a pause (after Clean the clip)")
        self.postprocessCheck = QCheckBox("Shorten output pauses")
        self.postprocessCheck.setObjectName("postprocessCheck")
        self.postprocessCheck.setChecked(_DEFAULT_OPTIONS.postprocess)
        self.postprocessCheck.setAccessibleName("Shorten pauses in the generated speech")
        self.postprocessCheck.setToolTip(
            "The generated speech: pauses over 0.5 s shortened and its edges trimmed")
        checks = ReflowRow(self.denoiseCheck, self.preprocessCheck, self.postprocessCheck,
                           spacing=18, stacked_spacing=4)

        for spin in (self.guidanceSpin, self.tShiftSpin, self.takesSpin, self.speedSpin,
                     self.durationSpin, self.seedSpin):
            spin.setFixedWidth(FIELD_WIDTH)
        self.lengthStack.setFixedWidth(FIELD_WIDTH + 40)

        def column(*rows: tuple[str, QWidget | QHBoxLayout, QWidget]) -> QWidget:
            holder = QWidget()
            grid = QGridLayout(holder)
            grid.setContentsMargins(0, 0, 0, 0)
            grid.setHorizontalSpacing(10)
            grid.setVerticalSpacing(8)
            for r, (text, field, buddy) in enumerate(rows):
                label = QLabel(text)
                label.setBuddy(buddy)
                grid.addWidget(label, r, 0)
                if isinstance(field, QWidget):
                    grid.addWidget(field, r, 1, Qt.AlignmentFlag.AlignLeft)
                else:
                    grid.addLayout(field, r, 1)
            grid.setColumnStretch(1, 1)
            return holder

        # Decoding on the left, what comes out on the right (below, when narrow); the
        # switches last.
        decoding = column(("&Guidance", self.guidanceSpin, self.guidanceSpin),
                          ("T-s&hift", self.tShiftSpin, self.tShiftSpin))
        output = column(("Le&ngth", lengthRow, self.lengthMode),
                        ("Variati&on", seedRow, self.seedLock))
        layout = QVBoxLayout(body)
        layout.setContentsMargins(22, 0, 0, 4)
        layout.setSpacing(10)
        layout.addWidget(ReflowRow(decoding, output, spacing=34))
        layout.addWidget(checks)
        return body

    def _connect(self) -> None:
        self.generateButton.clicked.connect(self._request_generate)
        self.cancelButton.clicked.connect(self._request_cancel)
        self.generateShortcut.activated.connect(self._request_generate)
        self.cancelShortcut.activated.connect(self._request_cancel)
        self.presetGroup.idToggled.connect(self._preset_toggled)
        self.lengthMode.currentIndexChanged.connect(self.lengthStack.setCurrentIndex)
        self.seedLock.toggled.connect(self.seedSpin.setEnabled)
        self.takesSpin.valueChanged.connect(
            lambda takes: self.untilPassCheck.setEnabled(takes > 1))
        self.textEdit.textChanged.connect(self._update_count)
        self.textEdit.textChanged.connect(self.recheck)
        self.textEdit.textChanged.connect(self._done_over)
        self.doneTimer.timeout.connect(self._done_over)
        self.set_preset(DEFAULT_PRESET)
        self._update_count()

    def set_page_margins(self, left: int, top: int, right: int, bottom: int) -> None:
        """The view's margins: the inputs and the pinned row line up with its header."""
        self._pageLayout.setContentsMargins(left, top, right, 10)
        self.actionBar.layout().setContentsMargins(left, 6, right, bottom)

    def fill(self, view: QWidget, content: QWidget) -> None:
        """Make this form the whole of ``view``, with ``content`` (the view's own inputs)
        scrolling above the text and Generate, progress and Cancel pinned below."""
        self.add_above(content)
        self.set_page_margins(24, 18, 24, 12)
        outer = QVBoxLayout(view)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self)

    def add_above(self, widget: QWidget, stretch: int = 0) -> None:
        """Put a view's own inputs (title, reference clip) at the top of the scrolling page,
        above the text, in the order added."""
        self._pageLayout.insertWidget(self._above, widget, stretch)
        self._above += 1

    # ------------------------------------------------------------------ intents
    def _request_generate(self) -> None:
        if not self._busy and not self._blocked:
            self.generate_requested.emit()

    def _request_cancel(self) -> None:
        """Said at once: the worker stops at its next step, seconds later on a CPU, and
        meanwhile the bar kept moving as if Cancel had not been pressed (review 8)."""
        if not self._busy or self._cancelling:
            return
        self._cancelling = True
        if self.cancelButton.hasFocus():
            self.textEdit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.cancelButton.setEnabled(False)
        self.cancelShortcut.setEnabled(False)
        if self.progressBar.maximum() == 0:  # a busy bar draws no text: stand it still
            self.progressBar.setRange(0, 1)
            self.progressBar.setValue(0)
        self.progressBar.setFormat(CANCELLING)
        self.progressBar.setToolTip(CANCELLING_TIP)
        self.progressBar.setAccessibleDescription(CANCELLING)
        self.cancel_requested.emit()

    def is_cancelling(self) -> bool:
        return self._cancelling

    # ------------------------------------------------------------------ reading
    def text(self) -> str:
        return self.textEdit.toPlainText()

    def set_text(self, text: str) -> None:
        self.textEdit.setPlainText(text)

    def preset(self) -> str:
        button = self.presetGroup.checkedButton()
        return button.text() if button is not None else DEFAULT_PRESET

    def set_preset(self, name: str) -> None:
        self.presetButtons.get(name, self.presetButtons[DEFAULT_PRESET]).setChecked(True)

    def length_mode(self) -> str:
        return self.lengthMode.currentData()

    def set_length_mode(self, mode: str) -> None:
        index = self.lengthMode.findData(mode)
        self.lengthMode.setCurrentIndex(max(index, 0))

    def options(self) -> GenerationOptions:
        decode = dataclasses.replace(
            _DEFAULT_DECODE,
            num_step=PRESETS[self.preset()],
            guidance_scale=self.guidanceSpin.value(),
            t_shift=self.tShiftSpin.value(),
        )
        return dataclasses.replace(
            _DEFAULT_OPTIONS,
            decode=decode,
            denoise=self.denoiseCheck.isChecked(),
            postprocess=self.postprocessCheck.isChecked(),
        )

    def seeds(self) -> tuple[int | None, ...]:
        locked = self.seedSpin.value() if self.seedLock.isChecked() else None
        return seeds_for(self.takesSpin.value(), locked)

    def request_fields(self) -> dict[str, Any]:
        """The form's part of a RenderRequest, keyed like RenderRequest's fields."""
        mode = self.length_mode()
        return {
            "text": self.text(),
            "language": self.languagePicker.language(),
            "options": self.options(),
            "speed": self.speedSpin.value() if mode == "speed" else None,
            "duration": self.durationSpin.value() if mode == "duration" else None,
            "seeds": self.seeds(),
            "preprocess": self.preprocessCheck.isChecked(),
            "until_pass": self.untilPassCheck.isChecked() and self.takesSpin.value() > 1,
        }

    def apply_settings(self, settings) -> str | None:
        """Fill the form from a take's ``TakeSettings``, seed locked to the take's seed
        (so Generate renders that take again). Returns a sentence when the form
        cannot hold a value exactly (a step count between presets), else None."""
        self.set_text(settings.text)
        self.languagePicker.set_language(settings.language)
        options = settings.options or {}
        decode = options.get("decode") or {}
        note = None
        if settings.language and self.languagePicker.language() != settings.language:
            note = f"The take's language '{settings.language}' is not in the list; Auto is set."
        steps = decode.get("num_step")
        if isinstance(steps, int) and steps > 0:
            preset = min(PRESETS, key=lambda name: abs(PRESETS[name] - steps))
            if PRESETS[preset] != steps:
                note = (f"The take used {steps} decoding steps; the nearest preset, "
                        f"{preset} ({PRESETS[preset]} steps), is set.")
            self.set_preset(preset)
        for key, spin in (("guidance_scale", self.guidanceSpin), ("t_shift", self.tShiftSpin)):
            value = _as_float(decode.get(key))
            if value is not None:
                spin.setValue(value)
        for key, check in (("denoise", self.denoiseCheck), ("postprocess", self.postprocessCheck)):
            if isinstance(options.get(key), bool):
                check.setChecked(options[key])
        self.preprocessCheck.setChecked(bool(settings.preprocess))
        if settings.duration is not None:
            self.set_length_mode("duration")
            self.durationSpin.setValue(settings.duration)
        elif settings.speed is not None:
            self.set_length_mode("speed")
            self.speedSpin.setValue(settings.speed)
        else:
            self.set_length_mode("natural")
        self.seedLock.setChecked(True)
        self.seedSpin.setValue(max(0, min(int(settings.seed), MAX_SEED)))
        if not 0 <= int(settings.seed) <= MAX_SEED:  # a seed from an older version
            note = ("The take's variation is from an older version and does not fit the "
                    "Variation box; use Re-render on the take to render it again exactly.")
        self.advanced.set_expanded(True)  # the locked seed is the point: show it
        return note

    # ------------------------------------------------------------------ state out
    def insert_tag(self, tag: str) -> None:
        """Insert ``tag`` at the cursor (replacing a selection), keeping words apart."""
        cursor = self.textEdit.textCursor()
        before = self.text()[: cursor.selectionStart()]
        after = self.text()[cursor.selectionEnd():]
        text = tag
        if before and not before[-1].isspace():
            text = " " + text
        if after and not after[0].isspace():
            text = text + " "
        cursor.insertText(text)
        self.textEdit.setTextCursor(cursor)
        self.textEdit.setFocus(Qt.FocusReason.OtherFocusReason)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        was_cancelling, self._cancelling = self._cancelling, False  # that render ended
        # A button about to be disabled hands the focus to the text, where the user
        # works next; left to Qt it moves on in tab order, into the Takes search box.
        leaving = self.generateButton if busy else self.cancelButton
        if leaving.hasFocus():
            self.textEdit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.generateButton.setEnabled(not busy and not self._blocked)
        self.cancelButton.setEnabled(busy)
        # Esc belongs to the rest of the window unless there is something to cancel.
        self.cancelShortcut.setEnabled(busy)
        if busy:
            self._clock.reset()
            self._attempt = None
            self.clear_message()
            self.progressBar.setRange(0, 0)  # indeterminate until the first step
            self.progressBar.setFormat("Preparing…")
            self.progressBar.setAccessibleDescription("Preparing")
        elif self.progressBar.maximum() == 0 or was_cancelling:
            self.reset_progress()

    def is_busy(self) -> bool:
        return self._busy

    def set_model_state(self, label: str, blocked_reason: str) -> None:
        """The model state's words for the idle progress bar, and why Generate is disabled
        ("" to enable it): shown as the button's tooltip and the bar's description."""
        self._idle_text, self._blocked = label, blocked_reason
        self.generateButton.setEnabled(not self._busy and not blocked_reason)
        self.generateButton.setToolTip(blocked_reason or
                                       "Render the text with these settings (Ctrl+Enter)")
        if not self._busy and self.progressBar.maximum() == 1 and self.progressBar.value() == 0:
            self.reset_progress()

    def set_progress(self, step: int, steps: int, chunk: int, chunks: int) -> None:
        """Show decoding progress; step and chunk count from 1, as the engine reports them."""
        if self._cancelling:
            return  # the steps still reported before the worker sees the cancel
        steps, chunks = max(1, steps), max(1, chunks)
        total = steps * chunks
        done = min(total, (max(1, chunk) - 1) * steps + max(0, step))
        left = self._clock.seconds_left(done, total)
        eta = (format_eta(left) if left is not None and math.isfinite(left)
               else "estimating time left")
        parts = progress_parts(step, steps, chunk, chunks, eta, self._attempt)
        full = " · ".join(t for t, _ in parts if t)
        self.progressBar.setRange(0, total)
        self.progressBar.setValue(done)
        self.progressBar.setFormat(self._fitted(parts))
        self.progressBar.setToolTip(full)
        self.progressBar.setAccessibleDescription(full)

    def show_stage(self, text: str) -> None:
        """What the job does between decoding steps ("Judging take 2 of 4 …"); the next
        step's progress replaces it, keeping which try it is on (until one passes)."""
        if self._cancelling:
            return
        self._attempt = attempt_of(text) or self._attempt
        self.progressBar.setRange(0, 0)
        self.progressBar.setFormat(self._fitted([(text, 1)]))
        self.progressBar.setToolTip(text)
        self.progressBar.setAccessibleDescription(text)

    def _fitted(self, parts: list[tuple[str, int]]) -> str:
        """The parts that fit the bar on one line (all of them while it is not laid out)."""
        bar = self.progressBar
        if not bar.isVisible():
            return " · ".join(t for t, _ in parts if t)
        return fitted(parts, bar.fontMetrics(), bar.contentsRect().width())

    def finish_progress(self, text: str = "Done") -> None:
        self.progressBar.setRange(0, 1)
        self.progressBar.setValue(1)
        self.progressBar.setFormat(text)
        self.progressBar.setAccessibleDescription(text)
        self.doneTimer.start()

    def _done_over(self) -> None:
        """The finished bar has been seen (or the user edits on): idle again."""
        if self._showing_done():
            self.reset_progress()

    def _showing_done(self) -> bool:
        bar = self.progressBar
        return not self._busy and bar.maximum() == 1 and bar.value() == 1

    def reset_progress(self) -> None:
        self.doneTimer.stop()
        self._clock.reset()
        self.progressBar.setRange(0, 1)
        self.progressBar.setValue(0)
        self.progressBar.setFormat(self._idle_text)
        self.progressBar.setToolTip(self._blocked or "Decoding progress and the estimated time left")
        self.progressBar.setAccessibleDescription(self._blocked or self._idle_text)

    def progress_text(self) -> str:
        return self.progressBar.format()

    def show_message(self, text: str, error: bool = True) -> None:
        if text != self.message_text():
            self._endAnchor.hold()
        self.message.show_message(text, error)

    def clear_message(self) -> None:
        self._endAnchor.hold()
        self.message.clear_message()

    def set_input_check(self, check: Callable[[], tuple[str, QWidget] | None]) -> None:
        """The view's check of its inputs besides the text: the first one missing (its
        sentence and the control to fix it in), or None when all are given."""
        self._check = check

    def _missing_input(self) -> tuple[str, QWidget] | None:
        """The first input Generate needs and does not have: the view's, then the text."""
        found = self._check()
        if found is None and not self.text().strip():
            found = NO_TEXT, self.textEdit
        return found

    def input_problem(self) -> str:
        """What is wrong with the inputs as they are now ("" when nothing): a missing one,
        else what the engine refuses in the text (too long, a malformed tag)."""
        found = self._missing_input()
        if found is not None:
            return found[0]
        try:
            check_item(SynthesisItem(text=self.text()))
        except UserError as exc:
            return str(exc)
        return ""

    def inputs_ready(self) -> bool:
        """Generate's check: the first missing input said inline with the focus on its
        control (False), else the last message cleared (True). The engine's refusals come
        back from the render job (the status bar says them too)."""
        found = self._missing_input()
        if found is None:
            self.clear_message()
            self._missing = ""
            return True
        self.show_missing(found[0])
        found[1].setFocus(Qt.FocusReason.OtherFocusReason)
        return False

    def show_missing(self, text: str) -> None:
        """An input Generate needs is missing: said until it is given or the person
        leaves the view (coming back to a stale red sentence reads as a new problem)."""
        self.show_message(text)
        self._missing = text

    def show_refusal(self, sentence: str) -> None:
        """A render refused or failed: said as an error; one about the inputs as they are
        (the text over the limit) is followed like a missing input, going once fixed."""
        self.show_message(sentence)
        self._missing = sentence if sentence == self.input_problem() else ""

    def recheck(self) -> None:
        """An input changed: a sentence about the inputs is replaced by what the check
        says now, and goes when nothing is wrong (a review found "Type the text" still
        there under 25,000 pasted characters)."""
        if not self._missing or self.message_text() != self._missing:
            return
        problem = self.input_problem()
        if not problem:
            self.clear_message()
            self._missing = ""
        elif problem != self._missing:
            self.show_missing(problem)

    def hideEvent(self, event) -> None:
        if not event.spontaneous():  # not a minimised window: the view was left
            if self._missing and self.message_text() == self._missing:
                self.clear_message()
            self._missing = ""
        super().hideEvent(event)

    def show_outcome(self, problem: str | None, note: str | None) -> None:
        """A problem as an error, else a note as information, else nothing."""
        if problem:
            self.show_message(problem)
        elif note:
            self.show_message(note, error=False)
        else:
            self.clear_message()

    def message_text(self) -> str:
        return self.message.text()

    def _preset_toggled(self, button_id: int, checked: bool) -> None:
        if checked:
            name = list(PRESETS)[button_id]
            self.stepsLabel.setText(f"{PRESETS[name]} steps")

    def _update_count(self) -> None:
        count = len(self.text())
        self.charCount.setText(f"{count:,} / {MAX_TEXT_CHARS:,}")
        # Over the limit the engine refuses the text; say so before Generate does.
        self.charCount.setStyleSheet("color: #c62828;" if count > MAX_TEXT_CHARS else "")

    # ------------------------------------------------------------------ persistence
    def _key(self, name: str) -> str:
        return f"{self._prefix}/{name}"

    def save_state(self, settings) -> None:
        """Store the last-used inputs with ``settings.set_state`` under this form's prefix."""
        values = {
            "text": self.text(),
            "language": self.languagePicker.language() or "",
            "preset": self.preset(),
            "guidance": self.guidanceSpin.value(),
            "t_shift": self.tShiftSpin.value(),
            "length_mode": self.length_mode(),
            "speed": self.speedSpin.value(),
            "duration": self.durationSpin.value(),
            "seed_locked": self.seedLock.isChecked(),
            "seed": self.seedSpin.value(),
            "takes": self.takesSpin.value(),
            "until_pass": self.untilPassCheck.isChecked(),
            "denoise": self.denoiseCheck.isChecked(),
            "preprocess": self.preprocessCheck.isChecked(),
            "postprocess": self.postprocessCheck.isChecked(),
            "advanced_open": self.advanced.is_expanded(),
        }
        for name, value in values.items():
            settings.set_state(self._key(name), value)

    def restore_state(self, settings) -> None:
        """Restore what :meth:`save_state` stored; missing or garbled values keep defaults.

        QSettings hands values back as strings in INI files, so each is coerced here.
        """
        def get(name: str) -> Any:
            return settings.state(self._key(name))

        text = get("text")
        if isinstance(text, str):
            self.set_text(text)
        language = get("language")
        self.languagePicker.set_language(language if isinstance(language, str) and language
                                         else None)
        preset = get("preset")
        if preset in PRESETS:
            self.set_preset(preset)
        for name, spin in (("guidance", self.guidanceSpin), ("t_shift", self.tShiftSpin),
                           ("speed", self.speedSpin), ("duration", self.durationSpin)):
            value = _as_float(get(name))
            if value is not None:
                spin.setValue(value)
        for name, spin in (("seed", self.seedSpin), ("takes", self.takesSpin)):
            value = _as_float(get(name))
            if value is not None:
                spin.setValue(int(value))
        mode = get("length_mode")
        if mode in LENGTH_MODES:
            self.set_length_mode(mode)
        for name, check in (("seed_locked", self.seedLock), ("denoise", self.denoiseCheck),
                            ("until_pass", self.untilPassCheck),
                            ("preprocess", self.preprocessCheck),
                            ("postprocess", self.postprocessCheck)):
            value = _as_bool(get(name))
            if value is not None:
                check.setChecked(value)
        opened = _as_bool(get("advanced_open"))
        if opened is not None:
            self.advanced.set_expanded(opened)


def _as_float(raw: Any) -> float | None:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _as_bool(raw: Any) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("true", "1"):
        return True
    if isinstance(raw, str) and raw.lower() in ("false", "0"):
        return False
    return None
