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


def generate_until_pass(window):
    """Design, 3 takes until one passes, Generate: the form and the render's job."""
    form = window.designView.form
    form.takesSpin.setValue(3)
    form.untilPassCheck.setChecked(True)
    form.set_text("Until one passes.")
    form.generateButton.click()
    return form, window._controller.named("render")[-1][1]


def test_stages_show_on_the_form_and_the_status_says_which_take_passed(window):
    form, job = generate_until_pass(window)
    job.report("stage", "Judging take 2 of 3 …")
    assert form.progress_text() == "Judging take 2 of 3 …"
    job.report("progress", 2, 8, 1, 1)
    assert "step 2/8" in form.progress_text()
    # Which try it is on stays beside the steps (it was replaced by the first step).
    job.report("stage", "Rendering take 3 of at most 3 …")
    job.report("progress", 1, 8, 1, 1)
    assert form.progress_text().startswith("try 3 of 3 · step 1/8"), form.progress_text()
    assert form.progressBar.toolTip().startswith("try 3 of 3 · step 1/8")
    with TakeLibrary() as library:
        result = save_result(library, make_result("Until one passes.", "design",
                                                  seeds=(1, 2)))
    job.report("done", dataclasses.replace(
        result, judging_note="Take 2/3 passed (score 81 of 100, no judge said poor)."))
    assert "Take 2/3 passed (score 81 of 100" in window.statusBarWidget.messageLabel.text()


def test_the_status_line_at_1366_says_the_pass_rule_and_cuts_at_a_word(qtbot, window):
    """Seen at 1366x768: "Rendered 3 takes (16.6 s of audio) in 19.4 s, 0.9× real time.
    None of the 3 takes passed; the best is 1/3 (score 29 of 100). ..." with the pass rule
    only in the tooltip. What judging found comes first, the rule in its first clause."""
    from studio.judges.scores import OK, Judgement, not_judged
    from studio.service.judging import TakeJudgement, pass_note
    from studio.views.status_bar import elided_at_word

    def judged(score):
        return TakeJudgement((Judgement("sound", score, OK, "."),
                              not_judged("words", "Words not judged.")), score)

    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    form, job = generate_until_pass(window)
    with TakeLibrary() as library:
        result = save_result(library, make_result("Until one passes.", "design",
                                                  seeds=(1, 2, 3)))
    note = pass_note([judged(0.29), judged(0.28), judged(0.27)], 0.7, 3)
    job.report("done", dataclasses.replace(result, judging_note=note,
                                           first_audio_seconds=1.1))
    label = window.statusBarWidget.messageLabel
    whole = label.text()
    assert whole.startswith("Rendered 3 takes in ") and note in whole
    assert label.toolTip() == whole
    shown = elided_at_word(whole, label.fontMetrics(), label.contentsRect().width())
    assert ("None of the 3 takes passed: the best, 1/3, scored 29; a pass needs 70 and no "
            "judge saying poor." in shown)
    assert shown.endswith(" …") and whole.startswith(shown[:-2])
    assert whole[len(shown) - 2] == " ", "cut between words"
