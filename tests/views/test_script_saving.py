"""Review 5, item 1: a project is one complete file, and the studio says that it saves.
An edit made in the Script view is in the .ovproj alone (no -wal, no -shm), the line
naming the project says changes save as they are made, File ▸ Save project as…
(Ctrl+Shift+S) writes a complete copy and carries on in it, and a project reopened at
start is said on the status bar past the model-ready line."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QSettings
from script_fixtures import open_dialogue
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

from studio.scripts.project import Project
from studio.service.requests import ModelInfo
from studio.settings import Settings
from studio.views import file_dialogs
from studio.views.main_window import MainWindow
from studio.views.script_lines_model import TEXT


@pytest.fixture
def view(qtbot, tmp_path, reader, player):
    view, _said = open_dialogue(qtbot, tmp_path, reader, player)
    yield view
    view.close_project()


def texts_of_copy(path, folder) -> list[str]:
    """The lines of the .ovproj copied alone, as a person mails it."""
    folder.mkdir()
    shutil.copyfile(path, folder / path.name)
    with Project.open(folder / path.name, read_only=True) as project:
        return [line.text for line in project.lines()]


def test_an_edit_in_the_view_is_in_the_project_file_alone(view, tmp_path):
    view.model.setData(view.model.index(0, TEXT), "Good evening, Bob.")
    assert view.project.lines()[0].text == "Good evening, Bob."
    assert texts_of_copy(view.project.path, tmp_path / "mailed")[0] == "Good evening, Bob."


def test_the_project_line_says_that_changes_save(view):
    label = view.projectLabel
    assert label.text().startswith("breakfast.ovproj · saved automatically · 4 lines")
    assert "Every change is saved" in label.toolTip() and "Save project as" in label.toolTip()


def test_save_project_as_writes_a_copy_and_carries_on_in_it(view, tmp_path, qtbot,
                                                             monkeypatch):
    old = view.project.path
    asked = []

    def save_dialog(parent, title, start, filters, *args, **kwargs):
        asked.append((title, start))
        return str(tmp_path / "copies" / "final"), filters

    (tmp_path / "copies").mkdir()
    monkeypatch.setattr(file_dialogs, "save_file_name", save_dialog)
    said, switched = [], []
    view.message.connect(said.append)
    view.project_changed.connect(switched.append)
    view.save_project_as()
    new = tmp_path / "copies" / "final.ovproj"
    assert asked == [("Save project as", str(old.with_name("breakfast copy.ovproj")))]
    assert view.project.path == new and view.pathEdit.text() == str(new)
    assert view.exportEdit.text() == str(new.with_suffix(".wav"))  # the mix's name follows
    assert view.project.setting("export_path") == str(new.with_suffix(".wav"))
    assert switched == [new] and said == [("Saved a copy as final.ovproj; changes now save to it (breakfast.ovproj "
                    "stays as it was).")]
    assert view.projectLabel.text().startswith("final.ovproj · saved automatically")
    view.model.setData(view.model.index(0, TEXT), "Only in the copy.")
    assert texts_of_copy(new, tmp_path / "mailed")[0] == "Only in the copy."
    with Project.open(old, read_only=True) as before:
        assert before.lines()[0].text == "Good morning, Bob."


def test_save_project_as_with_no_project_open_says_what_to_do(qtbot, reader, player,
                                                              monkeypatch):
    from studio.views.script_view import ScriptView

    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *a, **k: pytest.fail("no dialog without a project"))
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.save_project_as()
    assert view.notice.text().startswith("Open or start a project first")


def make_window(qtbot, settings) -> MainWindow:
    window = MainWindow(settings, FakeController(), FakePlayer(), audio_status=PLAYABLE,
                        accel_probe=lambda: CPU_ONLY, asr_on_disk=lambda model: model)
    qtbot.addWidget(window)
    return window


def test_file_save_project_as_is_ctrl_shift_s(qtbot, tmp_path, monkeypatch):
    window = make_window(qtbot, make_settings(tmp_path / "settings.ini"))
    action = window.menus.saveAsAction
    assert action.text() == "&Save project as…"
    assert action.shortcut().toString() == "Ctrl+Shift+S"
    menu = window.menus.fileMenu
    menu.aboutToShow.emit()  # greyed in the open menu while no project is open
    assert not action.isEnabled()
    menu.aboutToHide.emit()  # the key still answers, with a sentence
    assert action.isEnabled()
    saved = []
    monkeypatch.setattr(window.scriptView, "save_project_as", lambda: saved.append(True))
    window.show_view("clone")
    action.trigger()
    assert saved == [True] and window.current_view() == "script"


def test_a_reopened_project_is_said_past_the_model_ready_line(qtbot, tmp_path):
    path = tmp_path / "state.ini"
    with Project.create(tmp_path / "scene.ovproj") as project:
        project.add_speaker("Anna", "design")
    first = make_window(qtbot, make_settings(path))
    first.scriptView.open(tmp_path / "scene.ovproj")
    first.close()
    first.scriptView.close_project()

    second = make_window(qtbot, Settings(QSettings(str(path), QSettings.Format.IniFormat),
                                         environ={}))
    assert second.scriptView.project is not None
    second._controller.worker.model_loaded.emit(ModelInfo("tiny", "cpu", "bf16", 24000))
    said = second.statusBarWidget.messageLabel.text()
    assert said == "Model ready on cpu (bf16). Reopened scene.ovproj, as you left it."
    second._controller.worker.model_loaded.emit(ModelInfo("tiny", "cpu", "fp32", 24000))
    assert second.statusBarWidget.messageLabel.text() == "Model ready on cpu (fp32)."
    second.scriptView.close_project()


def test_save_project_as_onto_the_open_file_says_it_already_saves(view, monkeypatch):
    path = view.project.path
    monkeypatch.setattr(file_dialogs, "save_file_name", lambda *a, **k: (str(path), ""))
    view.save_project_as()
    assert view.project.path == path
    assert view.notice.text() == ("breakfast.ovproj is the open project, which already saves "
                                  "every change as it is made.")
    assert not view.notice.is_error()


def test_a_copy_never_exports_over_the_original(view, tmp_path, monkeypatch):
    """A reviewer saved a copy, restarted: the copy reopened with the original's export
    path (kept in the copied file) and its Export overwrote the original's mix and stems."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "client").mkdir()
    view.exportEdit.setText(str(tmp_path / "mine" / "show.mp3"))
    view.project.set_setting("export_path", str(tmp_path / "mine" / "show.mp3"))  # exported
    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *args, **kwargs: (str(tmp_path / "client" / "for-client"), ""))
    view.save_project_as()
    mix = tmp_path / "client" / "for-client.mp3"  # beside the copy, its name, same format
    assert view.exportEdit.text() == str(mix)
    copy = view.project.path
    view.close_project()
    with Project.open(copy, read_only=True) as reopened:  # what a restart shows
        assert reopened.setting("export_path") == str(mix)
