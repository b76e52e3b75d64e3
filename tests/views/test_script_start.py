"""Issue 25, finding 5: a script can be started from the window. New script… is a Save
dialog (a new name makes the project, where Browse's Open dialog said "File not found"),
and a script or project dropped or pasted on the view opens."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtWidgets import QAbstractItemView, QApplication

from studio.views import file_dialogs
from studio.views.script_view import ScriptView


@pytest.fixture(autouse=True)
def _clipboard_emptied():
    """The clipboard owns the mime data a test gives it: emptied before the application
    goes, or both free it at exit (a segfault after the last test)."""
    yield
    QApplication.clipboard().clear()


def make_view(qtbot, reader, player):
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    return view


def dropped(path) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    return mime


def test_new_script_names_a_new_project_in_a_save_dialog_and_starts_its_first_line(
        qtbot, tmp_path, reader, player, monkeypatch):
    asked = []

    def save_dialog(parent, title, start, filters, *args, **kwargs):
        asked.append((title, start, filters))
        return str(tmp_path / "radio play"), filters  # a new name, without the ending

    monkeypatch.setattr(file_dialogs, "save_file_name", save_dialog)
    monkeypatch.setattr(file_dialogs, "open_file_name",
                        lambda *a, **k: (_ for _ in ()).throw(AssertionError("an Open dialog")))
    view = make_view(qtbot, reader, player)
    view.newButton.click()
    assert asked and asked[0][0] == "New script" and "*.ovproj" in asked[0][2]
    assert view.project is not None and view.project.path == tmp_path / "radio play.ovproj"
    assert view.project.path.exists()
    assert [s.name for s in view.project.speakers()] == ["Narrator"]
    assert view.model.rowCount() == 1
    assert view.table.state() == QAbstractItemView.State.EditingState, "type the first line"
    view.close_project()


def test_new_script_on_an_existing_name_opens_it_and_replaces_nothing(
        qtbot, tmp_path, reader, player, monkeypatch):
    script = tmp_path / "old.txt"
    script.write_text("Ann: One.\nBen: Two.\n", encoding="utf-8")
    view = make_view(qtbot, reader, player)
    view.open(script)
    view.close_project()
    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *a, **k: (str(tmp_path / "old.ovproj"), ""))
    view.new_script()
    assert [line.text for line in view.project.lines()] == ["One.", "Two."]
    view.close_project()


def test_a_script_dropped_on_the_view_is_imported(qtbot, tmp_path, reader, player):
    script = tmp_path / "scene.txt"
    script.write_text("Ann: Hello.\nBen: Hi there.\n", encoding="utf-8")
    view = make_view(qtbot, reader, player)
    assert view.acceptDrops()
    assert view.handle_drop(dropped(script))
    assert view.project.path == tmp_path / "scene.ovproj"
    assert [s.name for s in view.project.speakers()] == ["Ann", "Ben"]
    assert not view.handle_drop(dropped(tmp_path / "clip.wav")), "audio is not a script"
    view.close_project()


def test_a_script_pasted_on_the_table_is_imported(qtbot, tmp_path, reader, player):
    script = tmp_path / "notes.md"
    script.write_text("# One\n\nAnn: Hello.\n", encoding="utf-8")
    view = make_view(qtbot, reader, player)
    QApplication.clipboard().setMimeData(dropped(script))
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert view.project is not None and view.project.path == tmp_path / "notes.ovproj"
    view.close_project()


def test_a_script_dropped_anywhere_on_the_window_opens_in_the_script_view(qtbot, tmp_path):
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

    from studio.library.takes import TakeLibrary
    from studio.views.main_window import MainWindow

    script = tmp_path / "scene.srt"
    script.write_text("1\n00:00:01,000 --> 00:00:02,500\nHello there.\n", encoding="utf-8")
    with TakeLibrary() as writer:
        window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(writer),
                            FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
        qtbot.addWidget(window)
        window.show_view("voices")
        mime = dropped(script)
        actions = Qt.DropAction.CopyAction
        enter = QDragEnterEvent(QPoint(5, 5), actions, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
        enter.ignore()  # (events start accepted)
        window.dragEnterEvent(enter)
        assert enter.isAccepted(), "the window takes the drag"
        window.dropEvent(QDropEvent(QPoint(5, 5).toPointF(), actions, mime,
                                    Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
        assert window.current_view() == "script"
        assert window.scriptView.project.path == tmp_path / "scene.ovproj"
        assert [line.text for line in window.scriptView.project.lines()] == ["Hello there."]
        window.scriptView.close_project()
        window.voicesView.close_library()


def test_a_script_pasted_on_the_window_outside_text_fields_opens(qtbot, tmp_path):
    from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

    from studio.library.takes import TakeLibrary
    from studio.views.main_window import MainWindow

    script = tmp_path / "scene.vtt"
    script.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi.\n", encoding="utf-8")
    with TakeLibrary() as writer:
        window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(writer),
                            FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        QApplication.clipboard().setMimeData(dropped(script))
        text = window.cloneView.form.textEdit
        text.setFocus()
        qtbot.keyClick(text, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        assert window.current_view() == "clone" and window.scriptView.project is None, \
            "in a text field, Ctrl+V pastes text"
        assert str(script) in text.toPlainText()
        window.sidebar.setFocus()
        qtbot.keyClick(window.sidebar, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        assert window.current_view() == "script"
        assert window.scriptView.project.path == tmp_path / "scene.ovproj"
        window.scriptView.close_project()
        window.voicesView.close_library()
