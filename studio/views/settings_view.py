"""SettingsView: every declared setting, edited in place and saved at once.

Each control writes through :class:`studio.settings.Settings`; an ``OMNIVOICE_*``
environment override (or ``--model`` on the command line) makes its control
read-only with a note saying what set it. Changing anything the model is loaded
with asks the window to reload it (``reload_requested``), coalesced so that
changing device and precision in a row reloads once.

Long because it lays out every declared setting, a row each, on one page; what they
mean is declared in :mod:`studio.settings`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from studio.engine.accel_probe import ACCEL_LABELS
from studio.engine.hub_download import describe_progress
from studio.engine.options import ACCEL_MODES, DEVICE_CHOICES, PRECISION_CHOICES
from studio.service.requests import AccelState
from studio.settings import BY_KEY, Settings
from studio.views.connection_test import ConnectionTest
from studio.views.judge_model import JudgeModelRow
from studio.views.model_download import (
    ModelDownload,
    confirm_license,
    default_downloader,
    looks_like_repo,
)
from studio.views.settings_words import (
    ACCEL_HINT,
    ASR_CHECK_HINT,
    ASR_MODEL_HINT,
    CACHE_NOTE,
    PRECISION_HINT,
    PRECISION_TIP,
    PROMPTS_HINT,
    accel_availability,
)
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label

log = logging.getLogger(__name__)

# Settings the model is loaded with: changing one reloads it.
RELOAD_KEYS = frozenset({
    "model/source", "model/device", "model/precision",
    "cache/disk", "cache/disk_items", "cache/memory_items", "asr/model",
})
# Of those, the two that unload a working model only once the person says so (the inline
# Reload the model / Keep as it is question); the others reload at once.
ASK_FIRST_KEYS = frozenset({"model/device", "model/precision"})
# The page's header, true to both: a review found it promising a reload precision asks about.
RELOAD_HEADER = ("Changes are saved at once. A new model, voice prompt cache setting or "
                 "transcription model reloads the model straight away; a new device or "
                 "precision asks first while a model is working.")
RELOAD_DELAY_MS = 400
COMBO_MIN_WIDTH = 180  # a settings combo narrower than its longest item cuts it
ROW_MARGIN = 60  # px kept under a row show_setting scrolls to (its hint, the next row's top)
# The Device box itself is not greyed, only some of its choices (review 6, item 8).
GREYED_IN_LIST = "Greyed out in the list: "
HIGHLIGHT_MS = 1800  # how long show_setting's row stays lit: long enough to find, then gone
HIGHLIGHT_STYLE = "QLabel { background: rgba(255, 204, 77, 110); border-radius: 3px; }"
BACKEND_LABELS = {"local": "This computer", "remote": "A speech server (remote)"}
DIALECT_LABELS = {"auto": "Detect", "vllm-omni": "vLLM-Omni",
                  "omnivoice-server": "omnivoice-server",
                  "omnivoice-desktop": "omnivoice-desktop serve"}
DEVICE_LABELS = {"auto": "Auto (GPU when there is one)", "cpu": "CPU", "cuda": "CUDA GPU",
                 "mps": "Apple GPU (MPS)"}
PRECISION_LABELS = {"auto": "Auto (fastest as accurate as bf16)", "fp32": "fp32 (full)",
                    "bf16": "bf16", "fp16": "fp16", "int8": "int8 (CPU: int8 projections)"}


def _labelled(choices: tuple[str, ...], labels: Mapping[str, str]) -> dict[str, str]:
    """The engine's choices in its order, each with its label here (a choice without one
    is a KeyError at once, not a combo that silently lacks it)."""
    return {choice: labels[choice] for choice in choices}


class SettingsView(QWidget):
    reload_requested = Signal()
    accel_requested = Signal(str)
    clear_cache_requested = Signal()
    download_finished = Signal(str)  # local path

    def __init__(self, settings: Settings, *, probe: Callable[[], dict] | None = None,
                 audio_status=None, downloader: Callable[[str], Path] = default_downloader,
                 confirm: Callable[[QWidget, str], bool] = confirm_license,
                 session_overrides: Mapping[str, tuple[str, object]] | None = None,
                 data_folder: Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("settingsView")
        self.setAccessibleName("Settings view")
        self._settings = settings
        self._confirm = confirm
        # key -> (what set it, value): e.g. {"model/source": ("--model", "/ckpt")}
        self._session = dict(session_overrides or {})
        self._data_folder = data_folder
        self._controls: dict[str, QWidget] = {}
        self._labels: dict[str, QLabel] = {}  # each setting's row label, to highlight
        self._highlighted: str | None = None  # the row show_setting lit up, while it is lit
        self._highlight_timer = QTimer(self)
        self._highlight_timer.setSingleShot(True)
        self._highlight_timer.setInterval(HIGHLIGHT_MS)
        self._highlight_timer.timeout.connect(lambda: self._highlight(None))
        self._notes: dict[str, QLabel] = {}
        self._loading = False
        self._model_ready = False  # set_model_ready: the window says when one works
        self._pending: dict[str, object] = {}  # Device / Precision awaiting confirm_reload
        self._downloader = downloader
        self._download = ModelDownload(downloader, self)
        self._download.done.connect(self._download_done)
        self._download.failed.connect(self._download_failed)
        self._download.cancelled.connect(self._download_failed)
        self._download.progress.connect(self._download_progress)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(RELOAD_DELAY_MS)
        self._reload_timer.timeout.connect(self.reload_requested)
        # Probing CUDA imports torch (seconds): without a probe the view starts with
        # "checking" and the window fills it in once the worker has loaded torch.
        self._availability = probe() if probe is not None else {
            mode: (mode == "off", None if mode == "off" else f"{mode}: still checking this machine")
            for mode in ACCEL_MODES
        }
        if audio_status is None:
            from studio.audio.backend import audio_status as audio_probe

            audio_status = audio_probe()
        self._audio = audio_status
        self._build()
        self.refresh()
        settings.changed.connect(self._setting_changed)

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        content = QWidget()
        content.setObjectName("settingsContent")
        content.setMaximumWidth(860)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(24, 18, 24, 24)
        layout.setSpacing(6)
        layout.addWidget(heading_label("Settings", size_delta=5))
        self.header = hint_label(RELOAD_HEADER)
        self.header.setObjectName("settingsHeader")
        layout.addWidget(self.header)
        layout.addSpacing(8)
        layout.addWidget(self._model_section())
        layout.addWidget(self._backend_section())
        layout.addWidget(self._cache_section())
        layout.addWidget(self._takes_section())
        layout.addWidget(self._judging_section())
        layout.addWidget(self._other_section())
        layout.addStretch(1)

        self._scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(content, 1)
        row.addStretch(0)
        scroll.setWidget(holder)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def _section(self, title: str) -> tuple[QWidget, QFormLayout]:
        box = QWidget()
        box.setProperty("settingsSection", title)  # show_setting brings its heading along
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 10, 0, 6)
        layout.setSpacing(8)
        layout.addWidget(heading_label(title, size_delta=1))
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        layout.addWidget(line)
        form = self._form()
        layout.addLayout(form)
        return box, form

    @staticmethod
    def _form() -> QFormLayout:
        """A section's labelled rows; every section's fields line up (same label width)."""
        form = QFormLayout()
        form.setContentsMargins(0, 4, 0, 0)
        form.setHorizontalSpacing(16)
        form.setVerticalSpacing(8)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # Beside an open takes panel on a 1024 px screen a row may not fit: its field then
        # goes under its label instead of being cut off on the right.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        return form

    def _add(self, form: QFormLayout, key: str, field: QWidget, tooltip: str,
             control: QWidget | None = None, hint: str | None = None) -> None:
        """A row for setting ``key``: its label, the field, a hint and an override note."""
        control = control or field
        setting = BY_KEY[key]
        control.setAccessibleName(setting.label)
        control.setToolTip(tooltip)
        label = QLabel(setting.label)
        label.setBuddy(control)
        label.setMinimumWidth(190)
        label.setMaximumWidth(200)  # a long label wraps, so every section's fields line up
        label.setWordWrap(True)
        note = QLabel()
        note.setObjectName(f"override_{key.replace('/', '_')}")
        note.setWordWrap(True)
        note.setStyleSheet("QLabel { color: #7a5200; }")
        note.hide()
        column = QVBoxLayout()
        column.setSpacing(3)
        column.addWidget(field)
        if hint:
            column.addWidget(hint_label(hint))
        column.addWidget(note)
        form.addRow(label, column)
        self._controls[key] = control
        self._labels[key] = label
        self._notes[key] = note

    def _combo(self, name: str, items: Mapping[str, str]) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        for value, label in items.items():
            combo.addItem(label, value)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # As wide as its longest item where there is room; narrower (the item cut, whole in
        # the list) rather than wrap its row under the label where there is not.
        combo.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        combo.setMinimumWidth(min(combo.sizeHint().width(), COMBO_MIN_WIDTH))
        return combo

    def _model_section(self) -> QWidget:
        box, form = self._section("Model")
        self.sourceEdit = QLineEdit()
        self.sourceEdit.setObjectName("modelSourceEdit")
        self.sourceEdit.setPlaceholderText("k2-fsa/OmniVoice or /path/to/OmniVoice")
        self.sourceEdit.editingFinished.connect(self._source_edited)
        self.browseButton = QPushButton("Choose folder…")
        self.browseButton.setObjectName("modelBrowseButton")
        self.browseButton.setAccessibleName("Choose a checkpoint folder")
        self.browseButton.setToolTip("Use an OmniVoice checkpoint folder on this computer")
        self.browseButton.clicked.connect(self._browse)
        self.downloadButton = QPushButton("Download")
        self.downloadButton.setObjectName("downloadButton")
        self.downloadButton.setAccessibleName("Download the model")
        self.downloadButton.setToolTip(
            "Download this repo id from the Hugging Face hub into its cache "
            "(shows the license first)")
        self.downloadButton.clicked.connect(self.start_download)
        self.sourceEdit.textChanged.connect(lambda _t: self._refresh_download_button())
        # The path on a line of its own, the buttons under it: beside them, at 1024 px, a
        # path showed only its last letters.
        sourceRow = QWidget()
        row = QHBoxLayout(sourceRow)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.browseButton)
        row.addWidget(self.downloadButton)
        row.addStretch(1)
        self.downloadProgress = QProgressBar()
        self.downloadProgress.setObjectName("downloadProgress")
        self.downloadProgress.setAccessibleName("Download progress")
        self.downloadProgress.setRange(0, 0)
        self.downloadProgress.setTextVisible(True)
        self.downloadProgress.setMaximumHeight(18)
        self.downloadProgress.hide()
        self.downloadMessage = MessageLabel()
        self.downloadMessage.setObjectName("downloadMessage")
        sourceBox = QWidget()
        column = QVBoxLayout(sourceBox)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.sourceEdit)
        column.addWidget(sourceRow)
        column.addWidget(self.downloadProgress)
        column.addWidget(self.downloadMessage)
        self._add(form, "model/source", sourceBox,
                  "A checkpoint folder, or a Hugging Face repo id resolved through its cache",
                  control=self.sourceEdit,
                  hint="A checkpoint folder, or a repo id downloaded once into the Hugging "
                       "Face cache.")

        self.deviceCombo = self._combo("deviceCombo", _labelled(DEVICE_CHOICES, DEVICE_LABELS))
        self.deviceCombo.currentIndexChanged.connect(
            lambda _i: self._write_model("model/device", self.deviceCombo.currentData()))
        self.deviceAvailability = hint_label("")
        self.deviceAvailability.setObjectName("deviceAvailability")
        self.deviceAvailability.hide()
        deviceBox = QWidget()
        column = QVBoxLayout(deviceBox)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        column.addWidget(self.deviceCombo, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.deviceAvailability)
        self._add(form, "model/device", deviceBox, "Where the model runs",
                  control=self.deviceCombo)
        self.precisionCombo = self._combo("precisionCombo", _labelled(PRECISION_CHOICES, PRECISION_LABELS))
        self.precisionCombo.currentIndexChanged.connect(
            lambda _i: self._write_model("model/precision", self.precisionCombo.currentData()))
        self._add(form, "model/precision", self.precisionCombo, PRECISION_TIP,
                  hint=PRECISION_HINT)
        # The prompt between two forms, not a whole-width row of one: QFormLayout gave that
        # row the height of its words wrapped at the field's width while it counted them at
        # the row's, and squashed the rows around it (review 8: Model's buttons a few
        # pixels high, the Acceleration hint drawn over itself).
        box.layout().addWidget(self._reload_confirm())
        form = self._form()
        form.setContentsMargins(0, 0, 0, 0)  # the section's spacing is the rows' own
        box.layout().addLayout(form)

        self.accelCombo = QComboBox()
        self.accelCombo.setObjectName("accelCombo")
        self.accelCombo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        # As the other combos (_combo): narrower where there is no room, rather than its
        # row wrapped under the label at 1024 px by the longest "(unavailable)" item.
        self.accelCombo.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.accelCombo.setMinimumWidth(COMBO_MIN_WIDTH)
        self.accelAvailability = QLabel()
        self.accelAvailability.setObjectName("accelAvailability")
        self.accelAvailability.setWordWrap(True)
        self.accelAvailability.setTextFormat(Qt.TextFormat.RichText)
        self.accelAvailability.setAccessibleName("Acceleration availability")
        self.accelActive = hint_label("")
        self.accelActive.setObjectName("accelActive")
        self.accelActive.hide()
        accelBox = QWidget()
        column = QVBoxLayout(accelBox)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        accelRow = QHBoxLayout()
        accelRow.addWidget(self.accelCombo)
        accelRow.addStretch(1)
        column.addLayout(accelRow)
        column.addWidget(hint_label(ACCEL_HINT))
        column.addWidget(self.accelAvailability)
        column.addWidget(self.accelActive)
        self._fill_accel()
        self.accelCombo.currentIndexChanged.connect(
            lambda _i: self._write("accel/mode", self.accelCombo.currentData()))
        self._add(form, "accel/mode", accelBox,
                  "How decoding is accelerated; options this machine cannot run are disabled. "
                  "CUDA graphs replay the standard path's steps (the same tokens, less overhead); "
                  "Auto picks the fastest mode measured on a GPU as token-exact or as accurate "
                  "as bf16 against fp32, and the standard path until such measurements exist",
                  control=self.accelCombo)
        return box

    def _backend_section(self) -> QWidget:
        box, form = self._section("Backend")
        self.backendCombo = self._combo("backendCombo", BACKEND_LABELS)
        self.backendCombo.currentIndexChanged.connect(
            lambda _i: self._write("backend/kind", self.backendCombo.currentData()))
        self._add(form, "backend/kind", self.backendCombo,
                  "Render with the model on this computer, or on a speech server",
                  hint="A server renders; takes, A/B, voices and scripts stay here.")
        self.backendUrlEdit = QLineEdit()
        self.backendUrlEdit.setObjectName("backendUrlEdit")
        self.backendUrlEdit.setPlaceholderText("http://gpu-box:8000")
        self.backendUrlEdit.editingFinished.connect(
            lambda: self._write("backend/url", self.backendUrlEdit.text().strip()))
        self._add(form, "backend/url", self.backendUrlEdit,
                  "The server's base address: vLLM-Omni, omnivoice-server or omnivoice-desktop "
                  "serve")
        self.backendKeyEdit = QLineEdit()
        self.backendKeyEdit.setObjectName("backendKeyEdit")
        self.backendKeyEdit.setEchoMode(QLineEdit.EchoMode.PasswordEchoOnEdit)
        self.backendKeyEdit.setPlaceholderText("none")
        self.backendKeyEdit.editingFinished.connect(self._write_key)
        self.keyHome = hint_label(self._settings.secret_home("backend/api_key"))
        self.keyHome.setObjectName("apiKeyHome")  # where the key is kept: keyring or file
        keyBox = QWidget()
        keyColumn = QVBoxLayout(keyBox)
        keyColumn.setContentsMargins(0, 0, 0, 0)
        keyColumn.setSpacing(3)
        keyColumn.addWidget(self.backendKeyEdit)
        keyColumn.addWidget(self.keyHome)
        self._add(form, "backend/api_key", keyBox, "Sent to the server as a Bearer token",
                  control=self.backendKeyEdit)
        self.dialectCombo = self._combo("dialectCombo", DIALECT_LABELS)
        self.dialectCombo.currentIndexChanged.connect(
            lambda _i: self._write("backend/dialect", self.dialectCombo.currentData()))
        self.testButton = QPushButton("Test connection")
        self.testButton.setObjectName("testConnectionButton")
        self.testButton.setAutoDefault(False)
        self.testButton.clicked.connect(self.test_connection)
        self.connectionMessage = MessageLabel()
        self.connectionMessage.setObjectName("connectionMessage")
        dialectBox = QWidget()
        column = QVBoxLayout(dialectBox)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        row = QHBoxLayout()
        row.addWidget(self.dialectCombo)
        row.addWidget(self.testButton)
        row.addStretch(1)
        column.addLayout(row)
        column.addWidget(self.connectionMessage)
        self._add(form, "backend/dialect", dialectBox,
                  "How requests are spelled; Detect asks the server", control=self.dialectCombo)
        self._connection = ConnectionTest(self)
        self._connection.succeeded.connect(self._connection_answered)
        self._connection.failed.connect(self._connection_failed)
        return box

    def test_connection(self) -> None:
        """Ask the server in the fields what it is; the answer shows under the button."""
        for edit in (self.backendUrlEdit, self.backendKeyEdit):  # typed, not yet left
            edit.editingFinished.emit()
        dialect = self.dialectCombo.currentData()
        self.testButton.setEnabled(False)
        self.connectionMessage.show_message("Testing the connection …", error=False)
        self._connection.start(self.backendUrlEdit.text().strip(),
                               self.backendKeyEdit.text().strip() or None,
                               None if dialect == "auto" else dialect)

    @Slot(str)
    def _connection_answered(self, text: str) -> None:
        self.testButton.setEnabled(True)
        self.connectionMessage.show_message(text, error=False)

    @Slot(str)
    def _connection_failed(self, sentence: str) -> None:
        self.testButton.setEnabled(True)
        self.connectionMessage.show_message(sentence)

    def _judge_model(self) -> str:
        """The Whisper the words judge hears with on the device renders run on here."""
        from studio.service.judging import recogniser_model

        cuda = (self._availability.get("device:cuda", (False, None))[0]
                and self.effective("model/device") not in ("cpu", "mps"))
        return recogniser_model("cuda" if cuda else "cpu", self.effective("asr/model"))

    def set_availability(self, availability: dict) -> None:
        """Show which acceleration modes, devices and precisions this machine can run
        (accel_probe.probe and .hardware, from the worker)."""
        self._availability = dict(availability)
        blocked = self.accelCombo.blockSignals(True)
        self.accelCombo.clear()
        self._fill_accel()
        self.accelCombo.blockSignals(blocked)
        self._grey_hardware()
        self.refresh()

    def _grey_hardware(self) -> None:
        """Grey the devices and precisions this machine lacks, each with its reason (in
        its tooltip, and under Device). Until the worker has looked, all stay offered."""
        missing = []
        for combo, kind in ((self.deviceCombo, "device"), (self.precisionCombo, "precision")):
            for row in range(combo.count()):
                value = combo.itemData(row)
                ok, reason = self._availability.get(f"{kind}:{value}", (True, None))
                combo.model().item(row).setEnabled(ok)
                combo.setItemData(row, None if ok else f"Not on this machine: {reason}",
                                  Qt.ItemDataRole.ToolTipRole)
                if not ok:
                    missing.append(reason)  # the reason names the option
        self.deviceAvailability.setText(GREYED_IN_LIST + "; ".join(missing) + "."
                                        if missing else "")
        self.deviceAvailability.setVisible(bool(missing))

    # ------------------------------------------------------------------ model reloads
    def _reload_confirm(self) -> QWidget:
        """An inline question, not a dialog: a reload drops the working model."""
        self.reloadConfirm = QFrame()
        self.reloadConfirm.setObjectName("reloadConfirm")
        self.reloadConfirm.setFrameShape(QFrame.Shape.StyledPanel)
        self.reloadConfirmText = QLabel()
        self.reloadConfirmText.setObjectName("reloadConfirmText")
        self.reloadConfirmText.setWordWrap(True)
        self.confirmReloadButton = QPushButton("Reload the model")
        self.confirmReloadButton.setObjectName("confirmReloadButton")
        self.confirmReloadButton.setToolTip("Unload the model and load it with the new choice")
        self.confirmReloadButton.clicked.connect(self.confirm_reload)
        self.keepModelButton = QPushButton("Keep as it is")
        self.keepModelButton.setObjectName("keepModelButton")
        self.keepModelButton.setToolTip("Go back to the setting the model runs with")
        self.keepModelButton.clicked.connect(self.keep_model)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.keepModelButton)
        buttons.addWidget(self.confirmReloadButton)
        column = QVBoxLayout(self.reloadConfirm)
        column.addWidget(self.reloadConfirmText)
        column.addLayout(buttons)
        self.reloadConfirm.hide()
        return self.reloadConfirm

    def set_model_ready(self, ready: bool) -> None:
        """Whether a model is loaded and working: changing Device or Precision then asks
        first, since it unloads that model; a download error is stale once one works."""
        self._model_ready = ready
        if ready and self.downloadMessage.is_error() and not self.is_downloading():
            self.downloadMessage.clear_message()

    def _write_model(self, key: str, value) -> None:
        if self._loading or self.is_locked(key):
            return
        if value == self.effective(key):
            self._pending.pop(key, None)  # chosen back: nothing to ask about
            if not self._pending:
                self.reloadConfirm.hide()
            return
        if not self._model_ready:
            self._write(key, value)
            return
        self._pending[key] = value
        names = " and ".join(BY_KEY[k].label for k in self._pending)
        self.reloadConfirmText.setText(
            f"Changing {names} unloads the model that is working now and loads it again; "
            "renders wait until it is back.")
        self.reloadConfirm.show()

    def confirm_reload(self) -> None:
        pending, self._pending = self._pending, {}
        self.reloadConfirm.hide()
        self._model_ready = False  # going away: changes until it is back join this reload
        for key, value in pending.items():
            self._write(key, value)

    def keep_model(self) -> None:
        self._pending.clear()
        self.reloadConfirm.hide()
        self.refresh()

    def _fill_accel(self) -> None:
        unavailable = []
        for mode in ACCEL_MODES:
            ok, reason = self._availability.get(mode, (False, f"{mode}: unknown"))
            label = ACCEL_LABELS[mode]
            self.accelCombo.addItem(label if ok else f"{label} (unavailable)", mode)
            row = self.accelCombo.count() - 1
            self.accelCombo.setItemData(
                row, "Available on this machine" if ok else reason, Qt.ItemDataRole.ToolTipRole)
            if not ok:
                self.accelCombo.model().item(row).setEnabled(False)
                unavailable.append((label, reason))
        self.accelAvailability.setText(accel_availability(unavailable))

    def _cache_section(self) -> QWidget:
        box, form = self._section("Voice prompt cache")
        form.addRow(hint_label(CACHE_NOTE))
        self.diskCacheCheck = QCheckBox("On")
        self.diskCacheCheck.setObjectName("diskCacheCheck")
        self.diskCacheCheck.toggled.connect(lambda on: self._write("cache/disk", on))
        self._add(form, "cache/disk", self.diskCacheCheck,
                  "Re-using a reference clip skips encoding it again, even after a restart")
        self.diskItemsSpin = QSpinBox()
        self.diskItemsSpin.setObjectName("diskItemsSpin")
        self.diskItemsSpin.setRange(1, 10_000)
        self.diskItemsSpin.setSuffix(" prompts")
        self.diskItemsSpin.valueChanged.connect(lambda v: self._write("cache/disk_items", v))
        self._add(form, "cache/disk_items", self.diskItemsSpin,
                  "The oldest prompts on disk are removed beyond this many", hint=PROMPTS_HINT)
        self.memoryItemsSpin = QSpinBox()
        self.memoryItemsSpin.setObjectName("memoryItemsSpin")
        self.memoryItemsSpin.setRange(1, 1_000)
        self.memoryItemsSpin.setSuffix(" prompts")
        self.memoryItemsSpin.valueChanged.connect(lambda v: self._write("cache/memory_items", v))
        self._add(form, "cache/memory_items", self.memoryItemsSpin,
                  "Prompts kept in memory for instant re-use")
        self.clearCacheButton = QPushButton("Clear cache")
        self.clearCacheButton.setObjectName("clearCacheButton")
        self.clearCacheButton.setAccessibleName("Clear the voice prompt cache")
        self.clearCacheButton.setToolTip("Forget every cached voice prompt, in memory and on disk")
        self.clearCacheButton.clicked.connect(self.clear_cache_requested)
        clearRow = QHBoxLayout()
        clearRow.addWidget(self.clearCacheButton)
        clearRow.addStretch(1)
        form.addRow("", clearRow)
        for spin in (self.diskItemsSpin, self.memoryItemsSpin):
            spin.setFixedWidth(160)
            spin.setKeyboardTracking(False)  # write when typing ends, not per digit
        return box

    def _takes_section(self) -> QWidget:
        box, form = self._section("Takes")
        # The window's wheel guard keeps the wheel off it unless it has the focus: one
        # notch on a setting that deletes takes must not change it.
        self.retentionSpin = QDoubleSpinBox()
        self.retentionSpin.setObjectName("retentionSpin")
        self.retentionSpin.setRange(0, 3650)
        self.retentionSpin.setDecimals(0)
        self.retentionSpin.setSuffix(" days")
        self.retentionSpin.setSpecialValueText("Never")  # 0: keep every take
        self.retentionSpin.setFixedWidth(160)
        self.retentionSpin.setKeyboardTracking(False)  # write when typing ends
        self.retentionSpin.valueChanged.connect(
            lambda v: self._write("takes/retention_days", float(v)))
        self._add(form, "takes/retention_days", self.retentionSpin,
                  "Unstarred takes older than this are deleted the next time the studio "
                  "starts (never while it runs); starred takes are kept forever",
                  hint="Never (0) keeps every take. Star a take to keep it regardless.")
        self.asrCheck = QCheckBox("On")
        self.asrCheck.setObjectName("asrCheck")
        self.asrCheck.toggled.connect(lambda on: self._write("takes/asr_check", on))
        self._add(form, "takes/asr_check", self.asrCheck,
                  "Transcribe every take and store how far the words differ from the text",
                  hint=ASR_CHECK_HINT)
        return box

    def _judging_section(self) -> QWidget:
        box, form = self._section("Judging")
        self.judgingCheck = QCheckBox("On")
        self.judgingCheck.setObjectName("judgingCheck")
        self.judgingCheck.toggled.connect(lambda on: self._write("judging/enabled", on))
        self._add(form, "judging/enabled", self.judgingCheck,
                  "After each render, measure every take's voice match, words and sound "
                  "and rank the takes; off costs no time")
        self.judgeModel = JudgeModelRow(self._judge_model, downloader=self._downloader,
                                        transcriber_of=lambda: self.effective("asr/model"))
        form.addRow(self.judgeModel)
        form.addRow(hint_label("How much each judge counts when takes are ranked (relative "
                               "to each other; they need not add up to 100 %; the takes "
                               "judged already are scored again):"))
        tips = {"voice": "How much the voice matching the reference (or the other takes) "
                         "counts in a take's combined score",
                "words": "How much the words heard matching the text counts in a take's "
                         "combined score",
                "sound": "How much the sound quality (noise, clipping, silence) counts in a "
                         "take's combined score"}
        self.weightSpins: dict[str, QSpinBox] = {}
        for judge, tip in tips.items():
            spin = QSpinBox()
            spin.setObjectName(f"{judge}WeightSpin")
            spin.setRange(0, 100)
            spin.setSuffix(" %")
            spin.valueChanged.connect(lambda v, j=judge: self._write(f"judging/weight_{j}", v))
            self._add(form, f"judging/weight_{judge}", spin, tip)
            self.weightSpins[judge] = spin
        self.passSpin = QSpinBox()
        self.passSpin.setObjectName("passAtSpin")
        self.passSpin.setRange(0, 100)
        self.passSpin.setSuffix(" %")
        self.passSpin.valueChanged.connect(lambda v: self._write("judging/pass_at", v))
        self._add(form, "judging/pass_at", self.passSpin,
                  "The combined score a take needs, with no judge saying bad, to pass "
                  "(Render until one passes stops at the first such take)",
                  hint="A take passes when its combined score reaches this and no judge "
                       "says poor.")
        for spin in (*self.weightSpins.values(), self.passSpin):
            spin.setFixedWidth(160)
            spin.setKeyboardTracking(False)  # write when typing ends, not per digit
        return box

    def _other_section(self) -> QWidget:
        box, form = self._section("Transcription, audio and data")
        self.asrEdit = QLineEdit()
        self.asrEdit.setObjectName("asrModelEdit")
        self.asrEdit.setPlaceholderText("openai/whisper-large-v3-turbo")
        self.asrEdit.editingFinished.connect(
            lambda: self._write("asr/model", self.asrEdit.text().strip()
                                or BY_KEY["asr/model"].default))
        self._add(form, "asr/model", self.asrEdit,
                  "Whisper model used to transcribe a reference clip with no transcript",
                  hint=ASR_MODEL_HINT)

        self.outputCombo = QComboBox()
        self.outputCombo.setObjectName("outputDeviceCombo")
        self.outputCombo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.outputCombo.addItem("System default", -1)
        for index, name in self._audio.output_devices:
            self.outputCombo.addItem(name, int(index))
        self.outputCombo.currentIndexChanged.connect(
            lambda _i: self._write("audio/output_device", self.outputCombo.currentData()))
        self.audioReason = QLabel(self._audio.reason or "")
        self.audioReason.setObjectName("audioReason")
        self.audioReason.setWordWrap(True)
        self.audioReason.setStyleSheet("QLabel { color: #9b1c1c; }")
        self.audioReason.setVisible(not self._audio.available)
        audioBox = QWidget()
        column = QVBoxLayout(audioBox)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        audioRow = QHBoxLayout()
        audioRow.addWidget(self.outputCombo)
        audioRow.addStretch(1)
        column.addLayout(audioRow)
        column.addWidget(self.audioReason)
        self._add(form, "audio/output_device", audioBox,
                  "Where takes and reference clips play" if self._audio.available
                  else self._audio.reason or "Playback is off.",
                  control=self.outputCombo)
        self.streamCheck = QCheckBox("On")
        self.streamCheck.setObjectName("playWhileRenderingCheck")
        self.streamCheck.toggled.connect(lambda on: self._write("audio/play_while_rendering", on))
        self._add(form, "audio/play_while_rendering", self.streamCheck,
                  "Start playing the first take when its first sentence is rendered, "
                  "and a script when its first line is, while the rest renders",
                  hint="Generate plays from the first chunk on, a script's render from its "
                       "first line; the takes are saved as always.")

        from studio.paths import data_dir

        folder = self._data_folder or data_dir()
        self.dataEdit = QLineEdit(str(folder))
        self.dataEdit.setObjectName("dataFolderEdit")
        self.dataEdit.setReadOnly(True)
        self.dataEdit.setAccessibleName("Data folder")
        self.dataEdit.setToolTip("Saved voices, recordings, the prompt cache and the log live here "
                                 "(OMNIVOICE_DESKTOP_DATA_DIR moves it)")
        self.openDataButton = QPushButton("Open")
        self.openDataButton.setObjectName("openDataButton")
        self.openDataButton.setAccessibleName("Open the data folder")
        self.openDataButton.setToolTip("Show the data folder in the file manager")
        self.openDataButton.clicked.connect(self.open_data_folder)
        dataRow = QHBoxLayout()
        dataRow.setSpacing(6)
        dataRow.addWidget(self.dataEdit, 1)
        dataRow.addWidget(self.openDataButton)
        dataLabel = QLabel("Data folder")
        dataLabel.setBuddy(self.openDataButton)
        form.addRow(dataLabel, dataRow)
        return box

    # ------------------------------------------------------------------ state in
    def refresh(self) -> None:
        """Show every setting's effective value and whether something overrides it."""
        self._loading = True
        try:
            for key, control in self._controls.items():
                value = self._pending.get(key, self.effective(key))  # an unconfirmed choice stays
                if isinstance(control, QComboBox):
                    index = control.findData(value)
                    if index < 0 and key == "audio/output_device":
                        control.addItem(f"Device {value} (not present)", int(value))
                        index = control.count() - 1
                    control.setCurrentIndex(max(index, 0))
                elif isinstance(control, QLineEdit):
                    control.setText(str(value))
                elif isinstance(control, QCheckBox):
                    control.setChecked(bool(value))
                elif isinstance(control, QSpinBox):
                    control.setValue(int(value))
                elif isinstance(control, QDoubleSpinBox):
                    control.setValue(float(value))
                self._show_override(key, control)
        finally:
            self._loading = False
        if not self._audio.available:
            self.outputCombo.setEnabled(False)
        remote = self.effective("backend/kind") == "remote"
        for key in ("backend/url", "backend/api_key", "backend/dialect"):
            if not self.is_locked(key):
                self._controls[key].setEnabled(remote)
        self.testButton.setEnabled(remote)
        if not remote:  # a test's answer says nothing about rendering on this computer
            self._connection.cancel()
            self.connectionMessage.clear_message()
        self._refresh_download_button()
        self.judgeModel.refresh()

    def show_backend(self) -> None:
        """Bring the Backend section into view with its first control focused (the setup
        card's Render on a server…)."""
        self._scroll.ensureWidgetVisible(self.backendUrlEdit, 50, 120)
        self.backendCombo.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_setting(self, key: str) -> None:
        """Bring setting ``key``'s row into view with its section's heading when both fit
        (review 6, item 8: the Model heading was scrolled off), focus its control and
        light its label up for a moment, so the eye finds it (the status bar's pills)."""
        control = self.control(key)
        self._scroll_to(control)
        QTimer.singleShot(0, lambda: self._scroll_to(control))  # once a first show laid out
        control.setFocus(Qt.FocusReason.OtherFocusReason)
        self._highlight(key)

    def _scroll_to(self, control: QWidget) -> None:
        holder, bar = self._scroll.widget(), self._scroll.verticalScrollBar()
        section = control
        while section is not None and section.property("settingsSection") is None:
            section = section.parentWidget()
        top = (section or control).mapTo(holder, QPoint(0, 0)).y()
        bottom = control.mapTo(holder, QPoint(0, control.height())).y()
        # The heading at the top where the row still shows under it; else the row whole.
        bar.setValue(max(top, bottom + ROW_MARGIN - self._scroll.viewport().height()))

    def _highlight(self, key: str | None) -> None:
        """A calm, brief background behind a row's label (None: none)."""
        if self._highlighted is not None:
            self._labels[self._highlighted].setStyleSheet("")
        self._highlighted = key
        if key is not None:
            self._labels[key].setStyleSheet(HIGHLIGHT_STYLE)
            self._highlight_timer.start()

    def highlighted(self) -> str | None:
        return self._highlighted

    def effective(self, key: str):
        if key in self._session:
            return self._session[key][1]
        return self._settings.value(key)

    def override_note(self, key: str) -> str | None:
        """The note shown when something other than this view sets ``key``."""
        if key in self._session:
            return f"Set by {self._session[key][0]} for this session."
        env = self._settings.override(key)
        if env is not None:
            return (f"Set by {env} (now {self._settings.value(key)}); "
                    "unset it to change this here.")
        return None

    def problem_note(self, key: str) -> str | None:
        """Why an environment variable set for ``key`` is ignored, if it is."""
        return self._settings.problem(key)

    def _show_override(self, key: str, control: QWidget) -> None:
        note = self.override_note(key)
        locked = note is not None
        if isinstance(control, QLineEdit):
            control.setReadOnly(locked)
        else:
            control.setEnabled(not locked)
        if key == "model/source":
            self.browseButton.setEnabled(not locked)
        problem = self.problem_note(key)
        self._notes[key].setText(note or problem or "")
        self._notes[key].setVisible(locked or problem is not None)

    def control(self, key: str) -> QWidget:
        """The control that edits setting ``key``."""
        return self._controls[key]

    def is_locked(self, key: str) -> bool:
        return self.override_note(key) is not None

    def set_accel_state(self, state: AccelState) -> None:
        """What the worker actually runs, under the combo."""
        label = ACCEL_LABELS.get(state.active, state.active)
        if state.active == state.requested:
            text = f"In use: {label}."
        else:
            text = f"In use: {label if state.active != 'off' else 'standard path'} ({state.reason})."
        self.accelActive.setText(text)
        self.accelActive.show()

    def availability(self) -> dict:
        return dict(self._availability)

    # ------------------------------------------------------------------ state out
    def _write(self, key: str, value) -> None:
        if self._loading or self.is_locked(key):
            return
        self._settings.set_value(key, value)

    def _write_key(self) -> None:
        self._write("backend/api_key", self.backendKeyEdit.text().strip())
        self.keyHome.setText(self._settings.secret_home("backend/api_key"))
        if self._settings.value("backend/api_key") != self.backendKeyEdit.text().strip():
            self.backendKeyEdit.setText(self._settings.value("backend/api_key"))  # refused

    def set_source(self, source: str) -> None:
        self.sourceEdit.setText(source)
        self._source_edited()

    def _source_edited(self) -> None:
        text = self.sourceEdit.text().strip()
        if text:
            self.downloadMessage.clear_message()
            self._write("model/source", text)

    def _browse(self) -> None:
        current = Path(str(self.effective("model/source"))).expanduser()
        start = str(current) if current.is_dir() else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Choose an OmniVoice checkpoint folder",
                                                  start)
        if folder:
            self.set_source(folder)

    @Slot(str)
    def _setting_changed(self, key: str) -> None:
        self.refresh()
        if self.is_locked(key):
            return
        if key in RELOAD_KEYS:
            self._reload_timer.start()
        elif key == "accel/mode":
            self.accel_requested.emit(self._settings.value(key))

    def open_data_folder(self) -> None:
        folder = Path(self.dataEdit.text())
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    # ------------------------------------------------------------------ download
    def is_downloading(self) -> bool:
        return self._download.is_running()

    def _refresh_download_button(self) -> None:
        repo = self.sourceEdit.text().strip()
        ok = looks_like_repo(repo) and not self.is_downloading() and not self.is_locked("model/source")
        self.downloadButton.setEnabled(ok)
        self.downloadButton.setToolTip(
            "Download this repo id from the Hugging Face hub (shows the license first)" if ok
            else "Downloading…" if self.is_downloading()
            else "Type a repo id such as k2-fsa/OmniVoice to download it")

    @property
    def download(self) -> ModelDownload:
        """The studio's one model download (the setup card shows and cancels it too)."""
        return self._download

    def start_download(self, repo: str | None = None, *, confirmed: bool = False) -> bool:
        """Confirm the license (unless the caller showed it), then fetch the repo on a
        background thread; ``repo`` defaults to the Model field's."""
        repo = (repo or self.sourceEdit.text()).strip()
        if not looks_like_repo(repo) or self.is_downloading():
            return False
        if not confirmed and not self._confirm(self, repo):
            return False
        self.downloadMessage.clear_message()
        self.downloadProgress.setFormat(f"Downloading {repo} … (an interrupted download resumes)")
        self.downloadProgress.show()
        self._download.start(repo)
        self._refresh_download_button()
        return True

    def wait_for_download(self, timeout: float | None = None) -> None:
        self._download.wait(timeout)

    @Slot(str, str)
    def _download_done(self, repo: str, path: str) -> None:
        self.downloadProgress.hide()
        self.downloadMessage.show_message(f"Downloaded {repo}.", error=False)
        self._refresh_download_button()
        if self.effective("model/source") == repo:
            self.reload_requested.emit()  # same source, now present: load it
        else:
            self._write("model/source", repo)
        self.download_finished.emit(path)

    @Slot(str, object)
    def _download_progress(self, repo: str, progress) -> None:
        if progress.total:
            self.downloadProgress.setRange(0, 1000)
            self.downloadProgress.setValue(int(1000 * progress.done / progress.total))
        self.downloadProgress.setFormat(f"Downloading {repo}: {describe_progress(progress)}")

    @Slot(str, str)
    def _download_failed(self, repo: str, sentence: str) -> None:
        self.downloadProgress.hide()
        self.downloadMessage.show_message(sentence)
        self._refresh_download_button()
