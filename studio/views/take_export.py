"""ExportDialog: choose a folder and a format, then write the selected takes there
(the audio, and unless unticked a .json beside each with how it was made) with
``export_takes``. The folder offered is the last one exported to, else the music folder
where the system has one, else home; one that does not exist yet is made (the dialog
says so before). What was written is named in one sentence for the status bar.

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
    QCheckBox,
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

from studio.library.export import SIDECAR_SUFFIX, default_stem
from studio.paths import data_dir
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


SIDECAR_TIP = ("A small text file beside the audio, under the same name, holding the take's "
               "text, voice and settings: everything needed to render it again. Players "
               "ignore it.")
NEW_FOLDER_HINT = "This folder does not exist yet; Export makes it."
SHOWN_NAMES = 2  # the sentence names this many files, then "and N more"


def default_folder(last: str | None = None) -> str:
    """Where an export goes unless the person says: the folder they last exported to,
    else the system's music folder (only where it exists: a fresh Linux has none),
    else home; never inside the app's data folder."""
    from studio.views.words import start_folder

    music = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.MusicLocation)
    for folder in (last, music):
        if folder and Path(folder).expanduser().is_dir():
            return start_folder(folder, avoid=data_dir())
    return str(Path.home())


def place_of(row) -> str:
    """What tells the take from others of its text: "take 2" (the second of a batch),
    "dialogue line 3" (a script line's take)."""
    from studio.views.takes_model import script_place

    size = getattr(row, "batch_size", 1)
    batch = f"take {row.batch_index}" if size > 1 else ""
    settings = getattr(row.take, "settings", None)
    line = script_place(row.take).replace(" · ", " ") if getattr(settings, "project", None) \
        else ""
    return " ".join(w for w in (line, batch) if w)


def row_stem(row) -> str:
    return default_stem(row.take, place_of(row))


def written_sentence(written: list[Path], fmt: str, folder: Path, sidecars: bool) -> str:
    """"Exported Chapter two.wav and its .json (how it was made) to /music." and,
    for several takes, the first names and how many more."""
    count = len(written)
    if count == 1:
        side = f" and its {SIDECAR_SUFFIX} (how it was made)" if sidecars else ""
        return f"Exported {written[0].name}{side} to {folder}."
    names = ", ".join(p.name for p in written[:SHOWN_NAMES])
    more = f" and {count - SHOWN_NAMES} more" if count > SHOWN_NAMES else ""
    side = f", each with a {SIDECAR_SUFFIX} of how it was made," if sidecars else ""
    return f"Exported {count} takes as {fmt} ({names}{more}){side} to {folder}."


