"""The studio's Open and Save file dialogs, with its own files named in the Type column.

Qt's own dialog (used where the desktop offers no native one) names a file's type from
its content, so a project, an SQLite file inside, was listed as "SQLite3 database" and a
voice bundle by its zip container. Call these as ``file_dialogs.open_file_name(...)`` (the
module attribute) so a test can stand in for the dialog; each returns ``(path, filter)``
as Qt's static functions do, ``("", "")`` when cancelled.
"""

from __future__ import annotations

from PySide6.QtCore import QFileInfo
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QWidget

from studio.library.bundle_file import SUFFIX as VOICE_SUFFIX
from studio.scripts.project import PROJECT_SUFFIX

STUDIO_TYPES = {PROJECT_SUFFIX: "OmniVoice project", VOICE_SUFFIX: "OmniVoice voice"}


class StudioFileTypes(QFileIconProvider):
    """Qt's icons and types, but the studio's files by the names the studio gives them."""

    def type(self, info: QFileInfo) -> str:
        own = STUDIO_TYPES.get(f".{info.suffix().lower()}") if info.isFile() else None
        return own or super().type(info)


def _ask(parent: QWidget | None, caption: str, start: str, name_filter: str,
         mode: QFileDialog.AcceptMode, options: QFileDialog.Option) -> tuple[str, str]:
    dialog = QFileDialog(parent, caption, start, name_filter)  # a start naming a file selects it
    dialog.setAcceptMode(mode)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile if mode == QFileDialog.AcceptMode.AcceptOpen
                       else QFileDialog.FileMode.AnyFile)
    dialog.setOptions(options)
    types = StudioFileTypes()  # the dialog does not own it: kept alive until it closes
    dialog.setIconProvider(types)
    try:
        if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
            return "", ""
        return dialog.selectedFiles()[0], dialog.selectedNameFilter()
    finally:
        dialog.deleteLater()


def open_file_name(parent: QWidget | None, caption: str, start: str,
                   name_filter: str) -> tuple[str, str]:
    return _ask(parent, caption, start, name_filter, QFileDialog.AcceptMode.AcceptOpen,
                QFileDialog.Option(0))


def save_file_name(parent: QWidget | None, caption: str, start: str, name_filter: str,
                   confirm_overwrite: bool = True) -> tuple[str, str]:
    options = QFileDialog.Option(0) if confirm_overwrite \
        else QFileDialog.Option.DontConfirmOverwrite
    return _ask(parent, caption, start, name_filter, QFileDialog.AcceptMode.AcceptSave, options)
