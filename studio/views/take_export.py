"""ExportDialog: choose a folder and a format, then write the selected takes there
(audio plus a JSON sidecar of each take's snapshot) with ``export_takes``.

Exporting reads the library and writes files elsewhere, so it runs on the GUI
thread with the read-only library: a few takes convert in milliseconds.
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
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.errors import UserError
from studio.library.export import default_stem
from studio.views.widgets.labels import MessageLabel, hint_label

FORMAT_TIPS = {
    "WAV": "WAV, 24-bit: opens everywhere, largest files",
    "FLAC": "FLAC, 24-bit: lossless and about half the size of WAV",
    "OGG": "Ogg Vorbis: small, lossy",
    "MP3": "MP3: small, lossy, plays on anything",
}


def default_folder() -> str:
    music = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.MusicLocation)
    return music or str(Path.home())


class ExportDialog(QDialog):
    """``rows``: the takes to export (TakesModel rows, for their names)."""

    exported = Signal(str)  # one sentence: what was written where

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

    def run_export(self) -> bool:
        """Export; on a problem the dialog stays open with the sentence that says why."""
        if not self.folder():
            self.message.show_message("Choose a folder to export to.")
            return False
        ids = [r.take.id for r in self._rows]
        name = self.nameEdit.text().strip() if len(self._rows) == 1 else ""
        if len(self._rows) == 1 and not name:
            self.message.show_message("Type a name for the file.")
            return False
        try:
            self.written = list(self._export(self._library, ids, Path(self.folder()),
                                             self.format(), stems=[name] if name else None))
        except UserError as exc:
            self.message.show_message(str(exc))
            return False
        count = len(self.written)
        self.exported.emit(f"Exported {count} take{'s' if count != 1 else ''} as "
                           f"{self.format()} to {self.folder()}.")
        self.accept()
        return True
