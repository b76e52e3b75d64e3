"""No page is cut off on the right: the Clone and Design pages (Advanced open) fit the
narrowest view the window allows beside the takes panel, and a ReflowRow stacks its
parts when they do not fit side by side."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel, QLineEdit, QScrollArea, QStyle, QWidget
from studio_fakes import PLAYABLE, FakePlayer, FakeRecorder, fake_window

from studio.sound.files import write_audio_atomic
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


# ------------------------------------------------ a long clip in the window at 1024x640
RATE = 24000


def noisy_long_clip(tmp_path, seconds: float = 21.0) -> Path:
    """Syllables over loud hiss, long: the meter says "long" and offers the trim, and
    the noise check warns (review 8, finding 1: a 20.8 s clip pushed the page past
    the pane at 1024x640)."""
    t = np.arange(int(seconds * RATE)) / RATE
    voice = 0.3 * np.sin(2 * np.pi * 150 * t) * ((t % 0.3) < 0.2)
    hiss = np.random.default_rng(0).normal(0.0, 0.02, t.size)
    path = tmp_path / "long.wav"
    write_audio_atomic(path, (voice + hiss).astype(np.float32), RATE)
    return path


def named(w: QWidget) -> str:
    return f"{w.objectName() or type(w).__name__} ({getattr(w, 'text', str)()!s:.30})"


def past_the_pane(page: QWidget, viewport: QWidget) -> list[str]:
    """The page's shown widgets whose right edge is past the viewport's (cut off), or
    that are narrower than they can be (squashed: a page wider than its pane is
    sometimes drawn at the pane's width, its rows overlapping)."""
    shown = [w for w in page.findChildren(QWidget) if w.isVisible()]
    cut = [named(w) for w in shown
           if w.mapTo(viewport, w.rect().topRight()).x() >= viewport.width()]
    squashed = [f"{named(w)} squashed" for w in shown  # not a line edit's own ⊗ button
                if not isinstance(w.parent(), QLineEdit)
                and w.width() < (w.minimumWidth() or w.minimumSizeHint().width())]
    wide = [] if page.minimumSizeHint().width() <= viewport.width() else ["the page"]
    return wide + cut + squashed


def settled_cuts(qtbot, page: QWidget, viewport: QWidget) -> list[str]:
    for _ in range(30):  # once the relayouts a change sets off have run
        if not past_the_pane(page, viewport):
            break
        qtbot.wait(100)
    return past_the_pane(page, viewport)


@pytest.mark.parametrize("name", ["clone", "design"])
def test_a_long_noisy_clip_keeps_the_page_inside_its_pane(qtbot, tmp_path, name):
    window = fake_window(qtbot, tmp_path, size=(1024, 640),
                         recorder=FakeRecorder(np.zeros(RATE, np.float32)))
    window.show_view(name)
    view = window.cloneView if name == "clone" else window.designView
    if name == "design":  # the optional clip, under its section
        view.referenceSection.set_expanded(True)
    scroll = view.findChild(QScrollArea)
    page, viewport = scroll.widget(), scroll.viewport()
    assert view.reference.set_reference(noisy_long_clip(tmp_path))
    meter = view.reference.clipMeter
    trim = meter.trimBestButton
    qtbot.waitUntil(trim.isVisible)
    assert any("Background noise is loud" in w for w in meter.warnings())
    assert meter.warningsLabel.isVisible()
    assert settled_cuts(qtbot, page, viewport) == []
    # Whole: as wide as its words need, and inside the pane.
    assert trim.width() >= trim.sizeHint().width()
    assert trim.mapTo(viewport, trim.rect().topRight()).x() < viewport.width()

    if name == "clone":  # the red pointer at Clean the clip ▸ Noise, then the calm line
        noise = view.cleanup.checks["noise"]
        assert view.cleanup.isVisible()
        for ticked in (False, True):
            if noise.isEnabled():
                noise.setChecked(ticked)
            assert meter.warningsLabel.isVisible()
            assert settled_cuts(qtbot, page, viewport) == []

    view.form.advanced.set_expanded(True)  # every option shown under the clip too
    assert settled_cuts(qtbot, page, viewport) == []

    view.reference.waveform.set_selection((1.0, 12.5))  # "Trim to selection" beside its words
    qtbot.waitUntil(view.reference.trimButton.isVisible)
    assert settled_cuts(qtbot, page, viewport) == []

    view.reference.start_recording()  # the level meter and time in the clip's header
    qtbot.waitUntil(view.reference.levelMeter.isVisible)
    assert settled_cuts(qtbot, page, viewport) == []
    view.reference.stop_recording()
