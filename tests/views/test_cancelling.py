"""Review 8 (finding 8): after Cancel the progress kept moving ("step 16/16 · chunk 1/15")
for seconds, until the worker reached its next step and said "Cancelled.". Cancel is now
said at once: "Cancelling…" on the progress line and Cancel disabled, until the job
ends; the steps still reported meanwhile move nothing."""

from __future__ import annotations

import pytest
from script_fixtures import open_cast
from studio_fakes import FakeController, fake_window

from studio.views.progress_text import CANCELLING


@pytest.fixture
def window(qtbot, tmp_path, data_writer):
    window = fake_window(qtbot, tmp_path, FakeController(data_writer))
    yield window
    window.scriptView.close_project()


def test_a_generate_says_cancelling_at_once_until_the_worker_stops(window):
    form = window.designView.form
    form.set_text("A long text to render.")
    form.generateButton.click()
    job = window._controller.named("render")[-1][1]
    job.report("progress", 3, 16, 1, 15)
    assert form.progress_text().startswith("step 3/16")
    job.report("stage", "Judging take 1 of 1 …")  # a busy bar, which draws no text
    form.cancelButton.click()
    assert window._controller.named("cancel") == [("cancel", job)]
    assert form.progress_text() == CANCELLING and not form.cancelButton.isEnabled()
    assert not form.cancelShortcut.isEnabled()  # Esc: nothing more to ask
    assert window.statusBarWidget.messageLabel.text() == CANCELLING  # not "Rendering …"
    job.report("progress", 4, 16, 1, 15)  # reported before the worker saw the cancel
    job.report("stage", "Judging take 1 of 1 …")
    assert form.progress_text() == CANCELLING
    assert form.progressBar.maximum() > 0, "a busy bar draws no text: Cancelling… unseen"
    form.cancelButton.click()  # disabled: asks nothing twice
    assert len(window._controller.named("cancel")) == 1
    job.report("cancelled")
    assert not form.is_busy() and form.progress_text() != CANCELLING
    assert window.statusBarWidget.messageLabel.text() == "Cancelled."
    assert form.message_text() == "Cancelled."
    form.set_text("Again.")
    form.generateButton.click()  # the next render can be cancelled again
    assert form.cancelButton.isEnabled() and form.progress_text() != CANCELLING


def test_a_script_render_says_cancelling_at_once_until_the_worker_stops(qtbot, window,
                                                                        tmp_path):
    view = window.scriptView
    open_cast(qtbot, view, tmp_path / "two.txt", "Alice: Good morning.\nBob: Morning.\n")
    view.renderAllButton.click()
    job = window._controller.named("render_lines")[-1][1]
    job.report("progress", 2, 16, 0, 2)
    assert view.progress.format().startswith("Line 1 of 2") and view.cancelButton.isEnabled()
    view.cancelButton.click()
    assert window._controller.named("cancel") == [("cancel", job)]
    assert view.progress.format() == CANCELLING and not view.cancelButton.isEnabled()
    job.report("progress", 3, 16, 0, 2)
    assert view.progress.format() == CANCELLING and view.progress.maximum() > 0
    job.report("cancelled")
    assert not view.cancelButton.isEnabled() and not view.progress.isVisible()
    view.renderAllButton.click()
    assert view.cancelButton.isEnabled() and view.progress.format() != CANCELLING
