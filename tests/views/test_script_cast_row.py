"""The Script view's "Voice of" row holds still while a person works in it (review 5,
item 4): at 1024x640 the description box dropped to a row of its own once the first
speaker had a description ("Variation locked", now "Same variation each render",
appeared beside it), so the next click landed on nothing and the second speaker's
description was typed into nowhere."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QPushButton
from studio_fakes import fake_window

from studio.views.script_reflow import ReflowRow

DIALOGUE = "Anna: Good morning, Ben. Did you bring the map?\nBen: I did.\nAnna: Good.\n"


def script_window(qtbot, tmp_path, size):
    """The studio's window on fakes at ``size``, its Script view with Anna and Ben."""
    window = fake_window(qtbot, tmp_path, size=size)
    window.show_view("script")
    script = tmp_path / "scene.txt"
    script.write_text(DIALOGUE, encoding="utf-8")
    window.scriptView.open(script)
    QApplication.processEvents()
    return window, window.scriptView


def click_and_type(qtbot, window, at: QPoint, text: str) -> None:
    """A click at ``at`` (window coordinates) on whatever is there, then typing and Return."""
    target = window.childAt(at)
    assert target is not None, f"nothing at {at}"
    qtbot.mouseClick(target, Qt.MouseButton.LeftButton, pos=target.mapFrom(window, at))
    focus = QApplication.focusWidget()
    qtbot.keyClicks(focus, text)
    qtbot.keyClick(focus, Qt.Key.Key_Return)


def choose_in_cast(qtbot, view, row: int) -> None:
    table = view.cast.table
    rect = table.visualRect(table.model().index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_the_second_speakers_description_lands_where_the_box_was(qtbot, tmp_path, size):
    window, view = script_window(qtbot, tmp_path, size)
    choose_in_cast(qtbot, view, 0)
    box = view.instructEdit
    where = box.mapTo(window, box.rect().center())
    click_and_type(qtbot, window, where, "female, young adult, british accent")
    anna, ben = view.project.speakers()
    assert view.project.speakers()[0].instruct == "female, young adult, british accent"
    assert view.seedLabel.text() == "Same variation each render"
    choose_in_cast(qtbot, view, 1)
    assert view.speakerCombo.currentData() == ben.id
    QApplication.processEvents()
    click_and_type(qtbot, window, where, "male, middle-aged, low pitch")
    assert view.project.speakers()[1].instruct == "male, middle-aged, low pitch", \
        f"the box moved from {where} to {box.mapTo(window, box.rect().center())}"
    window.scriptView.close_project()


def test_a_row_that_stacked_does_not_lie_flat_again_when_a_text_gets_shorter(qtbot):
    """Hysteresis: text that comes and goes (a count, a label) stacks a row at most once;
    only more width lays it flat again."""
    edit, label = QLineEdit(), QLabel("")
    row = ReflowRow((QPushButton("Voice of"),), (edit, label), grow=(edit,))
    qtbot.addWidget(row)
    row.show()
    width = row.needed_width() + 20
    row.resize(width, 60)
    QApplication.processEvents()
    assert not row.stacked()
    label.setText("A label far too long to fit beside the others in this row")
    row.reflow()
    assert row.stacked()
    label.setText("")
    row.reflow()
    assert row.stacked(), "the row jumped back while the width stayed the same"
    row.resize(width + 2000, 60)
    QApplication.processEvents()
    assert not row.stacked(), "wide enough: side by side"
