"""Add line adds a line for the speaker chosen in the cast (review 5, item 8: with Tom
chosen in the cast table it added a Narrator line), after the selected line, with the
cursor in its text; Enter on the lines keeps the selected line's speaker."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView
from script_fixtures import open_dialogue

from studio.views.script_lines_model import TEXT


def speaker_names(view) -> list[str]:
    names = {s.id: s.name for s in view.project.speakers()}
    return [names[line.speaker] for line in view.project.lines()]


def test_add_line_speaks_in_the_voice_chosen_in_the_cast(qtbot, tmp_path, reader, player):
    view, _said = open_dialogue(qtbot, tmp_path, reader, player)
    assert speaker_names(view) == ["Alice", "Bob", "Alice", "Bob"]
    view.select_row(0)  # an Alice line is the current one
    table = view.cast.table
    bob_row = next(r for r, e in enumerate(view.cast.entries) if e.name == "Bob")
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualRect(table.model().index(bob_row, 0)).center())
    assert view.speakerCombo.currentText() == "Bob"
    view.addLineButton.click()
    assert speaker_names(view) == ["Alice", "Bob", "Bob", "Alice", "Bob"], \
        "a Bob line, after the selected line"
    assert view.table.currentIndex().row() == 1
    assert view.table.state() == QAbstractItemView.State.EditingState, "the cursor in its text"
    assert view.table.currentIndex().column() == TEXT
    view.close_project()


def test_enter_on_the_lines_keeps_the_selected_lines_speaker(qtbot, tmp_path, reader, player):
    view, _said = open_dialogue(qtbot, tmp_path, reader, player)
    view.speakerCombo.setCurrentIndex(view.speakerCombo.findText("Bob"))
    view.select_row(2)  # Alice's second line
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert speaker_names(view) == ["Alice", "Bob", "Alice", "Alice", "Bob"]
    view.close_project()


def test_typing_a_name_and_a_colon_in_a_new_line_makes_the_speaker(qtbot, tmp_path, reader,
                                                                   player, monkeypatch):
    """Review 8, item 10: "Alice: Hello" typed into a new script's line stayed the
    Narrator's text; now Alice speaks "Hello", she is in the cast (the unused voiceless
    Narrator gone) and the speaker row shows her, ready for a voice."""
    from PySide6.QtWidgets import QLineEdit

    from studio.views import file_dialogs

    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *a, **k: (str(tmp_path / "play"), a[3]))
    view = open_dialogue(qtbot, tmp_path, reader, player)[0]
    view.close_project()
    view.newButton.click()
    assert view.table.state() == QAbstractItemView.State.EditingState
    editor = view.table.viewport().findChild(QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, "Alice: Hello")
    with qtbot.waitSignal(view.message) as said:
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert speaker_names(view) == ["Alice"]
    assert [s.name for s in view.project.speakers()] == ["Alice"]
    assert view.project.lines()[0].text == "Hello"
    assert view.model.rows()[0].speaker == "Alice"
    assert view.speakerCombo.currentText() == "Alice"
    assert said.args[0].startswith("Alice joined the cast")
    view.undo()
    assert speaker_names(view) == ["Narrator"] and view.project.lines()[0].text == ""
    view.close_project()
