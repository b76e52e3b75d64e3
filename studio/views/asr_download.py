"""Asking before the speech recognition model downloads (issue 25, finding 6).

Transcribing a clip (or Generate with an empty transcript) needs Whisper, about 1.6 GB.
Nothing downloads it behind the user's back: the first time, a question says what it is
and its size, and offers to type the transcript instead; a download shows bytes, speed
and time left with a Cancel, and the transcription the user asked for runs when it is in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from studio.engine.hub_download import describe_progress
from studio.views.model_download import ModelDownload, default_downloader


def _asr_source(model: str) -> str | None:
    from studio.engine.asr import asr_source

    return asr_source(model)


@dataclass(frozen=True)
class Asking:
    """What the question says: why the model is wanted, and what happens without it."""

    needs: str
    otherwise: str
    decline: str


TRANSCRIBING = Asking("Transcribing a clip needs",
                      "Or type what the clip says in the transcript box: nothing is "
                      "downloaded then.", "Type the transcript instead")


class AsrDownload(QObject):
    """``ready_or_ask(then)``: True when the model is on this computer; otherwise it asks
    and, once downloaded, calls ``then``. ``typed_instead()`` or ``failed(sentence)``
    follow an answer that does not lead there."""

    typed_instead = Signal()
    failed = Signal(str)

    def __init__(self, parent: QWidget, model_of: Callable[[], str],
                 downloader: Callable = default_downloader,
                 on_disk: Callable[[str], str | None] = _asr_source,
                 asks: Asking | None = None):
        super().__init__(parent)
        self._asks = asks or TRANSCRIBING
        self._parent = parent
        self._model_of = model_of
        self._on_disk = on_disk
        self._pending: Callable[[], None] | None = None
        self.download = ModelDownload(downloader, self)
        self.download.progress.connect(self._progress)
        self.download.done.connect(self._done)
        self.download.failed.connect(self._stopped)
        self.download.cancelled.connect(self._stopped)
        self.dialog: QProgressDialog | None = None

    def missing_size(self) -> str | None:
        """The recogniser's download size ("about 1.6 GB") while it is not on this
        computer; None once it is."""
        from studio.engine.asr import asr_size

        model = self._model_of()
        return None if self._on_disk(model) is not None else asr_size(model)

    def ready_or_ask(self, then: Callable[[], None]) -> bool:
        model = self._model_of()
        if self._on_disk(model) is not None:
            return True
        self._pending = then  # the latest request runs once the model is in
        if not self.download.is_running():
            self._ask(model)
        return False

    def _ask(self, model: str) -> None:
        from studio.engine.asr import asr_size

        size = asr_size(model)
        box = QMessageBox(self._parent)
        box.setObjectName("asrDownloadQuestion")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Download the speech recognition model?")
        box.setText(f"{self._asks.needs} the speech recognition model {model} ({size}). "
                    "It is downloaded once, into the data folder.")
        box.setInformativeText(self._asks.otherwise)
        download = box.addButton(f"Download ({size})", QMessageBox.ButtonRole.AcceptRole)
        download.setObjectName("asrDownloadButton")
        typed = box.addButton(self._asks.decline, QMessageBox.ButtonRole.RejectRole)
        typed.setObjectName("asrTypeButton")
        box.setDefaultButton(typed)
        box.setEscapeButton(typed)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: self._answered(button is download, model))
        box.open()  # not exec(): the window stays live behind it

    def _answered(self, download: bool, model: str) -> None:
        if not download:
            self._pending = None
            self.typed_instead.emit()
            return
        dialog = QProgressDialog(f"Downloading {model} …", "Cancel", 0, 0, self._parent)
        dialog.setObjectName("asrDownloadProgress")
        dialog.setWindowTitle("Speech recognition model")
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setMinimumDuration(0)
        dialog.canceled.connect(self.download.cancel)
        dialog.show()
        self.dialog = dialog
        self.download.start(model)

    @Slot(str, object)
    def _progress(self, repo: str, progress) -> None:
        if self.dialog is None:
            return
        if progress.total:
            self.dialog.setRange(0, 1000)
            self.dialog.setValue(int(1000 * progress.done / progress.total))
        self.dialog.setLabelText(f"Downloading {repo}: {describe_progress(progress)}")

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self.download.cancel)
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
            # The window the user goes back to gets the keyboard (and its tooltips) again:
            # without a window manager to do it, nothing had the focus after the dialog.
            self._parent.window().activateWindow()

    @Slot(str, str)
    def _done(self, _repo: str, _path: str) -> None:
        self._close_dialog()
        then, self._pending = self._pending, None
        if then is not None:
            then()

    @Slot(str, str)
    def _stopped(self, _repo: str, sentence: str) -> None:
        self._close_dialog()
        self._pending = None
        self.failed.emit(sentence)
