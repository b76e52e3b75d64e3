"""ExportDialog: choose a folder and a format, then write the selected takes there
(audio plus a JSON sidecar of each take's snapshot) with ``export_takes``.

The export is a :class:`~studio.views.file_task.FileTask` (the views' one way to do
file work off the GUI thread, as the Script view's mix and export are): a hundred long
takes decode, encode and fsync for seconds. Its thread opens its own read-only library
(an SQLite connection belongs to the thread that opened it). Meanwhile the dialog shows
a busy bar and stays open; an error is one sentence in it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.library.export import default_stem
from studio.views.file_task import FileTask
from studio.views.widgets.labels import MessageLabel, hint_label

FORMAT_TIPS = {
    "WAV": "WAV, 24-bit: opens everywhere, largest files",
    "FLAC": "FLAC, 24-bit: lossless and about half the size of WAV",
    "OGG": "Ogg Vorbis: small, lossy",
    "MP3": "MP3: small, lossy, plays on anything",
}


def reopened(library):
    """``library`` as the export thread may read it: its own read-only connection to
    the same files (a TakeShelf keeps its session's unsaved takes), or as it is when it
    holds no connection (None, a test's fake). Returns (library, what to close)."""
    from studio.library.session_takes import TakeShelf
    from studio.library.takes import TakeLibrary

    if isinstance(library, TakeShelf):
        inner, closing = reopened(library.library)
        return TakeShelf(inner, library.session), closing
    if isinstance(library, TakeLibrary):
        own = TakeLibrary(library.root, read_only=True)
        return own, [own]
    return library, []


def default_folder() -> str:
    music = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.MusicLocation)
    return music or str(Path.home())


class ExportDialog(QDialog):
    """``rows``: the takes to export (TakesModel rows, for their names)."""

    exported = Signal(str)  # one sentence: what was written where
    failed = Signal(str)  # one sentence: why nothing (or not everything) was written

    def __init__(self, library, rows, *, folder: str | None = None, fmt: str | None = None,
                 export: Callable | None = None, formats: Callable[[], list[str]] | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export takes")
        if export is None or formats is None:
            from studio.library.export import export_formats, export_takes

            export = export or export_takes
            formats = formats or export_formats
        self._library = library
        self._rows = list(rows)
        self._export = export
        self.written: list[Path] = []

        names = [r.name for r in self._rows]
        listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        end = "" if listed.endswith((".", "…", "!", "?")) else "."
        what = hint_label(f"{len(names)} take{'s' if len(names) != 1 else ''}: {listed}{end} "
                          "Each gets a .json file beside it with everything needed to render "
                          "it again.")
        what.setObjectName("exportSummary")
        self.nameEdit = QLineEdit(default_stem(self._rows[0].take) if len(self._rows) == 1 else "")
        self.nameEdit.setObjectName("exportName")
        self.nameEdit.setAccessibleName("File name")
        self.nameEdit.setToolTip("The exported file's name, without its extension")
        self.nameEdit.setVisible(len(self._rows) == 1)  # several takes: each its own words
        self.folderEdit = QLineEdit(folder or default_folder())
        self.folderEdit.setObjectName("exportFolder")
        self.folderEdit.setAccessibleName("Export folder")
        self.folderEdit.setMinimumWidth(280)
        self.browseButton = QPushButton("Browse…")
        self.browseButton.setObjectName("exportBrowse")
        self.browseButton.setToolTip("Choose the folder to export to")
        self.formatCombo = QComboBox()
        self.formatCombo.setObjectName("exportFormat")
        self.formatCombo.setAccessibleName("Export format")
        for name in formats():
            self.formatCombo.addItem(name, name)
            self.formatCombo.setItemData(self.formatCombo.count() - 1,
                                         FORMAT_TIPS.get(name, name), 3)  # ToolTipRole
        if fmt is not None:
            self.formatCombo.setCurrentIndex(max(0, self.formatCombo.findData(fmt)))
        self.message = MessageLabel()
        self.message.setObjectName("exportMessage")
        self.progress = QProgressBar()
        self.progress.setObjectName("exportProgress")
        self.progress.setAccessibleName("Export progress")
        self.progress.setRange(0, 0)  # busy: export_takes writes the takes in one call
        self.progress.setTextVisible(False)
        self.progress.hide()
        self._task: FileTask | None = None

        folderRow = QHBoxLayout()
        folderRow.addWidget(self.folderEdit, 1)
        folderRow.addWidget(self.browseButton)
        form = QFormLayout()
        if len(self._rows) == 1:
            form.addRow("File &name", self.nameEdit)
        # A row holding a layout gets no buddy, and its label then showed "&Folder" as typed.
        folderLabel = QLabel("&Folder")
        folderLabel.setBuddy(self.folderEdit)
        form.addRow(folderLabel, folderRow)
        form.addRow("F&ormat", self.formatCombo)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.exportButton = self.buttons.addButton("Export",
                                                   QDialogButtonBox.ButtonRole.AcceptRole)
        self.exportButton.setObjectName("exportConfirm")
        self.exportButton.setDefault(True)

        layout = QVBoxLayout(self)
        layout.addWidget(what)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.progress)
        layout.addWidget(self.buttons)

        self.browseButton.clicked.connect(self._browse)
        self.buttons.accepted.connect(self.run_export)
        self.buttons.rejected.connect(self.reject)

    def folder(self) -> str:
        return self.folderEdit.text().strip()

    def format(self) -> str:
        return self.formatCombo.currentData() or ""

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Export to folder", self.folder())
        if chosen:
            self.folderEdit.setText(chosen)

    def busy(self) -> bool:
        return self._task is not None

    def reject(self) -> None:
        if not self.busy():  # an export in flight finishes first (its files are atomic)
            super().reject()

    def run_export(self) -> bool:
        """Start the export; False (with the sentence that says why) when it cannot
        start. Its end is ``exported`` (the dialog closes) or ``failed`` (it stays open)."""
        if self.busy():
            return False
        if not self.folder():
            self.message.show_message("Choose a folder to export to.")
            return False
        ids = [r.take.id for r in self._rows]
        name = self.nameEdit.text().strip() if len(self._rows) == 1 else ""
        if len(self._rows) == 1 and not name:
            self.message.show_message("Type a name for the file.")
            return False
        count = len(ids)
        self.message.show_message(f"Exporting {count} take{'s' if count != 1 else ''}…",
                                  error=False)
        self._set_busy(True)
        folder, fmt, stems = Path(self.folder()), self.format(), [name] if name else None
        shelf, export = self._library, self._export

        def work(_progress, _cancel):
            library, closing = reopened(shelf)
            try:
                return list(export(library, ids, folder, fmt, stems=stems))
            finally:
                for opened in closing:
                    opened.close()

        failure = f"The takes could not be exported to {folder}"
        self._task = FileTask(work, failure, parent=self, unexpected=(
            f"{failure}; the log file in the data folder says why."))
        self._task.done.connect(self._exported)
        self._task.failed.connect(self._failed)
        self._task.start("take-export", daemon=False)  # quitting waits for the files
        return True

    def _over(self) -> None:
        self._task.deleteLater()
        self._task = None
        self._set_busy(False)

    def _failed(self, sentence: str) -> None:
        self._over()
        self.message.show_message(sentence)
        self.failed.emit(sentence)

    def _exported(self, written: list[Path]) -> None:
        self._over()
        self.written = written
        count = len(self.written)
        self.message.clear_message()
        self.exported.emit(f"Exported {count} take{'s' if count != 1 else ''} as "
                           f"{self.format()} to {self.folder()}.")
        self.accept()

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        for widget in (self.exportButton, self.buttons.button(QDialogButtonBox.StandardButton.Cancel),
                       self.nameEdit, self.folderEdit, self.browseButton, self.formatCombo):
            widget.setEnabled(not busy)
