"""The takes panel inside the main window: copy settings into the Clone or Design form,
re-render through Generate's path, N takes of one Generate listed together."""

from __future__ import annotations

import pytest
import soundfile as sf
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication
from studio_fakes import (
    CPU_ONLY,
    PLAYABLE,
    FakeController,
    FakePlayer,
    make_result,
    make_settings,
    save_result,
)
from take_fixtures import add, settings
from take_fixtures import voice as make_voice

from studio.views.generate_form import MAX_TAKES
from studio.views.main_window import MainWindow


@pytest.fixture
def window(qtbot, tmp_path, data_writer):
    controller = FakeController(data_writer)
    window = MainWindow(make_settings(tmp_path / "settings.ini"), controller, FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    return window


def test_copy_settings_fills_the_design_form(window, data_writer):
    take = add(data_writer, "Design me again.", seed=1234, instruct="female, low pitch, british accent",
               steps=32, speed=1.25)
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.copyButton.click()
    assert window.current_view() == "design"
    form = window.designView.form
    assert form.text() == "Design me again."
    assert form.preset() == "Final" and form.guidanceSpin.value() == 2.5
    assert form.tShiftSpin.value() == pytest.approx(0.2)
    assert form.length_mode() == "speed" and form.speedSpin.value() == 1.25
    assert form.seedLock.isChecked() and form.seedSpin.value() == 1234
    assert not form.denoiseCheck.isChecked() and form.postprocessCheck.isChecked()
    assert form.languagePicker.language() == "en"
    attributes = window.designView.attributes
    assert attributes.selection()["gender"] == "female"
    assert attributes.instruct() == "female, low pitch, british accent"
    # The form now asks for exactly the take's render.
    request = window.designView.build_request()
    assert request.seeds[0] == 1234 and request.instruct == take.settings.instruct


def test_copy_settings_fills_the_clone_form_and_its_reference(window, data_writer, tmp_path):
    clip = tmp_path / "narrator.wav"
    sf.write(clip, make_voice(2.0), 24000)
    take = add(data_writer, "Clone me again.", seed=7, mode="clone", reference=str(clip),
               ref_text="A clip to clone.", steps=20, duration=3.0)
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.copy_settings()
    assert window.current_view() == "clone"
    view = window.cloneView
    assert view.reference.reference() == clip and view.reference.transcript() == "A clip to clone."
    assert view.form.length_mode() == "duration" and view.form.durationSpin.value() == 3.0
    # 20 steps is no preset: the nearest one is set, and the form says so.
    assert view.form.preset() == "Standard"
    assert "20 decoding steps" in view.form.message_text()


def test_copy_settings_says_when_the_reference_is_gone(window, data_writer, tmp_path):
    take = add(data_writer, "Clone me.", mode="clone", reference=str(tmp_path / "gone.wav"))
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.copy_settings()
    assert "no longer there" in window.cloneView.form.message_text()


def test_rerender_goes_through_generates_path(window, data_writer):
    controller = window._controller
    take = add(data_writer, "Again please.", seed=99, instruct="male")
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.rerenderButton.click()
    _, job, request = controller.named("render")[-1]
    assert request.seeds == (99,) and request.text == "Again please."
    assert request.instruct == "male" and request.mode == "design"
    assert window.current_view() == "design" and window.designView.form.is_busy()
    job.report("cancelled")
    window.takesPanel.varyButton.click()
    varied = controller.named("render")[-1][2]
    assert varied.seeds != (99,) and varied.text == "Again please."


def test_a_re_render_queued_behind_a_render_can_still_be_cancelled(window, data_writer):
    controller = window._controller
    take = add(data_writer, "Again please.", seed=99, instruct="male")
    window.designView.form.set_text("The first render.")
    window.designView.form.generateButton.click()
    first = controller.named("render")[-1][1]
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.rerenderButton.click()  # waits on the worker behind the first
    second = controller.named("render")[-1][1]
    form = window.designView.form
    first.report("done", save_result(data_writer, make_result(mode="design")))
    assert form.is_busy() and form.cancelButton.isEnabled(), "the re-render still runs"
    form.cancelButton.click()
    assert controller.named("cancel") == [("cancel", second)]
    second.report("cancelled")
    assert not form.is_busy() and form.generateButton.isEnabled()


def test_rerender_of_a_take_whose_clip_is_gone_says_why(window, data_writer, tmp_path):
    take = add(data_writer, "Clone me.", mode="clone", reference=str(tmp_path / "gone.wav"))
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.rerenderButton.click()
    assert window._controller.named("render") == []
    assert window.statusBarWidget.is_error()
    assert "no longer exists" in window.statusBarWidget.messageLabel.toolTip() + \
        window.statusBarWidget.messageLabel.text()


def test_n_takes_of_one_generate_are_listed_together_and_selected(window, data_writer):
    assert MAX_TAKES == 8 and window.designView.form.takesSpin.maximum() == 8
    add(data_writer, "Earlier.", seed=1, batch="earlier")
    window.designView.form.set_text("Eight at once.")
    window.designView.form.takesSpin.setValue(8)
    window.designView.form.generateButton.click()
    job, request = window._controller.named("render")[-1][1:]
    assert len(request.seeds) == 8
    result = save_result(data_writer, make_result("Eight at once.", "design", seeds=range(10, 18)),
                         batch="eight")
    job.report("done", result)
    panel = window.takesPanel
    assert panel.model.rowCount() == 9
    assert [panel.model.take(r).settings.seed for r in range(8)] == list(range(17, 9, -1))
    assert [t.settings.seed for t in panel.selected_takes()] == list(range(17, 9, -1))
    assert panel.model.take(8).settings.text == "Earlier."


def test_a_refused_edit_shows_its_sentence_and_reloads(window, data_writer):
    take = add(data_writer, "Star me.")
    window.takesPanel.refresh()
    window.takesPanel.model.patch(take.id, starred=True)  # as if S was pressed
    window._controller.worker.takes_failed.emit("The take library is read-only here.")
    assert window.statusBarWidget.is_error()
    assert not window.takesPanel.model.take(0).starred  # the library's truth again


def test_takes_are_listed_after_the_window_is_opened_again(qtbot, tmp_path, data_writer):
    add(data_writer, "Kept across restarts.", seed=5)
    window = MainWindow(make_settings(tmp_path / "again.ini"), FakeController(), FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    assert window.takesPanel.model.rowCount() == 1
    assert window.takesPanel.model.take(0).settings == settings("Kept across restarts.", 5)


def test_copy_settings_says_when_an_old_seed_does_not_fit_the_box(window, data_writer):
    take = add(data_writer, "An old take.", seed=6366835964793955872)
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.copy_settings()
    assert "does not fit the Variation box" in window.designView.form.message_text()


def test_take_settings_reach_the_worker_and_retention_waits_for_the_next_start(qtbot, window,
                                                                              data_writer):
    controller = window._controller
    old = add(data_writer, "An unstarred take from long ago.")
    spin = window.settingsView.retentionSpin
    window.show_view("settings")
    window.show()
    qtbot.waitExposed(window)
    # One wheel notch over "Never" scrolls the page; it does not set a day.
    wheel = QWheelEvent(QPointF(5, 5), spin.mapToGlobal(QPointF(5, 5)), QPoint(0, 0),
                        QPoint(0, 120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(spin, wheel)
    assert spin.value() == 0 and window._settings.value("takes/retention_days") == 0.0
    # Typed and confirmed: stored, sent with the next load, and nothing deleted now.
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "30")
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert window._settings.value("takes/retention_days") == 30.0
    window.settingsView.asrCheck.setChecked(True)
    assert ("set_asr_check", True) in controller.calls
    assert data_writer.get(old.id) is not None
    window.load_model()
    request = controller.named("load_model")[-1][1]
    assert request.retention_days == 30.0 and request.asr_check is True


def test_notes_typed_just_before_closing_are_kept(qtbot, window, data_writer):
    take = add(data_writer, "Note me, then quit.")
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.detail.notesEdit.setPlainText("Keep the second breath.")
    window.close()  # well within the typing pause
    assert data_writer.get(take.id).notes == "Keep the second breath."


def test_quitting_keeps_what_the_user_has_then_stops_the_worker(qtbot, window, data_writer):
    take = add(data_writer, "Quit while typing.")
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.detail.notesEdit.setPlainText("Typed as the app quit.")
    assert window.shutdown() is True
    assert data_writer.get(take.id).notes == "Typed as the app quit."
    assert window._player.calls[-1] == ("close",)
    assert window._controller.named("shutdown") == [("shutdown",)]
    assert window.shutdown() is True and len(window._controller.named("shutdown")) == 1
