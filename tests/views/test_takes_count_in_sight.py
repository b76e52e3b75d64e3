"""The Takes count sits with Language and Quality, not under Advanced (issue 28's
new-user review: someone auditioning takes for a client did not find it folded away),
and the form still fits a 1024x640 screen."""

from __future__ import annotations

import pytest
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings


@pytest.mark.parametrize("view", ["cloneView", "designView"])
def test_the_takes_count_shows_with_advanced_closed(qtbot, tmp_path, view):
    from studio.views.main_window import MainWindow

    window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(),
                        FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY,
                        asr_on_disk=lambda model: model)
    qtbot.addWidget(window)
    window.resize(1024, 640)
    window.show_view(view.removesuffix("View"))
    window.show()
    qtbot.waitExposed(window)
    form = getattr(window, view).form
    assert not form.advanced.is_expanded()
    for widget in (form.takesSpin, form.untilPassCheck):
        assert widget.isVisible(), widget.objectName()
        assert not form.advanced.isAncestorOf(widget), f"{widget.objectName()} in Advanced"
    # On the row below Quality, its label beside it like theirs.
    quality = form.presetButtons["Standard"]
    assert form.takesSpin.mapTo(form.page, form.takesSpin.rect().topLeft()).y() > \
        quality.mapTo(form.page, quality.rect().bottomLeft()).y()
    assert window.height() <= 640 and window.minimumSizeHint().height() <= 640
    assert form.takesSpin.height() >= form.takesSpin.sizeHint().height()
