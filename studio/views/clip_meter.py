"""ClipMeter: the reference clip's length on a scale (too short · best · long), what the
checks found (clipping, background noise), and "Trim to the best 10 s" for a long clip.

It only shows a :class:`studio.sound.clip_check.ClipCheck` and asks for the trim; the
reference panel runs the checks and does the trimming.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.sound.clip_check import (
    BEST_S,
    LONG_S,
    NO_SPEECH,
    NOISE_WARNING,
    TOO_SHORT_S,
    TRIM_S,
    ClipCheck,
)
from studio.views.widgets.labels import MessageLabel

SCALE_S = 20.0  # the bar's right end; longer clips pin the marker there
RED, AMBER, GREEN = QColor("#d9534f"), QColor("#e0a030"), QColor("#3a9d5d")
ZONES = ((0.0, TOO_SHORT_S, RED), (TOO_SHORT_S, BEST_S[0], AMBER), (BEST_S[0], BEST_S[1], GREEN),
         (BEST_S[1], LONG_S, AMBER), (LONG_S, SCALE_S, RED))
VERDICT_COLOURS = {"too short": RED, "short": AMBER, "best": GREEN, "longish": AMBER,
                   "long": RED}
VERDICT_WORDS = {
    "too short": "too short: 3-10 s clones best",
    "short": "a little short: 3-10 s clones best",
    "best": "a good length",
    "longish": "longer than needed: 3-10 s clones best",
    "long": "long: 3-10 s clones best and renders faster",
}
# A saved voice's clip cannot be changed from the Clone view: its length is a calm note.
SAVED_WORDS = {"too short": "a short clip; 3-10 s clones best", "short": "a little short",
               "longish": "longer than needed", "long": "a long clip"}


# The noise sentence where the Clone view offers Clean the clip ▸ Noise: pointing at the
# box, then (ticked) a calm line of about the same length, so nothing below moves.
NOISE_POINTER = "the clone copies it too; tick Noise below (Clean the clip) to take it out."
NOISE_HANDLED = "handled by Noise below (Clean the clip), which takes it out before encoding."


def length_text(check: ClipCheck) -> str:
    if not check.speech:  # five seconds of silence is not "a good length"
        return f"{check.seconds:.1f} s · no speech"
    return f"{check.seconds:.1f} s · {VERDICT_WORDS[check.length]}"


class LengthBar(QWidget):
    """The length scale: coloured zones and a marker at the clip's length."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._seconds: float | None = None
        self.setFixedHeight(12)
        self.setMinimumWidth(120)
        self.setToolTip("Under 2 s is too short, 3-10 s clones best, over 15 s is long")

    def sizeHint(self) -> QSize:
        return QSize(200, 12)

    def set_seconds(self, seconds: float | None) -> None:
        self._seconds = seconds
        self.update()

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        bar = QRectF(self.rect()).adjusted(1, 3, -1, -3)
        x_of = lambda t: bar.left() + min(t, SCALE_S) / SCALE_S * bar.width()  # noqa: E731
        for start, end, colour in ZONES:
            zone = QColor(colour)
            zone.setAlpha(110)
            painter.fillRect(QRectF(x_of(start), bar.top(), x_of(end) - x_of(start),
                                    bar.height()), zone)
        if self._seconds is not None:
            x = x_of(self._seconds)
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Text), 3))
            painter.drawLine(int(x), 0, int(x), self.height())
        painter.end()


