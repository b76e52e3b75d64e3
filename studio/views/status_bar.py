"""StatusBar: the last message or error (after an export, with "Show in folder"), the
model state (studio.model_state: Not downloaded, Downloading, Loading, Ready, Failed,
Server: host), device and precision, and the acceleration badge.

The badge has three states: *requested* (asked for, not confirmed by the worker
yet), *active* (the worker runs what was asked) and *fell back* (the worker runs
the standard path instead, for a named reason shown in text and tooltip).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QPainter, QPalette
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QStatusBar, QToolTip, QWidget

from studio.engine.accel_probe import ACCEL_LABELS
from studio.model_state import ModelState, Phase
from studio.service.requests import AccelState, ModelInfo
from studio.views.help_menu import OPEN_FAILED

REQUESTED, ACTIVE, FELL_BACK, OFF = "requested", "active", "fell back", "off"

# Pill colours: (background, text, border) per badge state.
BADGE_COLORS = {
    REQUESTED: ("#fff4d6", "#7a5200", "#e8c368"),
    ACTIVE: ("#e3f4e5", "#1e6b2a", "#8ccb96"),
    FELL_BACK: ("#fde3e1", "#9b1c1c", "#ef9a94"),
    OFF: ("#eceff1", "#455a64", "#cfd8dc"),
}
ERROR_STYLE = "QLabel { color: #b71c1c; font-weight: 600; }"
INFO_STYLE = ""
MODEL_STYLES = {
    Phase.NOT_DOWNLOADED: "QLabel { color: #7a5200; font-weight: 600; }",
    Phase.DOWNLOADING: "QLabel { color: #7a5200; }",
    Phase.LOADING: "QLabel { color: #7a5200; }",
    Phase.READY: "QLabel { color: #1e6b2a; }",
    Phase.FAILED: "QLabel { color: #b71c1c; font-weight: 600; }",
    Phase.SERVER: "QLabel { color: palette(highlight); font-weight: 600; }",
}


@dataclass(frozen=True)
class Badge:
    state: str
    text: str
    tooltip: str


def badge_for(accel: AccelState | None, requested: str = "off") -> Badge:
    """What the badge shows: from the worker's AccelState, or only the request."""
    if accel is None:
        label = ACCEL_LABELS.get(requested, requested)
        if requested == "off":
            return Badge(OFF, "Acceleration: off", "The standard decoding path is selected.")
        return Badge(REQUESTED, f"{label}: requested",
                     f"{label} is requested; it takes effect when the model is loaded.")
    label = ACCEL_LABELS.get(accel.requested, accel.requested)
    if accel.active == accel.requested:
        if accel.requested == "off":
            return Badge(OFF, "Acceleration: off", "The standard decoding path is in use.")
        return Badge(ACTIVE, f"{label}: active", f"{label} is active for every render.")
    reason = accel.reason or "no reason given"
    active = ACCEL_LABELS.get(accel.active, accel.active)
    where = "the standard path" if accel.active == "off" else active
    return Badge(FELL_BACK, f"{label}: fell back ({reason})",
                 f"{label} was requested, but renders use {where}: {reason}")


def badge_style(state: str) -> str:
    background, text, border = BADGE_COLORS[state]
    return (f"QLabel {{ background: {background}; color: {text}; border: 1px solid {border};"
            " border-radius: 9px; padding: 1px 10px; font-weight: 600; }")


def short_source(source: str) -> str:
    """A folder's name, or a repo id as is; the full source goes in the tooltip."""
    path = Path(source)
    if source.count("/") == 1 and not source.startswith((".", "/", "~")):
        return source
    return path.name or source


