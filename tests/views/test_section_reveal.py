"""A folding section opened by the user scrolls into view (a new user's review: Advanced,
opened at the bottom of the Clone form at laptop size, opened below the fold and looked
as if nothing had happened)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget
from studio_fakes import fake_window

from studio.views.main_window import MainWindow
from studio.views.widgets.collapsible import CollapsibleSection


def shown_in(area, widget) -> tuple[int, int]:
    """The rows of ``widget`` that the scroll area's viewport shows (top, bottom)."""
    top = widget.mapTo(area.viewport(), QPoint(0, 0)).y()
    bottom = top + widget.height()
    return max(top, 0), min(bottom, area.viewport().height())


@pytest.fixture
def window(qtbot, tmp_path) -> MainWindow:
    """The studio's window at a small laptop's size."""
    return fake_window(qtbot, tmp_path, size=(1024, 640), asr_on_disk=lambda model: model)


def test_opening_advanced_at_a_laptop_size_scrolls_it_into_view(qtbot, window):
    form = window.cloneView.form
    section, area = form.advanced, form.scroll
    assert not section.is_expanded()
    area.verticalScrollBar().setValue(0)

    qtbot.mouseClick(section.button, Qt.MouseButton.LeftButton)

    body = section.body
    assert section.is_expanded() and body.isVisible()
    # Before: the body opened under the viewport's bottom edge, 0 rows of it in view.
    qtbot.waitUntil(lambda: shown_in(area, section.button)[1] > shown_in(area, section.button)[0]
                    and shown_in(area, body)[1] - shown_in(area, body)[0]
                    >= min(body.height(), area.viewport().height() - section.button.height()) - 8)
    assert area.verticalScrollBar().value() > 0


def test_a_section_folded_again_does_not_scroll(qtbot, window):
    form = window.cloneView.form
    form.advanced.set_expanded(True)  # restored state, not a click: no scrolling
    qtbot.wait(50)
    assert form.scroll.verticalScrollBar().value() == 0
    qtbot.mouseClick(form.advanced.button, Qt.MouseButton.LeftButton)  # folds it
    qtbot.wait(50)
    assert not form.advanced.is_expanded()
    assert form.scroll.verticalScrollBar().value() == 0


def test_a_section_taller_than_the_view_opens_with_its_heading_at_the_top(qtbot):
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.addSpacing(400)  # the section starts below the fold
    body = QWidget()
    body.setMinimumHeight(500)  # taller than the 200 px view
    section = CollapsibleSection("Tall", body)
    layout.addWidget(section)
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setWidget(page)
    area.resize(300, 200)
    qtbot.addWidget(area)
    area.show()
    qtbot.waitExposed(area)

    qtbot.mouseClick(section.button, Qt.MouseButton.LeftButton)

    # Centring the section (Qt's ensureWidgetVisible) would hide the heading above the view.
    qtbot.waitUntil(lambda: shown_in(area, section.button) == (
        section.button.mapTo(area.viewport(), QPoint(0, 0)).y(),
        section.button.mapTo(area.viewport(), QPoint(0, 0)).y() + section.button.height()))
    assert section.mapTo(area.viewport(), QPoint(0, 0)).y() == 0
