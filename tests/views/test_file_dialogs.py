"""The Open and Save dialogs name the studio's own files (review 6: a project was listed
as "SQLite3 database", what Qt reads from its content)."""

from __future__ import annotations

import sqlite3
import zipfile

from PySide6.QtCore import QFileInfo, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from studio.views import file_dialogs
from studio.views.file_dialogs import StudioFileTypes


def test_the_studios_files_are_named_by_the_studio_and_others_by_qt(tmp_path):
    project = tmp_path / "radio play.ovproj"
    sqlite3.connect(project).execute("CREATE TABLE t (x)").connection.close()
    voice = tmp_path / "Mia.ovoice"
    with zipfile.ZipFile(voice, "w") as bundle:
        bundle.writestr("voice.json", "{}")
    other = tmp_path / "notes.db"
    other.write_bytes(project.read_bytes())
    types = StudioFileTypes()
    assert types.type(QFileInfo(str(project))) == "OmniVoice project"
    assert types.type(QFileInfo(str(voice))) == "OmniVoice voice"
    assert "SQLite" in types.type(QFileInfo(str(other)))  # Qt's name for everything else


def test_a_save_dialog_lists_with_those_names_starts_on_the_name_and_cancels_empty(
        qtbot, tmp_path):
    seen = []

    def look_then_cancel():
        dialog = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, QFileDialog) and w.isVisible())
        seen.append((type(dialog.iconProvider()), dialog.acceptMode(),
                     [f.rsplit("/", 1)[-1] for f in dialog.selectedFiles()]))
        dialog.reject()

    QTimer.singleShot(200, look_then_cancel)
    chosen = file_dialogs.save_file_name(None, "Save project as", str(tmp_path / "copy.ovproj"),
                                         "Script projects (*.ovproj)")
    assert chosen == ("", "")
    assert seen == [(StudioFileTypes, QFileDialog.AcceptMode.AcceptSave, ["copy.ovproj"])]
