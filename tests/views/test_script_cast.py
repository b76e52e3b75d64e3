"""Issue 25, finding 5 (the cast): who voices whom was shown one speaker at a time in a
picker, and a deleted voice only inside it. Now a cast panel lists every speaker with
colour, voice, lines and a preview; the lines table shows each line's voice; a deleted
voice is marked in both."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from studio.views.script_cast import NAME, PREVIEW, VOICE
from studio.views.script_lines_model import VOICE as LINE_VOICE
from studio.views.script_view import ScriptView
from tests.library.library_helpers import make_prompt, write_clip

SHOTS = Path(__file__).resolve().parents[2] / "out" / "views"
DIALOGUE = "Mia: Good morning.\nBob: Morning, Mia.\nMia: Coffee?\n"


@pytest.fixture
def mia(tmp_path, voice_writer):
    clip = write_clip(tmp_path / "mia.wav", 2.0)
    return voice_writer.create("Mia", clip, make_prompt(text="Hello there."), language="en")


@pytest.fixture
def view(qtbot, tmp_path, reader, player, mia):
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show()
    qtbot.waitExposed(view)
    script = tmp_path / "breakfast.txt"
    script.write_text(DIALOGUE, encoding="utf-8")
    view.open(script)  # Mia is named like the saved voice: she gets it at import
    view.speakerCombo.setCurrentIndex(view.speakerCombo.findText("Bob"))
    view.instructEdit.setText("male, low pitch")
    view.instructEdit.editingFinished.emit()
    yield view
    view.close_project()
    view.close_library()


def cast_cells(view, column) -> list[str]:
    table = view.cast.table
    return [table.item(r, column).text() for r in range(table.rowCount())]


def line_voices(view) -> list[str]:
    return [view.model.index(r, LINE_VOICE).data() for r in range(view.model.rowCount())]


def test_the_cast_lists_every_speaker_with_its_voice_and_lines(view):
    assert view.cast.isVisible()
    assert cast_cells(view, NAME) == ["Mia", "Bob"]
    assert cast_cells(view, VOICE) == ["Saved voice: Mia", "Described: male, low pitch"]
    assert cast_cells(view, 2) == ["2", "1"]
    assert line_voices(view) == ["Saved voice: Mia", "Described: male, low pitch",
                                 "Saved voice: Mia"]
    view.cast.table.selectRow(0)
    assert view.speakerCombo.currentText() == "Mia", "a cast row is the speaker to edit"
    SHOTS.mkdir(parents=True, exist_ok=True)
    view.grab().save(str(SHOTS / "script_cast.png"))


def test_a_deleted_voice_is_marked_in_the_cast_and_the_table(qtbot, view, voice_writer, mia):
    voice_writer.delete(mia.id)
    view._refresh()
    assert cast_cells(view, VOICE)[0] == "⚠ Saved voice: Mia (deleted)"
    assert view.cast.table.item(0, VOICE).toolTip() == (
        "Mia's voice Mia is no longer in your voices; pick another voice for them.")
    assert view.cast.table.item(0, VOICE).foreground().color().name() == "#c62828"
    assert not view.cast.table.cellWidget(0, PREVIEW).isEnabled()
    assert line_voices(view)[0] == "⚠ Saved voice: Mia (deleted)"
    assert view.model.index(0, LINE_VOICE).data(Qt.ItemDataRole.ToolTipRole).startswith(
        "Mia's voice Mia is no longer")


def test_preview_plays_a_saved_voice_and_renders_a_described_one(qtbot, view, player):
    view.cast.table.cellWidget(0, PREVIEW).click()
    mia_id = view.project.speakers()[0].id
    assert ("load", ("cast", str(view.project.path), mia_id)) in player.calls
    assert player.state() == "playing"
    with qtbot.waitSignal(view.render_requested) as asked:
        view.cast.table.cellWidget(1, PREVIEW).click()
    assert [r.text for r in asked.args[0].lines] == ["Morning, Mia."], \
        "Bob has no take yet: his first line renders"


def test_the_voice_row_keeps_its_layout_between_saved_and_described_voices(qtbot, view):
    """The description box was hidden for a saved voice, so the row jumped (63_describe_combo)."""
    view.speakerCombo.setCurrentIndex(view.speakerCombo.findText("Bob"))
    described = view.instructEdit.geometry()
    assert view.instructEdit.isVisible() and view.instructEdit.isEnabled()
    view.speakerCombo.setCurrentIndex(view.speakerCombo.findText("Mia"))
    assert view.instructEdit.isVisible() and not view.instructEdit.isEnabled()
    assert view.instructEdit.placeholderText() == "Described by its saved voice"
    assert view.instructEdit.geometry() == described


def test_the_voice_box_shows_a_saved_voice_whole_or_names_it_in_its_tooltip(qtbot, tmp_path,
                                                                          voice_writer, view):
    """Review 6, item 4: the Voice of box read "Saved voice: Marga"."""
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    voice_writer.create("Margaret", write_clip(tmp_path / "m.wav", 2.0), make_prompt(text="Hi."))
    long_name = "Margaret from the second floor, reading slowly"
    voice_writer.create(long_name, write_clip(tmp_path / "l.wav", 2.0), make_prompt(text="Hi."))
    view.speakerCombo.setCurrentIndex(view.speakerCombo.findText("Mia"))
    combo = view.voiceCombo
    for name in ("Margaret", long_name):
        combo.activated.emit(combo.findText(f"Saved voice: {name}"))  # the person picks it
        qtbot.wait(20)
        assert combo.currentText() == f"Saved voice: {name}"
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                             QStyle.SubControl.SC_ComboBoxEditField, combo)
        whole = combo.fontMetrics().horizontalAdvance(combo.currentText()) <= field.width()
        if name == "Margaret":
            assert whole, (combo.currentText(), field.width())
        else:
            assert whole or long_name in combo.toolTip()
