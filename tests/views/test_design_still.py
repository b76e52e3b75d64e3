"""Review 2 (new user), item 11: picking a Gender hid the empty line under the
description, the page's scroll bar went and every picker moved up about 10 px, so the
next click (Age) landed somewhere else. Picking leaves the pickers where they were."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from studio_fakes import fake_window


def _places(window) -> dict[str, QRect]:
    """Where each picker is on screen (window coordinates)."""
    return {key: QRect(combo.mapTo(window, combo.rect().topLeft()), combo.size())
            for key, combo in window.designView.attributes.combos.items()}


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_picking_an_attribute_leaves_the_pickers_where_they_were(qtbot, tmp_path, size):
    window = fake_window(qtbot, tmp_path, size=size)
    window.show_view("design")
    attributes = window.designView.attributes
    qtbot.wait(100)
    before = _places(window)
    gender = attributes.combos["gender"]
    gender.setCurrentIndex(gender.findText("Female"))
    qtbot.wait(100)
    assert attributes.instruct() == "female"
    assert _places(window) == before
    gender.setCurrentIndex(0)  # and back to —: still there
    qtbot.wait(100)
    assert _places(window) == before


def test_the_description_feedback_keeps_its_line_when_it_has_nothing_to_say(qtbot, tmp_path):
    window = fake_window(qtbot, tmp_path, size=(1366, 768))
    window.show_view("design")
    attributes = window.designView.attributes
    qtbot.wait(100)
    age = attributes.combos["age"]
    before = age.mapTo(window, age.rect().topLeft())
    attributes.set_description("an old man")  # one line of feedback: the same room
    qtbot.wait(100)
    assert "Understood" in attributes.feedback.text()
    assert age.mapTo(window, age.rect().topLeft()) == before
    attributes.set_description("")  # nothing to say again: its line stays
    qtbot.wait(100)
    assert attributes.feedback.text() == ""
    assert age.mapTo(window, age.rect().topLeft()) == before


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_a_pick_beside_a_description_leaves_the_pickers_where_they_were(qtbot, tmp_path, size):
    """The picks a description did not set are named under the pickers: named above them,
    in the description's feedback, a second line pushed every picker down."""
    window = fake_window(qtbot, tmp_path, size=size)
    window.show_view("design")
    attributes = window.designView.attributes
    attributes.set_description("an old woman with a british accent")
    qtbot.wait(100)
    before = _places(window)
    pitch = attributes.combos["pitch"]
    pitch.setCurrentIndex(pitch.findText("Low"))
    qtbot.wait(100)
    assert "low pitch" in attributes.keptNote.text()
    assert _places(window) == before
