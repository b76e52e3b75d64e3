"""A new line's text is empty, its grey hint painted and never stored (review 9, item 1:
a stored "…" stayed in front of what was typed after a click, so "Alice: Hello there"
became "…Alice: Hello there" and Alice was not recognised); an empty line is refused by
a render in one sentence; and the Script page at 1024x640 keeps its Voice column and a
project field hint that fits (review 9, item 12)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QStyleOptionViewItem
from script_fixtures import open_cast, open_dialogue
from studio_fakes import fake_window

from studio.views.script_columns import TEXT_LEAST, VOICE_NARROW
from studio.views.script_lines_model import EMPTY_LINE_HINT, EMPTY_LINE_TIP, TEXT, VOICE

NO_TEXT = "Line 2 has no text yet; type what it says, or delete it."


def add_line_after_the_first(view) -> QLineEdit:
    view.select_row(0)
    view.addLineButton.click()
    assert view.table.state() == QAbstractItemView.State.EditingState
    return view.table.viewport().findChild(QLineEdit)


def leave(qtbot, view, editor, key) -> None:
    """Enter or Escape in the cell's editor, and the editor closed (Qt closes it queued)."""
    qtbot.keyClick(editor, key)
    qtbot.waitUntil(lambda: view.table.state() != QAbstractItemView.State.EditingState)


def inked(view, row: int, column: int) -> int:
    """Pixels of the cell unlike its background: what is painted in it."""
    rect = view.table.visualRect(view.model.index(row, column)).adjusted(2, 2, -2, -2)
    image = view.table.viewport().grab(rect).toImage()
    background = image.pixelColor(1, 1)
    return sum(1 for x in range(image.width()) for y in range(image.height())
               if image.pixelColor(x, y) != background)


def test_a_new_lines_text_is_empty_and_its_hint_is_painted_not_stored(qtbot, tmp_path, reader,
                                                                      player):
    view, _said = open_dialogue(qtbot, tmp_path, reader, player)
    editor = add_line_after_the_first(view)
    assert editor.text() == "" and editor.placeholderText() == EMPTY_LINE_HINT
    leave(qtbot, view, editor, Qt.Key.Key_Escape)  # left as it is: still empty
    line = view.project.lines()[1]
    assert line.text == ""
    assert view.model.index(1, TEXT).data() == ""
    assert view.model.index(1, TEXT).data(Qt.ItemDataRole.ToolTipRole) == EMPTY_LINE_TIP
    view.select_row(0)  # the new line unselected: the hint in the cell's own colours
    qtbot.wait(50)
    assert inked(view, 1, TEXT) > 20, "the grey hint is painted in the empty cell"
    hint = view.table.itemDelegateForColumn(TEXT)
    option = QStyleOptionViewItem()
    hint.initStyleOption(option, view.model.index(1, TEXT))
    assert option.text == EMPTY_LINE_HINT
    assert option.palette.text().color() == view.table.palette().color(
        view.table.palette().ColorRole.PlaceholderText)

    path = view.project.path  # an empty line is kept: the project opens again
    view.close_project()
    view.pathEdit.setText(str(path))
    qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    assert [line.text for line in view.project.lines()][1] == ""
    assert not view.notice.is_error()
    view.close_project()


def test_a_name_typed_after_a_click_in_the_new_cell_sets_the_speaker(qtbot, tmp_path, reader,
                                                                     player):
    view, _said = open_dialogue(qtbot, tmp_path, reader, player)
    editor = add_line_after_the_first(view)
    qtbot.mouseClick(editor, Qt.MouseButton.LeftButton, pos=editor.rect().center())
    qtbot.keyClicks(editor, "Carol: Hello there")
    leave(qtbot, view, editor, Qt.Key.Key_Return)
    names = {s.id: s.name for s in view.project.speakers()}
    line = view.project.lines()[1]
    assert (names[line.speaker], line.text) == ("Carol", "Hello there")
    assert view.model.rows()[1].speaker == "Carol"
    view.close_project()


def test_rendering_an_empty_line_is_refused_in_one_sentence(qtbot, tmp_path, reader, player):
    view, _said = open_dialogue(qtbot, tmp_path, reader, player)
    view.close_project()
    open_cast(qtbot, view, tmp_path / "two.txt", "Alice: One.\nBob: Two.\n")
    editor = add_line_after_the_first(view)
    leave(qtbot, view, editor, Qt.Key.Key_Escape)
    with qtbot.assertNotEmitted(view.render_requested):
        view.renderAllButton.click()
    assert view.notice.text() == NO_TEXT and view.notice.is_error()
    view.close_project()


def test_exporting_a_new_scripts_empty_line_says_it_has_no_text(qtbot, tmp_path, reader,
                                                                 player, monkeypatch):
    """Not "render it before exporting": a render would refuse it too."""
    from studio.views import file_dialogs

    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *a, **k: (str(tmp_path / "play"), a[3]))
    view = open_dialogue(qtbot, tmp_path, reader, player)[0]
    view.close_project()
    view.newButton.click()  # a new script: one empty line, its cursor in it
    leave(qtbot, view, view.table.viewport().findChild(QLineEdit), Qt.Key.Key_Escape)
    view.exportEdit.setText(str(tmp_path / "play.wav"))
    view.export()
    assert view.notice.text() == NO_TEXT.replace("Line 2", "Line 1")
    assert not (tmp_path / "play.wav").exists()
    view.close_project()


def test_the_script_page_at_1024x640_keeps_its_voice_column_and_a_whole_hint(qtbot, tmp_path):
    window = fake_window(qtbot, tmp_path, size=(1024, 640))
    window.show_view("script")
    view = window.scriptView
    edit = view.pathEdit
    room = edit.contentsRect().width() - edit.textMargins().left() - edit.textMargins().right()
    assert edit.fontMetrics().horizontalAdvance(edit.placeholderText()) < room - 8
    assert ".vtt" in edit.toolTip(), "the whole wording in the tooltip"
    mix = view.exportEdit  # cut at "…or .mp3…" before (review 9, the script helper's note)
    room = mix.contentsRect().width() - mix.textMargins().left() - mix.textMargins().right()
    assert mix.fontMetrics().horizontalAdvance(mix.placeholderText()) < room - 8
    assert ".flac" in mix.toolTip() and ".m4b" in mix.toolTip()

    script = tmp_path / "talk.txt"
    script.write_text("Alice: Hello Bob, nice day.\nBob: It is indeed.\n", encoding="utf-8")
    edit.setText(str(script))
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    table, header = view.table, view.table.horizontalHeader()
    qtbot.waitUntil(lambda: view.model.rowCount() == 2)
    qtbot.wait(50)
    assert table.width() < 640, "the narrow table a 1024 px screen leaves"
    assert not table.isColumnHidden(VOICE)
    metrics = table.fontMetrics()
    assert header.sectionSize(VOICE) >= metrics.horizontalAdvance(VOICE_NARROW)
    assert header.sectionSize(TEXT) >= max(metrics.horizontalAdvance(TEXT_LEAST),
                                           table.viewport().width() // 4)
    assert header.length() <= table.viewport().width(), "every column inside the table"
    assert not table.horizontalScrollBar().isVisible()
    italic = table.font()
    italic.setItalic(True)
    assert QFontMetrics(italic).horizontalAdvance(EMPTY_LINE_HINT) < header.sectionSize(TEXT) - 8, \
        "a new line's hint whole in its cell"
    view.close_project()