class ClipMeter(QWidget):
    trim_best_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("clipMeter")
        self.setAccessibleName("Reference clip checks")
        self.check: ClipCheck | None = None
        self.noise_suppressed = False  # the cleanup removes the noise: no warning about it
        self.noise_offered = False  # a Noise box is there to point at (the Clone view's)
        self.saved = False  # a saved voice's clip: nothing to fix here, so nothing in red
        self.bar = LengthBar()
        self.bar.setObjectName("clipLengthBar")
        self.lengthLabel = QLabel("")
        self.lengthLabel.setObjectName("clipLengthLabel")
        self.lengthLabel.setWordWrap(True)  # "long: 3-10 s clones best…" on a narrow page
        self.trimBestButton = QPushButton(f"Trim to the best {TRIM_S:.0f} s")
        self.trimBestButton.setObjectName("trimBestButton")
        self.trimBestButton.setToolTip("Keep the 10 s with the most clear speech, cut at pauses "
                                       "(a new file; the original is not changed)")
        self.trimBestButton.clicked.connect(self.trim_best_requested)
        self.warningsLabel = MessageLabel()
        self.warningsLabel.setObjectName("clipWarnings")
        self._title = QLabel("Length")
        self._row = QGridLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setHorizontalSpacing(8)
        self._row.setVerticalSpacing(4)
        self._row.setColumnStretch(1, 1)
        self._row.addWidget(self._title, 0, 0)
        self._row.addWidget(self.bar, 0, 1)
        self._row.addWidget(self.lengthLabel, 0, 2)
        self._under = False  # the Trim button under the length, not beside it
        self._row.addWidget(self.trimBestButton, 0, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(self._row)
        layout.addWidget(self.warningsLabel)
        self.set_check(None)

    # ------------------------------------------------------------------ layout
    def one_row_width(self) -> int:
        """The width the length row needs with its words on one line and Trim beside them."""
        parts = [self._title.sizeHint().width(), self.bar.minimumWidth(),
                 self.lengthLabel.sizeHint().width()]
        if not self.trimBestButton.isHidden():
            parts.append(self.trimBestButton.sizeHint().width())
        return sum(parts) + self._row.horizontalSpacing() * (len(parts) - 1)

    def minimumSizeHint(self) -> QSize:
        """No wider than the Trim button under the scale: the page never grows past its
        pane for a long verdict (it did at 1024x640, Trim cut to "Trin")."""
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self._narrowest()), hint.height())

    def _narrowest(self) -> int:
        spacing = self._row.horizontalSpacing()
        words = (self._title.minimumSizeHint().width() + spacing + self.bar.minimumWidth()
                 + spacing + self.lengthLabel.minimumSizeHint().width())
        if self.trimBestButton.isHidden():
            return words
        return max(words, self._title.minimumSizeHint().width() + spacing
                   + self.trimBestButton.sizeHint().width())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_trim()

    def _place_trim(self) -> None:
        """Trim beside the length when it all fits on one line, else under it, whole."""
        under = self.width() < self.one_row_width()
        if under == self._under:
            return
        self._under = under
        self._row.removeWidget(self.trimBestButton)
        if under:
            self._row.addWidget(self.trimBestButton, 1, 1, 1, 2, Qt.AlignmentFlag.AlignRight)
        else:
            self._row.addWidget(self.trimBestButton, 0, 3)
        self.updateGeometry()  # another height: the page lays out again

    def set_check(self, check: ClipCheck | None) -> None:
        """Show a clip's checks (None: no clip, the meter hides)."""
        self.warningsLabel.setMinimumHeight(0)  # another clip: its own sentences' height
        self._show(check)

    def _show(self, check: ClipCheck | None) -> None:
        self.check = check
        self.setVisible(check is not None)
        if check is None:
            self.warningsLabel.clear_message()
            return
        self.bar.set_seconds(check.seconds)
        pal = self.lengthLabel.palette()
        if self.saved and check.length in SAVED_WORDS and check.speech:
            self.lengthLabel.setText(f"{check.seconds:.1f} s · {SAVED_WORDS[check.length]}")
            pal.setColor(QPalette.ColorRole.WindowText,
                         self.palette().color(QPalette.ColorRole.PlaceholderText))
        elif not check.speech:  # no verdict on a length of no speech: not green, not a fix
            self.lengthLabel.setText(length_text(check))
            pal.setColor(QPalette.ColorRole.WindowText,
                         self.palette().color(QPalette.ColorRole.PlaceholderText))
        else:
            self.lengthLabel.setText(length_text(check))
            pal.setColor(QPalette.ColorRole.WindowText,
                         VERDICT_COLOURS[check.length].darker(130))
        self.lengthLabel.setPalette(pal)
        self.trimBestButton.setVisible(check.seconds > BEST_S[1])
        self._place_trim()  # another verdict: another width
        # The length is said on the scale; the sentences are for what else is wrong.
        others = [w for w in check.warnings if not w.startswith("The clip is only")
                  and not w.startswith(f"The clip is {check.seconds:.0f} s")
                  and not w.startswith(NOISE_WARNING)]
        noise = next((w for w in check.warnings if w.startswith(NOISE_WARNING)), None)
        if noise and self.noise_offered:  # "Background noise is loud (-37 dBFS ...)"
            head = noise.split(";", 1)[0].rstrip(".")
            noise = f"{head}; {NOISE_HANDLED if self.noise_suppressed else NOISE_POINTER}"
        if noise and not (self.noise_suppressed and not self.noise_offered):
            others.append(noise)
        if others:
            # Red is for what stops a render or is the user's to fix; a saved voice's clip
            # renders as it was saved, and a clip with no speech renders too (as it sounds).
            calm = (self.saved or (self.noise_suppressed and others == [noise])
                    or others == [NO_SPEECH])
            self.warningsLabel.show_message(" ".join(others), error=not calm)
        else:
            self.warningsLabel.clear_message()

    def set_noise_suppressed(self, on: bool) -> None:
        """The Clone view's noise suppression is on (or off again): the loud-background
        warning, which points at its Noise box, turns into a calm line that says Noise
        handles it, holding its height so the checkboxes below stay where they were."""
        if on != self.noise_suppressed or not self.noise_offered:
            self.noise_offered = True
            held = self.warningsLabel.height() if self.warningsLabel.isVisible() else 0
            self.noise_suppressed = on
            self._show(self.check)
            self.warningsLabel.setMinimumHeight(held)

    def set_saved(self, saved: bool) -> None:
        """The clip is a saved voice's (or no longer is): its length said calmly, or as a fix."""
        if saved != self.saved:
            self.saved = saved
            self._show(self.check)

    def warnings(self) -> tuple[str, ...]:
        return self.check.warnings if self.check is not None else ()
