"""Settings → Judging: which Whisper hears the takes for the words judge, and a button
that fetches it (asking first, with its size) when it is not on this computer -- judging
itself never starts a download."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from studio.views.asr_download import Asking, AsrDownload, _asr_source
from studio.views.model_download import default_downloader
from studio.views.widgets.labels import hint_label

JUDGING = Asking("Judging the words of a take needs",
                 "Without it, takes are ranked by voice and sound only.", "Not now")


class JudgeModelRow(QWidget):
    def __init__(self, model_of: Callable[[], str], downloader: Callable = default_downloader,
                 on_disk: Callable[[str], str | None] = _asr_source,
                 transcriber_of: Callable[[], str] | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("judgeModelRow")
        self._model_of, self._on_disk = model_of, on_disk
        self._transcriber_of = transcriber_of  # the transcription model, to tell the two apart
        self.label = hint_label("")
        self.label.setObjectName("judgeModelLabel")
        self.label.setWordWrap(True)
        self.button = QPushButton()
        self.button.setObjectName("judgeModelButton")
        self.button.clicked.connect(self._fetch)
        self.download = AsrDownload(self, model_of, downloader=downloader, on_disk=on_disk,
                                    asks=JUDGING)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        self.refresh()

    def refresh(self) -> None:
        from studio.engine.asr import asr_size

        model = self._model_of()
        here = self._on_disk(model) is not None
        self.label.setText((f"Words are heard by {model}." if here else
                            f"Words are judged once {model} ({asr_size(model)}) is on this "
                            f"computer.") + self._why(model))
        self.button.setText(f"Download ({asr_size(model)})")
        self.button.setToolTip(f"Download {model}, the speech recogniser the words judge "
                               "uses here")
        self.button.setVisible(not here)

    def _why(self, model: str) -> str:
        """Why a second recogniser, when it is one: the two do different jobs."""
        if self._transcriber_of is None or self._transcriber_of() == model:
            return ""
        return (" A small, quick one, enough to rank takes; the transcription model below is "
                "the accurate one, for transcripts.")

    def _fetch(self) -> None:
        if self.download.ready_or_ask(self.refresh):
            self.refresh()
