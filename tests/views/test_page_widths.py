"""No page is cut off on the right: the Clone and Design pages (Advanced open) fit the
narrowest view the window allows beside the takes panel, and a ReflowRow stacks its
parts when they do not fit side by side."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QScrollArea, QStyle, QWidget
from studio_fakes import PLAYABLE, FakePlayer

from studio.views.clone_view import CloneView
from studio.views.design_view import DesignView
from studio.views.main_window import VIEW_MIN_WIDTH
from studio.views.widgets.reflow import ReflowRow


@pytest.mark.parametrize("make", [CloneView, DesignView], ids=["clone", "design"])
def test_the_page_fits_the_narrowest_view(qtbot, make):
    view = make(FakePlayer(), audio_status=PLAYABLE)
    qtbot.addWidget(view)
    view.form.advanced.set_expanded(True)
    page = view.findChild(QScrollArea).widget()
    scroll_bar = view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
    assert page.minimumSizeHint().width() + scroll_bar <= VIEW_MIN_WIDTH

    view.resize(VIEW_MIN_WIDTH, 700)
    view.show()
    qtbot.waitExposed(view)
    viewport = view.findChild(QScrollArea).viewport()

    def cut() -> list[str]:
        return [w.objectName() or type(w).__name__ for w in page.findChildren(QWidget)
                if w.isVisible() and w.mapTo(viewport, w.rect().topRight()).x() >= viewport.width()]

    try:  # once the relayouts the first show sets off have run
        qtbot.waitUntil(lambda: not cut(), timeout=3_000)
    except AssertionError:
        pass
    assert cut() == []


def test_a_reflow_row_stacks_its_parts_when_they_do_not_fit(qtbot):
    parts = [QLabel("x" * 40) for _ in range(2)]
    row = ReflowRow(*parts, spacing=20)
    qtbot.addWidget(row)
    needed = row.row_width()
    assert row.minimumSizeHint().width() == max(p.minimumSizeHint().width() for p in parts)
    row.resize(needed + 10, 100)
    row.show()
    qtbot.waitUntil(lambda: parts[1].x() > parts[0].x())
    assert not row.is_stacked()
    row.resize(needed - 10, 100)
    qtbot.waitUntil(row.is_stacked)
    qtbot.waitUntil(lambda: parts[1].y() > parts[0].y() and parts[1].x() == parts[0].x())
