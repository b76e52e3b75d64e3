"""The first-run card: shown in place of Clone, Design and Script while there is no model
to render with, it says what OmniVoice is, its size and licenses, and offers the three
ways on: download it, choose a folder that holds it, or render on a speech server.

It only shows state and emits intents; the window owns the download, the check of a
chosen folder (on the worker, with the loading code) and the model state.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from studio.engine.hub_download import DOWNLOAD_SIZE, describe_progress, format_bytes
from studio.model_state import ModelState, Phase
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label

ABOUT = ("OmniVoice turns text into speech in over 600 languages: it clones a voice from a "
         "short clip, or designs one from a description. It runs on this computer, so it "
         "needs its model once.")
LICENSES = ("<b>Licenses.</b> The OmniVoice weights (k2-fsa/OmniVoice) are CC BY-NC 4.0: "
            "non-commercial use, with attribution. The audio codec inside them (HiggsAudio v2 "
            "tokenizer, by Boson AI) has its own Boson Higgs Audio community license. "
            "Downloading means you accept both; read them on "
            "<a href='https://huggingface.co/k2-fsa/OmniVoice'>the model page</a>.")
CARD_STYLE = """
QFrame#setupPanel { background: palette(base); border: 1px solid palette(mid);
                    border-radius: 10px; }