class ExportDialog(QDialog):
    """``rows``: the takes to export (TakesModel rows, for their names)."""

    exported = Signal(str)  # one sentence: what was written where (``target``: the folder)
    failed = Signal(str)  # one sentence: why nothing (or not everything) was written

    def __init__(self, library, rows, *, folder: str | None = None, fmt: str | None = None,
                 sidecars: bool = True, export: Callable | None = None,
                 formats: Callable[[], list[str]] | None = None, parent: QWidget | None = None):
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
        self.target: Path | None = None  # the folder written to, once exported

        names = [r.name for r in self._rows]
        listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        end = "" if listed.endswith((".", "…", "!", "?")) else "."
        what = hint_label(f"{len(names)} take{'s' if len(names) != 1 else ''}: {listed}{end}")
        what.setObjectName("exportSummary")
        self.nameEdit = QLineEdit(row_stem(self._rows[0]) if len(self._rows) == 1 else "")
        self.nameEdit.setObjectName("exportName")
        self.nameEdit.setAccessibleName("File name")
        self.nameEdit.setToolTip("The exported file's name, without its extension")
        self.nameEdit.setVisible(len(self._rows) == 1)  # several takes: each its own words
        self.folderEdit = QLineEdit(folder or default_folder())
        self.folderEdit.setObjectName("exportFolder")
        self.folderEdit.setAccessibleName("Export folder")
        self.folderEdit.setMinimumWidth(280)
        self.folderHint = hint_label(NEW_FOLDER_HINT)
        self.folderHint.setObjectName("exportNewFolder")
        # Its line is kept while it is hidden: shown as a folder was typed, it pushed the
        # rows below down, and a click aimed at Export unticked the .json box instead.
        # (A form layout drops a hidden field's row whatever its size policy: the hint
        # sits in a box that stays.)
        keep = self.folderHint.sizePolicy()
        keep.setRetainSizeWhenHidden(True)
        self.folderHint.setSizePolicy(keep)
        hintBox = QWidget()
        QVBoxLayout(hintBox).setContentsMargins(0, 0, 0, 0)
        hintBox.layout().addWidget(self.folderHint)
        self.sidecarCheck = QCheckBox(f"Also write a {SIDECAR_SUFFIX} file of how it was made")
        self.sidecarCheck.setObjectName("exportSidecar")
        self.sidecarCheck.setToolTip(SIDECAR_TIP)
        self.sidecarCheck.setChecked(sidecars)
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
        form.addRow("", hintBox)
        form.addRow("F&ormat", self.formatCombo)
        form.addRow("", self.sidecarCheck)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.exportButton = self.buttons.addButton("Export",
                                                   QDialogButtonBox.ButtonRole.AcceptRole)
        self.exportButton.setObjectName("exportConfirm")

        layout = QVBoxLayout(self)
        layout.addWidget(what)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.progress)
        layout.addWidget(self.buttons)
        # Return exports: set once the buttons are in the dialog (before, Browse… was the
        # default and Return in the name field opened a folder chooser).
        self.browseButton.setAutoDefault(False)
        self.exportButton.setDefault(True)

        self.browseButton.clicked.connect(self._browse)
        self.folderEdit.textChanged.connect(self._folder_changed)
        self._folder_changed()
        self.buttons.accepted.connect(self.run_export)
        self.buttons.rejected.connect(self.reject)

    def folder(self) -> str:
        return self.folderEdit.text().strip()

    def format(self) -> str:
        return self.formatCombo.currentData() or ""

    def sidecars(self) -> bool:
        return self.sidecarCheck.isChecked()

    def _folder_changed(self) -> None:
        """Say before Export that a folder not there yet will be made (a typo shows); an
        error about the folder typed before no longer applies."""
        folder = self.folder()
        self.folderHint.setVisible(bool(folder) and not Path(folder).expanduser().is_dir())
        if self.message.is_error() and not self.busy():
            self.message.clear_message()

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
        if len(self._rows) == 1:
            stems = [self.nameEdit.text().strip()]
            if not stems[0]:
                self.message.show_message("Type a name for the file.")
                return False
        else:
            stems = [row_stem(r) for r in self._rows]
        count = len(ids)
        self.message.show_message(f"Exporting {count} take{'s' if count != 1 else ''}…",
                                  error=False)
        self._set_busy(True)
        folder, fmt, sidecars = Path(self.folder()).expanduser(), self.format(), self.sidecars()
        shelf, export = self._library, self._export

        def work(_progress, _cancel):
            library, closing = reopened(shelf)
            try:
                return list(export(library, ids, folder, fmt, stems=stems,
                                   sidecars=sidecars))
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
        # "Export makes it" was not true: the sentence below says why (until the folder
        # is edited, which asks again).
        self.folderHint.hide()
        self.message.show_message(sentence)
        self.failed.emit(sentence)

    def _exported(self, written: list[Path]) -> None:
        self._over()
        self.written = written
        self.target = Path(self.folder()).expanduser()
        self.message.clear_message()
        self.exported.emit(written_sentence(written, self.format(), self.target,
                                            self.sidecars()))
        self.accept()

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        for widget in (self.exportButton, self.buttons.button(QDialogButtonBox.StandardButton.Cancel),
                       self.nameEdit, self.folderEdit, self.browseButton, self.formatCombo,
                       self.sidecarCheck):
            widget.setEnabled(not busy)
