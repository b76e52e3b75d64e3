"""The menu bar, Edit ▸ Undo over every destructive edit, and the shortcuts sheet
(issue 25, findings 4 and 12): each test here failed on the window before the menus."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings
from take_fixtures import add

from studio.views.main_window import MainWindow
from tests.library.library_helpers import make_prompt, write_clip

SCRIPT = "Alice: Good morning.\nBob: Morning, Alice.\n"


@pytest.fixture
def controller(data_writer):
    return FakeController(data_writer)


@pytest.fixture
def window(qtbot, tmp_path, controller):
    window = MainWindow(make_settings(tmp_path / "settings.ini"), controller, FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    yield window
    window.scriptView.close_project()
    window.voicesView.close_library()


def shown(qtbot, window):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # shortcuts need the active window
    return window


def menu_items(menu) -> dict[str, str]:
    """{text without &: its first shortcut}"""
    return {a.text().replace("&", ""): a.shortcut().toString() for a in menu.actions()
            if not a.isSeparator()}


def press(qtbot, window, key, modifiers=Qt.KeyboardModifier.ControlModifier):
    window.sidebar.setFocus()  # not a text box: those keep Ctrl+Z for their own typing
    qtbot.keyClick(window.sidebar, key, modifiers)


def test_the_menu_bar_has_file_edit_view_and_help(window):
    bar = [a.text() for a in window.menuBar().actions()]
    assert bar == ["&File", "&Edit", "&View", "&Help"]
    menus = window.menus
    assert menu_items(menus.fileMenu) == {
        "New script…": "Ctrl+N", "Open script or project…": "Ctrl+O",
        "Save project as…": "Ctrl+Shift+S", "Import clip…": "Ctrl+I",
        "Export take…": "Ctrl+E", "Quit": "Ctrl+Q"}
    assert menu_items(menus.editMenu) == {"Undo": "Ctrl+Z", "Redo": "Ctrl+Shift+Z",
                                          "Settings…": "Ctrl+,"}
    assert menu_items(menus.viewMenu) == {"Clone": "Ctrl+1", "Design": "Ctrl+2",
                                          "Voices": "Ctrl+3", "Script": "Ctrl+4",
                                          "Settings": "Ctrl+5"}
    assert list(menu_items(menus.helpMenu))[:2] == ["User guide", "Keyboard shortcuts"]


def test_ctrl_q_closes_the_window_and_quits(qtbot, window, monkeypatch):
    quits = []
    monkeypatch.setattr(QCoreApplication, "quit", lambda: quits.append(True))
    shown(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Q)
    assert not window.isVisible() and quits == [True]


def test_view_menu_keys_switch_pages_and_settings_is_in_edit(qtbot, window):
    shown(qtbot, window)
    press(qtbot, window, Qt.Key.Key_4)
    assert window.current_view() == "script"
    window.menus.settingsAction.trigger()
    assert window.current_view() == "settings"


def test_file_menu_reaches_the_pages(qtbot, window, monkeypatch):
    browsed = []
    monkeypatch.setattr(window.cloneView.reference, "browse", lambda: browsed.append("clip"))
    window.show_view("voices")
    window.menus.importClipAction.trigger()
    assert window.current_view() == "clone" and browsed == ["clip"]
    monkeypatch.setattr(window.scriptView, "new_script", lambda: browsed.append("script"))
    window.menus.newScriptAction.trigger()
    assert window.current_view() == "script" and browsed[-1] == "script"
    window.menus.exportAction.trigger()  # nothing selected: a sentence, no dialog
    assert "Select a take" in window.statusBarWidget.messageLabel.text()
    window.menus.fileMenu.aboutToShow.emit()  # greyed in the open menu, not for the key
    assert not window.menus.exportAction.isEnabled()
    window.menus.fileMenu.aboutToHide.emit()
    assert window.menus.exportAction.isEnabled()


def test_deleted_takes_come_back_with_ctrl_z_in_any_view(qtbot, window, data_writer, controller):
    keep = add(data_writer, "Keep me.", seed=1, batch="a")
    gone = add(data_writer, "Delete me.", seed=2, batch="b")
    panel = window.takesPanel
    panel.refresh()
    shown(qtbot, window)
    panel.select_ids([gone.id])
    panel.deleteButton.click()
    assert [t.id for t in panel.model.takes()] == [keep.id]
    window.show_view("voices")  # the undo used to go with the view (and a 10 s timer)
    assert panel.undoBar.isVisible()
    window.menus.editMenu.aboutToShow.emit()
    assert window.menus.undoAction.text() == "&Undo Delete 1 take"
    window.menus.editMenu.aboutToHide.emit()
    press(qtbot, window, Qt.Key.Key_Z)
    assert controller.named("undelete_takes") == [("undelete_takes", (gone.id,))]
    assert {t.id for t in panel.model.takes()} == {keep.id, gone.id}
    assert not panel.undoBar.isVisible()
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
          | Qt.KeyboardModifier.ShiftModifier)  # redo deletes it again
    assert [t.id for t in panel.model.takes()] == [keep.id]


def test_the_undo_bar_stays_until_the_next_destructive_edit(qtbot, window, data_writer):
    first, second = add(data_writer, "One.", batch="a"), add(data_writer, "Two.", batch="b")
    panel = window.takesPanel
    panel.refresh()
    shown(qtbot, window)
    panel.select_ids([first.id])
    panel.delete_selected()
    assert panel.undoBar.isVisible() and not panel.undoBar.findChildren(QTimer)  # no 10 s limit
    panel.select_ids([second.id])
    panel.delete_selected()
    assert panel.undoBar.isVisible() and panel.undoBar.text() == "Deleted 1 take."
    window.undoStack.undo()  # the bar's Undo meant the second deletion: now it is gone
    assert not panel.undoBar.isVisible()
    assert [t.id for t in panel.model.takes()] == [second.id]
    window.undoStack.undo()  # and Edit ▸ Undo still reaches the first one
    assert len(panel.model.takes()) == 2


def test_use_these_settings_says_what_it_did_and_is_undone(qtbot, window, data_writer):
    take = add(data_writer, "The take's words.", seed=1234, instruct="female, low pitch")
    form = window.designView.form
    form.set_text("My own words, typed before.")
    form.seedLock.setChecked(False)
    panel = window.takesPanel
    panel.refresh()
    panel.select_ids([take.id])
    assert panel.copyButton.text() == "Use settings"
    panel.copyButton.click()
    assert form.text() == "The take's words." and form.seedLock.isChecked()
    said = window.statusBarWidget.messageLabel.text()
    assert "Design form" in said and "variation locked" in said and "Undo" in said
    shown(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Z)
    assert form.text() == "My own words, typed before." and not form.seedLock.isChecked()
    press(qtbot, window, Qt.Key.Key_Y)
    assert form.text() == "The take's words." and form.seedSpin.value() == 1234


def test_use_settings_undo_gives_the_voice_design_back_too(qtbot, window, data_writer):
    take = add(data_writer, "The take's words.", seed=5, instruct="female, low pitch")
    attributes = window.designView.attributes
    attributes.set_description("an old man")
    mine = (attributes.description(), attributes.instruct())
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.copy_settings()
    assert attributes.instruct() == "female, low pitch"
    window.undoStack.undo()
    assert (attributes.description(), attributes.instruct()) == mine
    attributes.clear()
    attributes.set_selection({"gender": "male"})
    mine = (attributes.description(), attributes.instruct())
    window.takesPanel.copy_settings()
    window.undoStack.undo()
    assert (attributes.description(), attributes.instruct()) == mine


def test_clearing_the_voice_design_is_undone(qtbot, window):
    attributes = window.designView.attributes
    attributes.set_description("an old man with a deep voice")
    attributes.set_selection({"gender": "male", "age": "elderly"})
    before = (attributes.description(), attributes.instruct())
    attributes.clearButton.click()
    assert attributes.description() == "" and attributes.selection().get("gender") in (None, "")
    shown(qtbot, window)
    window.show_view("design")
    press(qtbot, window, Qt.Key.Key_Z)
    assert (attributes.description(), attributes.instruct()) == before
    press(qtbot, window, Qt.Key.Key_Y)
    assert attributes.description() == ""


def test_a_failed_clip_load_replaces_nothing_in_the_window(qtbot, window, tmp_path, speech):
    from studio.sound.files import write_audio_atomic

    good = tmp_path / "good.wav"
    write_audio_atomic(good, speech(3.0), 24000)
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF\x00\x00not audio")
    panel = window.cloneView.reference
    panel.set_reference(good)
    panel.refTextEdit.setPlainText("What the good clip says.")
    depth = window.undoStack.count()
    assert not panel.set_reference(broken)
    assert panel.reference() == good and panel.transcript() == "What the good clip says."
    assert window.undoStack.count() == depth  # nothing happened, nothing to undo


@pytest.fixture
def mia(tmp_path):
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary() as library:
        clip = write_clip(tmp_path / "mia.wav", 2.0)
        yield library.create("Mia", clip, make_prompt(text="Hello there."), language="en")


def test_deleting_a_voice_a_script_uses_names_the_script_and_undo_brings_it_back(
        qtbot, window, controller, mia, tmp_path):
    script = tmp_path / "breakfast.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    window.scriptView.open(script)
    project = window.scriptView.project
    project.set_voice(project.speaker("Bob").id, "voice", voice="Mia")
    voices = window.voicesView
    voices.refresh(select=mia.id)
    asked = []
    voices.confirm = lambda title, text: asked.append(text) or False
    voices.deleteButton.click()
    assert asked and "'Mia'" in asked[0] and "the script 'breakfast' (Bob)" in asked[0]
    assert controller.named("delete_voice") == []  # said no: nothing deleted
    voices.confirm = lambda title, text: True
    voices.deleteButton.click()
    assert controller.named("delete_voice") == [("delete_voice", mia.id)]
    shown(qtbot, window)
    window.show_view("voices")
    press(qtbot, window, Qt.Key.Key_Z)
    assert controller.named("undelete_voice") == [("undelete_voice", mia.id)]


def test_ctrl_z_in_a_lone_voices_view_undeletes(qtbot, mia):
    from studio.views.voices_view import VoicesView

    view = VoicesView(FakePlayer())
    qtbot.addWidget(view)
    view.refresh(select=mia.id)
    view.show()
    qtbot.waitExposed(view)
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow)
    view.deleteButton.click()
    view.list.setFocus()
    with qtbot.waitSignal(view.undelete_requested) as restored:
        qtbot.keyClick(view.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert restored.args == [mia.id]
    view.close_library()


def test_on_the_script_page_undo_is_the_projects(qtbot, window, data_writer, tmp_path):
    script = tmp_path / "breakfast.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    window.scriptView.open(script)
    take = add(data_writer, "A take.", batch="a")
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.delete_selected()  # on the window's stack
    shown(qtbot, window)
    window.show_view("script")
    view = window.scriptView
    view.project.add_line(view.project.speaker("Alice").id, "A third line.")
    view._refresh()
    assert len(view.project.lines()) == 3
    press(qtbot, window, Qt.Key.Key_Z)
    assert len(view.project.lines()) == 2  # the project's edit, not the take
    assert window.takesPanel.model.takes() == []
    filter_button = window.takesPanel.starredButton  # in the takes panel: the window's edits
    filter_button.setFocus()
    qtbot.keyClick(filter_button, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(window.takesPanel.model.takes()) == 1


def delete_mia_for_bob(qtbot, window, controller, mia, tmp_path):
    """Bob speaks in Mia's saved voice; Mia is deleted on the Voices page (as the worker
    would, in the library too) and the user goes to the Script page."""
    from studio.library.voices import VoiceLibrary

    script = tmp_path / "breakfast.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    window.scriptView.open(script)
    project = window.scriptView.project
    project.set_voice(project.speaker("Alice").id, "design", instruct="female, low pitch")
    project.set_voice(project.speaker("Bob").id, "voice", voice="Mia")
    shown(qtbot, window)
    window.show_view("voices")
    window.voicesView.refresh(select=mia.id)
    window.voicesView.confirm = lambda title, text: True
    window.voicesView.deleteButton.click()
    with VoiceLibrary() as library:
        library.delete(mia.id, undoable=True)
    window.show_view("script")
    return window.scriptView


def edit_menu_undo(window) -> str:
    window.menus.editMenu.aboutToShow.emit()
    text = window.menus.undoAction.text() if window.menus.undoAction.isEnabled() else ""
    window.menus.editMenu.aboutToHide.emit()
    return text


def test_a_voice_deleted_last_is_undone_from_the_script_page(
        qtbot, window, controller, mia, tmp_path):
    from studio.library.voices import VoiceLibrary

    view = delete_mia_for_bob(qtbot, window, controller, mia, tmp_path)
    assert edit_menu_undo(window) == "&Undo Delete the voice 'Mia'"  # was greyed out
    view.renderAllButton.click()
    assert view.notice.text() == ("Bob's saved voice 'Mia' is not in your voices; pick another "
                                  "voice for them, or bring it back with Edit ▸ Undo (Ctrl+Z).")
    press(qtbot, window, Qt.Key.Key_Z)
    assert controller.named("undelete_voice") == [("undelete_voice", mia.id)]
    assert len(view.project.lines()) == 2  # the script's own history untouched
    with VoiceLibrary() as library:  # as the worker does, and says
        library.undelete(mia.id)
    window.voicesView.refresh()
    view.voices_changed()
    assert view.notice.text() == ""  # the voice is back: no sentence says it is missing
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
          | Qt.KeyboardModifier.ShiftModifier)  # and Redo deletes it again
    assert controller.named("delete_voice") == [("delete_voice", mia.id)] * 2


def test_a_script_edit_after_the_voice_deletion_is_undone_first(
        qtbot, window, controller, mia, tmp_path):
    view = delete_mia_for_bob(qtbot, window, controller, mia, tmp_path)
    view.project.add_line(view.project.speaker("Alice").id, "A third line.")
    view._refresh()
    assert edit_menu_undo(window) == "&Undo script edit"
    view.renderAllButton.click()  # Undo would take the line back first: not promised
    assert view.notice.text() == ("Bob's saved voice 'Mia' is not in your voices; pick another "
                                  "voice for them.")
    press(qtbot, window, Qt.Key.Key_Z)
    assert len(view.project.lines()) == 2 and controller.named("undelete_voice") == []
    assert edit_menu_undo(window) == "&Undo Delete the voice 'Mia'"  # then the voice
    press(qtbot, window, Qt.Key.Key_Z)
    assert controller.named("undelete_voice") == [("undelete_voice", mia.id)]
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
          | Qt.KeyboardModifier.ShiftModifier)  # Redo goes forward in the same order
    assert controller.named("delete_voice") == [("delete_voice", mia.id)] * 2
    assert len(view.project.lines()) == 2
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
          | Qt.KeyboardModifier.ShiftModifier)
    assert len(view.project.lines()) == 3


def test_the_shortcuts_sheet_is_read_from_the_real_keys(qtbot, window):
    window.show_view("clone")
    dialog = window.menus.show_shortcuts()
    qtbot.addWidget(dialog)
    rows = dialog.rows()
    keys = {(where, key) for where, key, _what in rows}
    for expected in (("File menu", "Ctrl+Q"), ("Edit menu", "Ctrl+Z"), ("View menu", "Ctrl+3"),
                     ("Takes", "Space"), ("Takes", "S"), ("Takes", "F2"), ("Takes", "Del"),
                     ("Clone", "Ctrl+Return or Ctrl+Enter"), ("Clone", "Esc"),
                     ("Script", "Alt+1"), ("Script", "Alt+9"), ("Script", "Ctrl+R")):
        assert expected in keys, expected
    assert all(what for _where, _key, what in rows), [r for r in rows if not r[2]]
    # Generated, not a list kept by hand: a new key shows up by itself.
    extra = QShortcut(QKeySequence("Ctrl+Alt+K"), window.voicesView)
    extra.setWhatsThis("Do a new thing")
    assert ("Voices", "Ctrl+Alt+K", "Do a new thing") in window.menus.show_shortcuts().rows()
    # One owner per key: the pages' own Ctrl+Z stepped aside for Edit ▸ Undo.
    owners = [s for s in window.findChildren(QShortcut) if s.isEnabled()
              and QKeySequence("Ctrl+Z") in s.keys()]
    assert owners == []
    assert QApplication.instance() is not None


def test_picking_a_saved_voice_over_a_clip_is_one_undo_step(qtbot, window, mia, tmp_path, speech):
    from studio.sound.files import write_audio_atomic

    mine = tmp_path / "mine.wav"
    write_audio_atomic(mine, speech(3.0), 24000)
    clone = window.cloneView
    clone.reference.set_reference(mine)
    clone.reference.refTextEdit.setPlainText("What my clip says.")
    clone.voices.refresh()
    clone.pick_voice(mia.id)
    assert clone.reference.transcript() == "Hello there."
    window.menus.editMenu.aboutToShow.emit()
    assert window.menus.undoAction.text() == "&Undo Use the voice 'Mia'"
    window.menus.editMenu.aboutToHide.emit()
    window.undoStack.undo()
    assert clone.reference.reference() == mine
    assert clone.reference.transcript() == "What my clip says."
    assert clone.reference.refPathEdit.text() == str(mine)
    window.undoStack.redo()
    assert clone.reference.refPathEdit.text() == "Saved voice: Mia"