"""
FAILED_STYLE = "QLabel { color: #b71c1c; }"
HEADLINES = {
    Phase.NOT_DOWNLOADED: "Set up the voice model",
    Phase.DOWNLOADING: "Downloading the voice model",
    Phase.FAILED: "The voice model did not load",
}


class SetupCard(QScrollArea):
    download_requested = Signal()
    cancel_requested = Signal()
    folder_chosen = Signal(str)
    server_requested = Signal()
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("modelSetupCard")
        self.setAccessibleName("Model setup")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._downloading = False
        self._checking = False
        self._build()
        self.set_state(ModelState(Phase.NOT_DOWNLOADED))

    def _build(self) -> None:
        panel = QFrame()
        panel.setObjectName("setupPanel")
        panel.setStyleSheet(CARD_STYLE)
        panel.setMaximumWidth(640)
        self.headline = heading_label(HEADLINES[Phase.NOT_DOWNLOADED], size_delta=5)
        self.headline.setObjectName("setupHeadline")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.stateLabel = QLabel()
        self.stateLabel.setObjectName("setupState")
        self.stateLabel.setAccessibleName("Model state")
        self.stateLabel.setWordWrap(True)
        self.stateLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        about = QLabel(ABOUT)
        about.setWordWrap(True)
        licenses = QLabel(LICENSES)
        licenses.setObjectName("setupLicenses")
        licenses.setWordWrap(True)
        licenses.setOpenExternalLinks(True)

        self.downloadButton = QPushButton(f"Download ({DOWNLOAD_SIZE})")
        self.downloadButton.setObjectName("setupDownloadButton")
        self.downloadButton.setProperty("primary", True)
        self.downloadButton.setToolTip("Download k2-fsa/OmniVoice from the Hugging Face hub into "
                                       "the data folder; an interrupted download resumes")
        self.cancelButton = QPushButton("Cancel")
        self.cancelButton.setObjectName("setupCancelButton")
        self.cancelButton.setToolTip("Stop the download; what arrived is kept and resumes later")
        self.progressBar = QProgressBar()
        self.progressBar.setObjectName("setupProgress")
        self.progressBar.setAccessibleName("Download progress")
        self.progressBar.setTextVisible(True)
        self.progressBar.setMinimumHeight(24)
        self.downloadButton.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        download_row = QHBoxLayout()
        download_row.addWidget(self.downloadButton)
        download_row.addWidget(self.progressBar, 1)
        download_row.addWidget(self.cancelButton)
        download_row.addStretch(0)

        self.chooseFolderButton = QPushButton("Choose a folder…")
        self.chooseFolderButton.setObjectName("setupChooseFolderButton")
        self.chooseFolderButton.setToolTip("Use a copy of the model you already have: the folder "
                                           "with config.json, model.safetensors and "
                                           "audio_tokenizer/")
        self.serverButton = QPushButton("Render on a server…")
        self.serverButton.setObjectName("setupServerButton")
        self.serverButton.setToolTip("Send renders to a speech server you run (Settings → "
                                     "Backend); nothing is downloaded here")
        self.settingsButton = QPushButton("Model settings…")
        self.settingsButton.setObjectName("setupSettingsButton")
        self.settingsButton.setToolTip("Device, precision and the model's folder (Settings → "
                                       "Model): a load can fail for a setting, not the files")
        other_row = QHBoxLayout()
        other_row.addWidget(self.chooseFolderButton)
        other_row.addWidget(self.serverButton)
        other_row.addWidget(self.settingsButton)
        other_row.addStretch(1)
        self.message = MessageLabel()
        self.message.setObjectName("setupMessage")

        column = QVBoxLayout(panel)
        column.setContentsMargins(28, 24, 28, 24)
        column.setSpacing(10)
        column.addWidget(self.headline)
        column.addWidget(self.stateLabel)
        column.addWidget(about)
        column.addWidget(hint_label(f"Size: {DOWNLOAD_SIZE} on disk (weights, tokenizer and "
                                    "audio codec)."))
        column.addWidget(licenses)
        column.addSpacing(6)
        column.addLayout(download_row)
        column.addWidget(hint_label("Or:"))
        column.addLayout(other_row)
        column.addWidget(self.message)

        # Centred by stretches, not by an alignment flag: an aligned widget gets its size
        # hint's width, and the wrapped labels inside were cut to a narrow column.
        page = QWidget()
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(panel, 30)
        row.addStretch(1)
        outer = QVBoxLayout(page)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.addLayout(row)
        outer.addStretch(1)
        self.setWidget(page)

        self.downloadButton.clicked.connect(self._download)
        self.cancelButton.clicked.connect(self.cancel_requested)
        self.chooseFolderButton.clicked.connect(self.choose_folder)
        self.serverButton.clicked.connect(self.server_requested)
        self.settingsButton.clicked.connect(self.settings_requested)

    # ------------------------------------------------------------------ state in
    def set_state(self, state: ModelState) -> None:
        self._state = state
        self.headline.setText(HEADLINES.get(state.phase, HEADLINES[Phase.NOT_DOWNLOADED]))
        self.stateLabel.setText(state.label)
        self.stateLabel.setToolTip(state.source)
        self.stateLabel.setStyleSheet(FAILED_STYLE if state.phase is Phase.FAILED else "")
        self._downloading = state.phase is Phase.DOWNLOADING
        self.settingsButton.setVisible(state.phase is Phase.FAILED)
        self._refresh()

    def set_progress(self, progress) -> None:
        """A DownloadProgress: bytes, speed and time left."""
        if progress.total:
            self.progressBar.setRange(0, 1000)
            self.progressBar.setValue(int(1000 * progress.done / progress.total))
        else:
            self.progressBar.setRange(0, 0)
        text = describe_progress(progress)
        self.progressBar.setFormat(text)
        self.progressBar.setAccessibleDescription(text)

    def set_arrived(self, count: int) -> None:
        """An earlier download left ``count`` bytes: the button says it resumes."""
        self.downloadButton.setText(f"Resume download ({format_bytes(count)} here)" if count
                                    else f"Download ({DOWNLOAD_SIZE})")

    def set_checking(self, checking: bool) -> None:
        """A chosen folder is being checked: no second choice meanwhile."""
        self._checking = checking
        if checking:
            self.message.show_message("Checking the folder …", error=False)
        self._refresh()

    def show_problem(self, sentence: str, error: bool = True) -> None:
        self.message.show_message(sentence, error)

    def clear_problem(self) -> None:
        self.message.clear_message()

    def _refresh(self) -> None:
        self.downloadButton.setEnabled(not self._downloading and not self._checking)
        self.downloadButton.setVisible(not self._downloading)  # the bar takes its place
        self.cancelButton.setVisible(self._downloading)
        self.progressBar.setVisible(self._downloading)
        if self._downloading and self.progressBar.format() in ("", "%p%"):
            self.progressBar.setRange(0, 0)
            self.progressBar.setFormat("Starting …")
        self.chooseFolderButton.setEnabled(not self._downloading and not self._checking)

    # ------------------------------------------------------------------ intents
    @Slot()
    def _download(self) -> None:
        self.clear_problem()
        self.progressBar.setFormat("Starting …")
        self.download_requested.emit()

    @Slot()
    def choose_folder(self) -> None:
        """A folder dialog, opened without blocking (the window stays live behind it)."""
        dialog = QFileDialog(self, "Choose the OmniVoice model folder", str(Path.home()))
        dialog.setObjectName("chooseModelFolderDialog")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self._folder_selected)
        dialog.open()

    @Slot(str)
    def _folder_selected(self, folder: str) -> None:
        if folder:
            self.clear_problem()
            self.folder_chosen.emit(folder)
