"""Main window: view switching, the wiring between views, controller and status bar,
geometry and last view across restarts, and app.run's start-up sequence."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QSize, Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QListView, QWidget
from studio_fakes import (
    CPU_ONLY,
    PLAYABLE,
    FakeController,
    FakePlayer,
    make_result,
    make_settings,
    save_result,
)

from studio import app as app_module
from studio.library.takes import TakeLibrary
from studio.service.requests import AccelState, LoadRequest, ModelInfo
from studio.settings import Settings
from studio.views.main_window import MainWindow, load_request
from studio.worker.job import Job


def make_window(qtbot, settings: Settings, controller=None, player=None, **kwargs) -> MainWindow:
    kwargs.setdefault("asr_on_disk", lambda model: model)  # Whisper is here (test_asr_download.py)
    window = MainWindow(settings, controller or FakeController(), player or FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY, **kwargs)
    qtbot.addWidget(window)
    return window


@pytest.fixture
def settings(tmp_path) -> Settings:
    return make_settings(tmp_path / "settings.ini")


@pytest.fixture
def controller() -> FakeController:
    return FakeController()


@pytest.fixture
def player() -> FakePlayer:
    return FakePlayer()


@pytest.fixture
def window(qtbot, settings, controller, player) -> MainWindow:
    return make_window(qtbot, settings, controller, player)


def _design_request(window: MainWindow) -> int:
    window.designView.form.set_text("Hello there.")
    window.designView.form.generateButton.click()
    return window._controller.named("render")[-1][1]


def test_stable_names_are_all_there(window):
    for name in ("cloneView", "designView", "settingsView", "textEdit", "refPathEdit",
                 "refTextEdit", "instructPreview", "generateButton", "cancelButton",
                 "progressBar", "takesList", "accelCombo", "accelBadge", "statusMessage"):
        assert window.findChild(QWidget, name) is not None, name


def test_sidebar_and_shortcuts_switch_views(qtbot, window):
    assert window.current_view() == "clone"
    window.sidebar.setCurrentRow(1)
    assert window.stack.currentWidget() is window.designView
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.sidebar.setFocus()
    qtbot.keyClick(window.sidebar, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.current_view() == "voices"
    qtbot.keyClick(window.sidebar, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.current_view() == "script"
    qtbot.keyClick(window.sidebar, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    assert window.current_view() == "settings"
    window.show_view("clone")
    assert window.stack.currentWidget() is window.cloneView


def test_render_progress_and_finish_reach_the_right_view(qtbot, window, controller):
    job = _design_request(window)
    request = controller.named("render")[0][2]
    assert request.mode == "design"
    assert window.designView.form.is_busy() and not window.cloneView.form.is_busy()
    job.report("progress", 3, 16, 1, 1)
    assert "step 3/16" in window.designView.form.progress_text()
    assert "step" not in window.cloneView.form.progress_text()
    Job("render", job.number + 99).report("progress", 9, 16, 1, 1)  # another job: not this view's
    with TakeLibrary() as library:  # the worker saves the takes before it says finished
        result = save_result(library, make_result("Hello there.", "design", seeds=(1, 2)))
    job.report("done", result)
    assert not window.designView.form.is_busy()
    assert window.findChild(QListView, "takesList").model().rowCount() == 2
    assert {t.id for t in window.takesPanel.selected_takes()} == {t.take_id for t in result.takes}
    assert "Rendered 2 takes" in window.statusBarWidget.messageLabel.text()


def test_failure_goes_to_the_view_and_the_status_bar(window, controller):
    job = _design_request(window)
    job.report("failed", "The model is not loaded yet; wait for it.")
    assert window.designView.form.message_text() == "The model is not loaded yet; wait for it."
    assert window.statusBarWidget.is_error()
    assert "not loaded" in window.findChild(QLabel, "statusMessage").text()


def test_an_error_goes_from_the_status_bar_once_a_clip_loads(window, controller, tmp_path,
                                                             speech):
    """Review 2: a red sentence (the last session's end, a failed render) stayed through
    later actions; the next thing that works (here a clip loaded) moves the status on."""
    from studio.crash import ABNORMAL_END, abnormal_end_message

    status = window.statusBarWidget
    window.show_notice(ABNORMAL_END, details=abnormal_end_message(tmp_path / "studio.log"))
    assert status.is_error() and status.messageLabel.text() == "⚠ " + ABNORMAL_END
    assert str(tmp_path / "studio.log") in status.messageLabel.toolTip()
    assert window.cloneView.reference.set_reference(_clip(tmp_path / "voice.wav", speech))
    assert not status.is_error() and status.message() == ""
    job = _design_request(window)
    job.report("failed", "The model is not loaded yet; wait for it.")
    assert status.is_error()
    assert window.designView.reference.set_reference(_clip(tmp_path / "other.wav", speech, 1))
    assert not status.is_error()


def test_cancel_cancels_that_views_jobs(window, controller):
    job = _design_request(window)
    window.designView.form.cancelButton.click()
    assert controller.named("cancel") == [("cancel", job)]
    job.report("cancelled")
    assert not window.designView.form.is_busy()
    assert window.designView.form.message_text() == "Cancelled."


def _clip(path: Path, speech, seed: int = 0) -> Path:
    import soundfile as sf

    sf.write(path, speech(1.5, seed=seed), 24000)
    return path


def test_transcription_round_trip(window, controller, tmp_path, speech):
    clip = _clip(tmp_path / "voice.wav", speech)
    panel = window.cloneView.reference
    assert panel.set_reference(clip)
    panel.transcribeButton.click()
    job = controller.named("transcribe")[0][1]
    assert controller.named("transcribe")[0][2] == clip
    job.report("done", "What the clip says.")
    assert panel.refTextEdit.toPlainText() == "What the clip says."
    assert window.statusBarWidget.messageLabel.text() == "Transcription ready."


def test_a_transcript_that_arrives_after_the_clip_changed_is_not_used(window, controller,
                                                                       tmp_path, speech):
    first, second = _clip(tmp_path / "first.wav", speech), _clip(tmp_path / "second.wav", speech, 1)
    panel = window.cloneView.reference
    panel.set_reference(first)
    panel.transcribeButton.click()
    job = controller.named("transcribe")[0][1]
    panel.set_reference(second)  # picked while the first was being transcribed
    assert panel.transcribeButton.isEnabled(), "the new clip can be transcribed at once"
    panel.refTextEdit.setPlainText("What I typed for the second clip.")
    job.report("done", "What the first clip says.")
    assert panel.refTextEdit.toPlainText() == "What I typed for the second clip."
    assert "first.wav was not used" in window.statusBarWidget.messageLabel.text()


def test_model_and_accel_signals_reach_the_status_bar(window, controller):
    bar = window.statusBarWidget
    controller.worker.model_loading.emit("Loading k2-fsa/OmniVoice …")
    assert bar.model_state() == "loading"
    controller.worker.model_loaded.emit(ModelInfo("k2-fsa/OmniVoice", "cpu", "bf16", 24000))
    assert bar.modelLabel.text() == "Ready: k2-fsa/OmniVoice"
    controller.worker.accel_changed.emit(
        AccelState("flashinfer", "off", "flashinfer: package not installed"))
    badge = window.findChild(QLabel, "accelBadge")
    assert bar.badge_state() == "fell back" and "package not installed" in badge.text()
    controller.worker.model_failed.emit("The model folder /nope does not exist.")
    assert bar.model_state() == "failed" and bar.is_error()
    assert bar.modelLabel.text() == "Failed" and "/nope" in bar.modelLabel.toolTip()


def test_accel_availability_comes_from_the_worker_not_the_gui_thread(qtbot, settings,
                                                                     monkeypatch):
    from studio.engine import accel_probe

    probed = []

    def probe_off_the_worker(*args, **kwargs):
        probed.append(1)
        raise AssertionError("the main window probed CUDA on the GUI thread")

    monkeypatch.setattr(accel_probe, "probe", probe_off_the_worker)
    controller = FakeController()
    window = MainWindow(settings, controller, FakePlayer(), audio_status=PLAYABLE)
    qtbot.addWidget(window)
    view = window.settingsView
    assert "still checking" in view.availability()["compile"][1]
    controller.worker.model_loaded.emit(ModelInfo("k2-fsa/OmniVoice", "cpu", "bf16", 24000))
    controller.worker.model_failed.emit("The model folder /nope does not exist.")
    assert not probed and "still checking" in view.availability()["compile"][1]
    gpu = dict(CPU_ONLY, compile=(True, None))
    controller.worker.accel_availability.emit(gpu)  # the worker's check, re-emitted
    assert view.availability() == gpu
    combo = view.accelCombo
    assert combo.model().item(combo.findData("compile")).isEnabled()
    assert not combo.model().item(combo.findData("flashinfer")).isEnabled()


def test_settings_drive_the_controller(qtbot, window, controller, settings, player):
    window.load_model()
    assert controller.named("load_model")[-1][1] == load_request(settings)
    view = window.settingsView
    view.accelCombo.setCurrentIndex(view.accelCombo.findData("compile"))
    assert controller.named("set_accel") == [("set_accel", "compile")]
    assert window.statusBarWidget.badge_state() == "requested"
    with qtbot.waitSignal(view.reload_requested, timeout=2000):
        view.precisionCombo.setCurrentIndex(view.precisionCombo.findData("fp32"))
    assert controller.named("load_model")[-1][1].precision == "fp32"
    view.clearCacheButton.click()
    assert controller.named("clear_cache")
    view.outputCombo.setCurrentIndex(view.outputCombo.findData(3))
    assert player.calls[-1] == ("set_device", 3)


def test_model_override_wins_for_the_session(qtbot, settings, controller):
    window = make_window(qtbot, settings, controller, model_override="/tmp/ckpt")
    window.load_model()
    request: LoadRequest = controller.named("load_model")[-1][1]
    assert request.source == "/tmp/ckpt"
    assert settings.value("model/source") == "k2-fsa/OmniVoice"  # not saved
    assert window.settingsView.sourceEdit.isReadOnly()


def test_geometry_and_last_view_survive_a_restart(qtbot, tmp_path):
    path = tmp_path / "state.ini"
    first = make_window(qtbot, make_settings(path))
    first.show()
    qtbot.waitExposed(first)
    first.resize(1100, 700)
    first.show_view("design")
    first.designView.attributes.set_description("old man")
    first.cloneView.form.set_text("Remember me.")
    first.close()

    second = make_window(qtbot, Settings(QSettings(str(path), QSettings.Format.IniFormat),
                                         environ={}))
    # restoreGeometry keeps a window on its screen: the offscreen screen is only
    # 800 px wide, so the width comes back as much of 1100 as fits there.
    assert second.height() == 700
    screen = second.screen().availableGeometry().width()
    assert second.width() == 1100 or screen - 4 <= second.width() <= screen
    assert second.current_view() == "design" and second.sidebar.currentRow() == 1
    assert second.designView.attributes.selection()["age"] == "elderly"
    assert second.cloneView.form.text() == "Remember me."


def test_first_start_uses_the_default_size_where_it_fits(qtbot, settings, monkeypatch):
    from PySide6.QtCore import QRect

    monkeypatch.setattr("studio.views.window_frame.available_area",
                        lambda window: QRect(0, 0, 1920, 1080))
    assert make_window(qtbot, settings).size() == QSize(1280, 800)
    monkeypatch.setattr("studio.views.window_frame.available_area",
                        lambda window: QRect(0, 0, 1366, 768))
    small = make_window(qtbot, settings)  # nothing saved yet: a first start again
    assert QRect(0, 0, 1366, 768).contains(small.geometry()), small.geometry()


def test_run_shows_the_window_then_loads_and_shuts_down(qtbot, tmp_path, monkeypatch):
    import studio.audio.player as player_module
    import studio.views.main_window as window_module
    import studio.worker.controller as controller_module

    made: dict[str, object] = {}

    class Controller(FakeController):
        def load_model(self, request) -> None:
            made["visible_at_load"] = made["window"].isVisible()
            super().load_model(request)

    def fake_controller():
        made["controller"] = Controller()
        return made["controller"]

    def window_factory(*args, **kwargs):
        kwargs.update(audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
        made["window"] = MainWindow(*args, **kwargs)
        return made["window"]

    def fake_player(parent=None):
        made["player"] = FakePlayer()
        return made["player"]

    monkeypatch.setattr(controller_module, "WorkerController", fake_controller)
    monkeypatch.setattr(player_module, "Player", fake_player)
    monkeypatch.setattr(window_module, "MainWindow", window_factory)
    monkeypatch.setattr(app_module, "Settings", lambda: make_settings(tmp_path / "run.ini"))
    app = QApplication.instance()
    handlers = list(logging.getLogger().handlers)
    # Closing the last window would post another Quit, which would end the next
    # test's event loops before they start.
    quit_on_close = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)
    QTimer.singleShot(0, app.quit)
    try:
        assert app_module.run(["omnivoice-desktop", "--model", str(tmp_path / "ckpt")]) == 0
    finally:
        QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
        app.setQuitOnLastWindowClosed(quit_on_close)
        for handler in set(logging.getLogger().handlers) - set(handlers):
            logging.getLogger().removeHandler(handler)
            handler.close()
        if "window" in made:
            app.aboutToQuit.disconnect(made["window"].shutdown)
    window, controller = made["window"], made["controller"]
    assert made["visible_at_load"]  # the window shows before the model loads
    loads = controller.named("load_model")
    assert len(loads) == 1 and loads[0][1].source == str(tmp_path / "ckpt")
    assert controller.named("shutdown") == [("shutdown",)]
    assert app.organizationName() == "OmniVoice"
    assert made["player"].calls[-1] == ("close",)
    assert app.applicationName() == "OmniVoice Desktop"
    window.close()


def test_parse_args_ignores_qt_options():
    assert app_module.parse_args(["-style", "fusion", "--model", "/m"]).model == "/m"
    assert app_module.parse_args([]).model is None
    assert isinstance(app_module.app_icon(), object)
    assert Path(app_module.__file__).name == "app.py"


def test_a_worker_that_does_not_stop_in_time_ends_the_process_after_a_clean_quit(
        qtbot, tmp_path, monkeypatch):
    import studio.audio.player as player_module
    import studio.views.main_window as window_module
    import studio.worker.controller as controller_module

    class Stuck(FakeController):
        def shutdown(self) -> bool:
            super().shutdown()
            return False  # the worker is still inside a transcription

    made: dict[str, object] = {}

    def window_factory(*args, **kwargs):
        kwargs.update(audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
        made["window"] = MainWindow(*args, **kwargs)
        return made["window"]

    exits = []
    monkeypatch.setattr(controller_module, "WorkerController", Stuck)
    monkeypatch.setattr(player_module, "Player", lambda parent=None: FakePlayer())
    monkeypatch.setattr(window_module, "MainWindow", window_factory)
    monkeypatch.setattr(app_module, "Settings", lambda: make_settings(tmp_path / "run.ini"))
    monkeypatch.setattr(app_module, "_exit_now", exits.append)
    app = QApplication.instance()
    quit_on_close = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)
    QTimer.singleShot(0, app.quit)
    try:
        assert app_module.run(["omnivoice-desktop"]) == 0
    finally:
        QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
        app.setQuitOnLastWindowClosed(quit_on_close)
        if "window" in made:
            app.aboutToQuit.disconnect(made["window"].shutdown)
            made["window"].close()
    assert exits == [0]
    # The quit was clean as far as the user is concerned: the next start reports nothing.
    assert (tmp_path / "data" / "session.lock").read_text().strip() == "closed"


def test_the_studio_opens_with_a_mistyped_override_and_says_so(qtbot, tmp_path, controller):
    settings = make_settings(tmp_path / "s.ini", environ={"OMNIVOICE_FLASHINFER": "maybe",
                                                          "OMNIVOICE_DEVICE": "gpu"})
    window = make_window(qtbot, settings, controller)
    text = window.statusBarWidget.messageLabel.toolTip()
    assert window.statusBarWidget.is_error()
    assert "OMNIVOICE_FLASHINFER must be 1/on/true" in text and "OMNIVOICE_DEVICE must be" in text
    window.load_model()
    request = controller.named("load_model")[-1][1]
    assert request.accel == "off" and request.device == "auto"
    controller.worker.model_loaded.emit(ModelInfo("k2-fsa/OmniVoice", "cpu", "fp32", 24000))
    assert "OMNIVOICE_DEVICE" in window.statusBarWidget.messageLabel.toolTip(), \
        "the sentence outlives the model-ready line"
