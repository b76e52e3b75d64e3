"""A new user's review (s4): the Compare window never got the keyboard (Tab and Space
went to the main window and deleted takes); the takes of one batch could not be told
apart (same title, the number cut off, Compare and the blind reveal naming only the
text, two numbering schemes); restored details opened scrolled down; the Judgements
heading folded only on its words; "Matched to 2.7 LUFS" and "▲ ✗ Sound 9"."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QLabel
from studio_fakes import PLAYABLE
from take_fixtures import add, add_judged, voice

from studio.judges.scores import BAD, OK
from studio.views.ab_judgements import better_side
from studio.views.ab_view import ABDialog, ABView
from studio.views.takes_panel import TakesPanel
from studio.views.widgets.collapsible import CollapsibleSection


@pytest.fixture
def pair(writer):
    """Two takes of one Generate: the same text, A 12 dB louder than B."""
    loud = add(writer, "Compare us.", seed=1, audio=voice(2.0, amplitude=0.4))
    quiet = add(writer, "Compare us.", seed=2, audio=voice(2.0, amplitude=0.1, freq=220))
    return loud, quiet


def open_compare(qtbot, player, controller, reader, pair) -> tuple[TakesPanel, ABDialog]:
    panel = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    panel.select_ids([t.id for t in pair])
    panel.deleteButton.setFocus()  # where the user's Tab had walked to
    panel.compare()
    return panel, panel.findChild(ABDialog)


def test_compare_takes_the_keyboard_and_keeps_it_from_the_main_window(
        qtbot, player, controller, reader, pair):
    panel, dialog = open_compare(qtbot, player, controller, reader, pair)
    qtbot.waitUntil(dialog.isActiveWindow)
    assert QApplication.focusWidget() is dialog.view, "the comparison has the keys"
    # Modal to the window behind: its Delete can neither be focused nor pressed from here.
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    assert QApplication.activeModalWidget() is dialog
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_B)
    assert dialog.view.current_side() == 1
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert dialog.view.current_side() == 0 and QApplication.focusWidget() is dialog.view
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert player.state() == "playing"
    assert len(panel.model.takes()) == 2
    # Raised again after the focus went elsewhere: the keys come back to the comparison.
    dialog.view.blindCheck.setFocus()
    panel.activateWindow()
    dialog.take_keyboard()
    qtbot.waitUntil(dialog.isActiveWindow)
    assert dialog.view.isAncestorOf(QApplication.focusWidget())


def test_the_tiles_and_the_reveal_name_the_take_by_its_batch_position(
        qtbot, player, controller, reader, pair):
    panel, dialog = open_compare(qtbot, player, controller, reader, pair)
    view = dialog.view
    tiles = [label.text() for label in view.sideLabels]
    assert tiles[0].startswith("Take 1/2 at ") and tiles[1].startswith("Take 2/2 at ")
    assert "Compare us." not in " ".join(tiles), "the same text twice tells nothing apart"
    view.set_blind(True)
    assert "Take" not in " ".join(label.text() for label in view.sideLabels)
    view.pick(0)
    x = view.take_on(0)
    number = 1 if x.id == pair[0].id else 2
    assert view.result.text().startswith(f"X was Take {number}/2 at ")
    assert view.sideLabels[0].text().startswith(f"Take {number}/2 at ")


def test_one_numbering_on_the_card_and_in_the_details(qtbot, player, controller, reader,
                                                      pair):
    panel, _dialog = open_compare(qtbot, player, controller, reader, pair)
    panel.select_ids([pair[1].id])
    info = panel.detail.infoLabel.text()
    assert info.startswith("Take 2/2 · ") and info.count("Take") == 1, info


def test_a_restored_open_judgement_leaves_the_details_at_the_top(qtbot, player, controller,
                                                                 writer, reader):
    for seed in (1, 2, 3):
        add_judged(writer, "The quick brown fox jumps over the lazy dog.", seed)
    panel = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    panel.resize(360, 420)
    panel.show()
    qtbot.waitExposed(panel)
    section = panel.detail.judgementsSection
    bar = panel.detail.scroll.verticalScrollBar()
    section.set_expanded(True)  # as a restart restores it
    qtbot.wait(50)
    assert bar.maximum() > 0 and bar.value() == 0, "the title and Play stay in sight"
    section.set_expanded(False)
    section.button.click()  # the user opens it: brought into sight
    qtbot.waitUntil(lambda: bar.value() > 0)


def test_a_click_anywhere_on_the_heading_row_folds_the_section(qtbot):
    section = CollapsibleSection("Judgements · score 29", QLabel("body"))
    qtbot.addWidget(section)
    section.resize(400, 120)
    section.show()
    qtbot.waitExposed(section)
    opened = []
    section.clicked.connect(opened.append)
    beside = QPoint(section.button.geometry().right() + 40, section.button.geometry().center().y())
    assert section.childAt(beside) is None or section.childAt(beside) is section
    qtbot.mouseClick(section, Qt.MouseButton.LeftButton, pos=beside)
    assert section.is_expanded() and opened == [True]
    qtbot.mouseClick(section.button, Qt.MouseButton.LeftButton)  # on the words
    assert not section.is_expanded() and opened == [True, False]
    below = QPoint(10, section.button.geometry().bottom() + 20)  # the body: no fold
    section.set_expanded(True)
    qtbot.mouseClick(section, Qt.MouseButton.LeftButton, pos=below)
    assert section.is_expanded()


def test_the_level_says_what_was_turned_down_not_a_lufs_figure(qtbot, player, controller,
                                                                reader, pair):
    view = ABView(player, controller, reader, pair, names=("one", "two"),
                  rng=random.Random(1))
    qtbot.addWidget(view)
    text = view.loudnessLabel.text()
    assert "LUFS" not in text and text.startswith("A turned down 1") and text.endswith(" dB to match")
    assert "A " in view.loudnessLabel.toolTip() and "LUFS" in view.loudnessLabel.toolTip()
    view.set_blind(True)
    assert view.loudnessLabel.text() == "Both play at the same loudness"
    assert view.loudnessLabel.toolTip() == ""


def test_no_better_marker_on_a_row_both_sides_fail():
    assert better_side(0.09, 0.07, (BAD, BAD)) is None  # "▲ ✗ Sound 9" read as praise
    assert better_side(0.09, 0.70, (BAD, OK)) == 1
    assert better_side(0.41, 0.39) == 0  # the score row has no verdict



def test_two_single_takes_of_one_minute_are_told_apart_to_the_second(writer):
    import dataclasses

    from studio.views.takes_model import Row

    take = add(writer, "Alone.", seed=1, batch="one")
    early = Row(dataclasses.replace(take, created="2026-12-05T09:20:05+00:00"), 1, 1, 1)
    late = Row(dataclasses.replace(take, created="2026-12-05T09:20:41+00:00"), 2, 1, 1)
    assert early.identity() == late.identity() and early.identity().startswith("Take at ")
    assert early.identity(seconds=True).endswith(":05")
    assert late.identity(seconds=True).endswith(":41")
    named = Row(dataclasses.replace(take, name="Intro"), 3, 2, 3)
    assert named.identity().startswith("Intro (take 2/3 at ")
