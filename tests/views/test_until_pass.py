"""Render until one passes, in the window: the option beside Takes, sent with the request;
the worker's stages ("Judging take 2 of 4 …") shown on the form; the status says which
take passed."""

from __future__ import annotations

import dataclasses

import pytest
from studio_fakes import (
    CPU_ONLY,
    PLAYABLE,
    FakeController,
    FakePlayer,
    make_result,
    make_settings,
    save_result,
)

from studio.library.takes import TakeLibrary
from studio.views.main_window import MainWindow


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(),
                        FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY,
                        asr_on_disk=lambda model: model)
    qtbot.addWidget(window)
    return window


def test_the_option_needs_more_than_one_take_and_reaches_the_request(window):
    form = window.designView.form
    assert not form.untilPassCheck.isEnabled(), "one take: nothing to render until"
    form.takesSpin.setValue(4)
    assert form.untilPassCheck.isEnabled() and not form.untilPassCheck.isChecked()
    assert "no judge says poor" in form.untilPassCheck.toolTip()
    form.untilPassCheck.setChecked(True)
    form.set_text("Until one passes.")
    form.generateButton.click()
    request = window._controller.named("render")[-1][2]
    assert request.until_pass and len(request.seeds) == 4
    form.takesSpin.setValue(1)
    assert form.request_fields()["until_pass"] is False


def test_stages_show_on_the_form_and_the_status_says_which_take_passed(window):
    form = window.designView.form
    form.takesSpin.setValue(3)
    form.untilPassCheck.setChecked(True)
    form.set_text("Until one passes.")
    form.generateButton.click()
    job = window._controller.named("render")[-1][1]
    job.report("stage", "Judging take 2 of 3 …")
    assert form.progress_text() == "Judging take 2 of 3 …"
    job.report("progress", 2, 8, 1, 1)
    assert "step 2/8" in form.progress_text()
    with TakeLibrary() as library:
        result = save_result(library, make_result("Until one passes.", "design",
                                                  seeds=(1, 2)))
    job.report("done", dataclasses.replace(
        result, judging_note="Take 2/3 passed (score 81 of 100, no judge said poor)."))
    assert "Take 2/3 passed (score 81 of 100" in window.statusBarWidget.messageLabel.text()