def elided_at_word(text: str, metrics, width: int) -> str:
    """``text`` cut at the last whole word that fits, with "…" (not mid-word: "usually c…")."""
    cut = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
    if cut == text or not cut.endswith("…"):
        return cut
    head = cut[:-1]
    if not text[len(head):len(head) + 1].isspace() and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:·") + " …"


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when it does not fit; text() stays whole, in
    the tooltip on hover and shown at once by a click (review 2: a cut-off error)."""

    def minimumSizeHint(self) -> QSize:
        return QSize(40, super().minimumSizeHint().height())

    def is_elided(self) -> bool:
        return elided_at_word(self.text(), self.fontMetrics(),
                              self.contentsRect().width()) != self.text()

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.toolTip():
            QToolTip.showText(event.globalPosition().toPoint(), self.toolTip(), self)
        super().mouseReleaseEvent(event)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        text = elided_at_word(self.text(), self.fontMetrics(), rect.width())
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(),
                                  self.isEnabled(), text, QPalette.ColorRole.WindowText)


class SettingLabel(QLabel):
    """A status bar label that opens Settings at the setting it shows (it looks like a
    button, so a click must do something)."""

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
                event.position().toPoint()):
            self.clicked.emit()
        super().mouseReleaseEvent(event)


OPENS_SETTINGS = " Click to change it in Settings."


class StatusBar(QStatusBar):
    """``open_url``: how a folder is shown (tests record the URL instead of launching a
    file manager)."""

    settings_requested = Signal(str)  # the setting's key: "accel/mode", "model/precision"

    def __init__(self, parent: QWidget | None = None,
                 open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl):
        super().__init__(parent)
        self.setObjectName("statusBar")
        self.setSizeGripEnabled(True)
        self._requested = "off"
        self._accel: AccelState | None = None
        self._open_url = open_url
        self._folder: Path | None = None  # what "Show in folder" opens, while it shows

        self.messageLabel = ElidedLabel()
        self.messageLabel.setObjectName("statusMessage")
        self.messageLabel.setContentsMargins(8, 0, 8, 0)
        self.messageLabel.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.messageLabel.setAccessibleName("Last message")
        self.messageLabel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.modelLabel = QLabel()
        self.modelLabel.setObjectName("modelState")
        self.modelLabel.setAccessibleName("Model state")
        self.deviceLabel = SettingLabel()
        self.deviceLabel.setObjectName("deviceLabel")
        self.deviceLabel.setAccessibleName("Device and precision")
        self.deviceLabel.setToolTip("Where the model runs, and in what precision." + OPENS_SETTINGS)
        self.deviceLabel.clicked.connect(lambda: self.settings_requested.emit("model/precision"))
        self.firstAudioLabel = QLabel()
        self.firstAudioLabel.setObjectName("firstAudioLabel")
        self.firstAudioLabel.setAccessibleName("Time to first audio")
        self.firstAudioLabel.setToolTip("How long the last render took from Generate to its "
                                        "first audio (Play as it renders)")
        self.firstAudioLabel.hide()
        self.badge = SettingLabel()
        self.badge.clicked.connect(lambda: self.settings_requested.emit("accel/mode"))
        self.badge.setObjectName("accelBadge")
        self.badge.setAccessibleName("Acceleration")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.folderButton = QPushButton("Show in folder")
        self.folderButton.setObjectName("showFolderButton")
        self.folderButton.setFlat(True)
        self.folderButton.setCursor(Qt.CursorShape.PointingHandCursor)
        self.folderButton.setStyleSheet("QPushButton { color: palette(link); padding: 0 6px; }")
        self.folderButton.clicked.connect(self.show_folder)
        self.folderButton.hide()

        self.addWidget(self.messageLabel, 1)
        self.addWidget(self.folderButton)
        for widget in (self.firstAudioLabel, self.modelLabel,
                       self.deviceLabel, self.badge):
            widget.setContentsMargins(8, 0, 8, 0)
            self.addPermanentWidget(widget)
        self.set_model_state(ModelState(Phase.LOADING))
        self.set_accel_requested("off")
        self.show_message("")

    # ------------------------------------------------------------------ model
    def set_model_state(self, state: ModelState, info: ModelInfo | None = None) -> None:
        """The window's one model state, in its words; ``info`` says where a Ready model runs."""
        tooltip = {
            Phase.NOT_DOWNLOADED: f"{short_source(state.source)} is not on this computer yet; "
                                  "the setup card downloads it or finds your copy.",
            Phase.DOWNLOADING: f"Downloading {short_source(state.source)}.",
            Phase.LOADING: f"Loading {state.source} …",
            Phase.READY: f"Model loaded from {state.source}",
            Phase.FAILED: state.detail,
            Phase.SERVER: f"Generate renders on the speech server at {state.source} "
                          "(Settings → Backend); clips are transcribed here.",
        }[state.phase]
        if info is not None and state.phase is Phase.READY:
            tooltip += f" ({info.sample_rate} Hz output)"
            self.deviceLabel.setText(f"{info.device} · {info.precision}")
            why = f" ({info.precision_reason})" if info.precision_reason else ""
            self.deviceLabel.setToolTip(f"The model runs on {info.device} in {info.precision}{why}."
                                        + OPENS_SETTINGS)
        self.deviceLabel.setVisible(state.phase is Phase.READY and info is not None)
        failed = state.phase is Phase.FAILED or (state.phase is Phase.SERVER and state.detail)
        if failed:
            tooltip = state.detail
        text = ("Failed" if failed  # the sentence goes to the message, where it fits
                else f"Ready: {short_source(state.source)}" if state.phase is Phase.READY
                else state.label)
        self.modelLabel.setProperty("state", state.phase.name.lower())
        self.modelLabel.setText(text)
        self.modelLabel.setToolTip(tooltip)
        self.modelLabel.setAccessibleDescription(tooltip)
        self.modelLabel.setStyleSheet(MODEL_STYLES[Phase.FAILED if failed else state.phase])
        if failed:
            self.show_error(state.detail)

    def model_state(self) -> str:
        return self.modelLabel.property("state") or ""

    def set_first_audio(self, seconds: float) -> None:
        """The last streamed render's time from Generate to its first audio."""
        self.firstAudioLabel.setText(f"First audio {seconds:.1f} s")
        self.firstAudioLabel.show()

    # ------------------------------------------------------------------ acceleration
    def set_accel_requested(self, requested: str) -> None:
        """The user asked for a mode; shown as requested until the worker answers."""
        self._requested = requested
        if self._accel is None or self._accel.requested != requested:
            self._accel = None
        self._show_badge()

    def set_accel(self, state: AccelState) -> None:
        """The worker's answer: active, or fell back with a reason."""
        self._requested = state.requested
        self._accel = state
        self._show_badge()

    def badge_state(self) -> str:
        return self.badge.property("state") or ""

    def _show_badge(self) -> None:
        badge = badge_for(self._accel, self._requested)
        self.badge.setProperty("state", badge.state)
        self.badge.setText(badge.text)
        self.badge.setToolTip(badge.tooltip + OPENS_SETTINGS)
        self.badge.setAccessibleDescription(badge.tooltip)
        self.badge.setStyleSheet(badge_style(badge.state))

    # ------------------------------------------------------------------ messages
    def show_message(self, text: str) -> None:
        self._message(text, error=False)

    def move_on(self) -> None:
        """The user did something that worked (a clip loaded): an error from before is
        no longer news, so it goes (a message that is not an error stays)."""
        if self.is_error():
            self.show_message("")

    def show_error(self, text: str, details: str | None = None) -> None:
        """``details``: the whole sentence for the tooltip when ``text`` is a short form."""
        self._message(text, error=True, details=details)

    def show_written(self, text: str, folder: str) -> None:
        """What an export wrote, and a "Show in folder" button that opens ``folder``
        (until the next message)."""
        self._message(text, error=False)
        self._folder = Path(folder)
        self.folderButton.setToolTip(f"Open {folder} in the file manager")
        self.folderButton.show()

    def folder_url(self) -> QUrl | None:
        """What "Show in folder" opens now (None: it is hidden)."""
        return QUrl.fromLocalFile(str(self._folder)) if self._folder is not None else None

    def show_folder(self) -> None:
        url = self.folder_url()
        if url is not None and not self._open_url(url):
            self.show_error(OPEN_FAILED.format(path=self._folder))

    def is_error(self) -> bool:
        return self.messageLabel.property("kind") == "error"

    def message(self) -> str:
        """The sentence shown now, without its warning sign."""
        return self.messageLabel.property("sentence") or ""

    def _message(self, text: str, error: bool, details: str | None = None) -> None:
        self._folder = None
        self.folderButton.hide()
        self.messageLabel.setProperty("kind", "error" if error else "info")
        self.messageLabel.setProperty("sentence", text)
        self.messageLabel.setText(("⚠ " if error and text else "") + text)
        self.messageLabel.setToolTip(details or text)
        self.messageLabel.setAccessibleDescription(details or text)
        self.messageLabel.setStyleSheet(ERROR_STYLE if error else INFO_STYLE)
