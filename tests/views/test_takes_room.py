"""The takes list keeps room for several takes while a judgement is read (issue 28's
new-user review): seen on Xvfb at 1024x640, the open Judgements section shrank the list
to about one card. The details above the action buttons now scroll inside themselves."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from studio_fakes import fake_window
from take_fixtures import add_judged

ASKED = "The quick brown fox jumps over the lazy dog."
CARDS = 3  # "several takes": at least this many whole cards stay in sight


def whole_cards(panel) -> int:
    """How many cards the list shows whole."""
    view = panel.list.viewport().rect()
    return sum(1 for row in range(panel.model.rowCount())
               if view.contains(panel.list.visualRect(panel.model.index(row))))


def on_screen(widget, clip) -> QRect:
    """The part of ``widget`` not scrolled out of ``clip`` (a scroll area's viewport)."""
    top_left = widget.mapTo(clip, QPoint(0, 0))
    return QRect(top_left, widget.size()).intersected(clip.rect())


def shown_window(qtbot, tmp_path, size):
    """The studio's window on fakes, shown at ``size``, reading the data folder's takes."""
    return fake_window(qtbot, tmp_path, size=size)


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_several_takes_stay_in_sight_while_a_judgement_is_read(qtbot, tmp_path, size):
    from studio.library.takes import TakeLibrary

    with TakeLibrary() as library:  # the data folder's, which the window reads
        for seed in range(1, 7):
            add_judged(library, ASKED, seed, "six", heard="the quick fox jumps over a dog")
    window = shown_window(qtbot, tmp_path, size)
    panel = window.takesPanel
    section = panel.detail.judgementsSection
    section.button.click()  # the user opens it (a restored state does not scroll)
    qtbot.wait(50)  # the layout settles and the details scroll to the judgement
    assert window.height() <= size[1]
    assert whole_cards(panel) >= CARDS, f"{whole_cards(panel)} whole card(s) in sight"
    # The judgement is in sight, its heading and a few lines of it, without scrolling.
    viewport = panel.detail.scroll.viewport()
    assert on_screen(section.button, viewport).height() == section.button.height()
    line = section.browser.fontMetrics().lineSpacing()
    assert on_screen(section.browser, viewport).height() >= 4 * line
    # The actions stay put below the scrolling details.
    for button in (panel.rerenderButton, panel.deleteButton):
        assert button.isVisible() and not panel.detail.scroll.isAncestorOf(button)


@pytest.mark.parametrize("size", [(1366, 768), (1280, 800)])
@pytest.mark.parametrize("later", [False, True], ids=["listed", "arriving"])
def test_the_details_scroll_only_when_the_list_is_down_to_its_floor(qtbot, tmp_path, size,
                                                                    later):
    """At 1366x768 (and 1280x800, the journeys' screen) with the judgement folded, the
    details fit whole: the list takes what is left over, not room the details then have to
    scroll for -- also when the takes arrive after the window is up (a render's), which
    grows the details (the Judgements heading appears)."""
    from studio.library.takes import TakeLibrary

    def four(library):
        for seed in range(1, 5):
            add_judged(library, ASKED, seed, "four")

    with TakeLibrary() as library:
        if not later:
            four(library)
        window = shown_window(qtbot, tmp_path, size)
        qtbot.wait(50)
        if later:
            four(library)
            window.takesPanel.refresh()
            qtbot.wait(50)
    assert window.height() == size[1]
    panel = window.takesPanel
    assert panel.detail.judgementsSection.isVisible()
    assert not panel.detail.judgementsSection.is_expanded()
    assert panel.detail.scroll.verticalScrollBar().maximum() == 0, "the details scroll"
    assert whole_cards(panel) >= CARDS
