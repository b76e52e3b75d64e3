"""The first-run setup card in the window (issue 25, findings 1 and 8): with no model it
replaces the rendering pages, Generate is disabled with the reason, and the three ways on
(download, choose a folder, a server) lead to a model, each said in one sentence."""

from __future__ import annotations

import threading

import pytest
from studio_fakes import (
    CPU_ONLY,
    PLAYABLE,
    FakeController,
    FakePlayer,
    FakeProbe,
    make_settings,
)

from studio.engine.hub_download import DownloadCancelled, DownloadProgress
from studio.service.requests import ModelInfo
from studio.views.main_window import MainWindow

REPO = "k2-fsa/OmniVoice"


@pytest.fixture
def settings(tmp_path):
    return make_settings(tmp_path / "settings.ini")


@pytest.fixture
def controller():
    return FakeController()


def make_window(qtbot, settings, controller, **kwargs) -> MainWindow:
    kwargs.setdefault("server_probe", FakeProbe())
    window = MainWindow(settings, controller, FakePlayer(), audio_status=PLAYABLE,
                        accel_probe=lambda: CPU_ONLY, **kwargs)
    qtbot.addWidget(window)
    window.resize(1280, 760)
    window.show()
    window.load_model()
    return window


def test_no_model_shows_the_card_and_generate_says_why_it_is_disabled(qtbot, settings,
                                                                     controller):
    window = make_window(qtbot, settings, controller)
    generate = window.cloneView.form.generateButton
    assert not generate.isEnabled()  # loading: not yet
    assert window.cloneView.form.progress_text() == "Loading"
    controller.worker.model_missing.emit(REPO)
    assert window.stack.currentWidget() is window.setupCard
    assert window.setupCard.isVisible() and window.current_view() == "clone"
    assert window.statusBarWidget.modelLabel.text() == "Not downloaded"
    assert window.setupCard.stateLabel.text() == "Not downloaded"
    assert not window.setupCard.settingsButton.isVisible()
    for view in (window.cloneView, window.designView):
        assert not view.form.generateButton.isEnabled()
        assert view.form.progress_text() == "Not downloaded"  # never "Ready"
        assert "download it or choose its folder" in view.form.generateButton.toolTip()
    text = " ".join(w.text() for w in window.setupCard.findChildren(type(window.setupCard.headline)))
    assert "about 3 GB" in text and "CC BY-NC 4.0" in text and "Higgs Audio" in text
    window.show_view("voices")  # the library stays reachable
    assert window.stack.currentWidget() is window.voicesView
    window.show_view("design")
    assert window.stack.currentWidget() is window.setupCard
    controller.worker.model_loaded.emit(ModelInfo("/m/OmniVoice", "cpu", "fp32", 24000))
    assert window.stack.currentWidget() is window.designView
    assert generate.isEnabled() and window.designView.form.progress_text() == "Ready"


def test_choose_a_folder_checks_it_on_the_worker_then_it_becomes_the_model(qtbot, settings,
                                                                          controller, tmp_path):
    window = make_window(qtbot, settings, controller)
    controller.worker.model_missing.emit(REPO)
    card = window.setupCard
    card.folder_chosen.emit(str(tmp_path / "Downloads"))
    assert controller.named("check_folder") == [("check_folder", str(tmp_path / "Downloads"))]
    assert not card.chooseFolderButton.isEnabled()  # one check at a time
    sentence = (f"The checkpoint is missing {tmp_path / 'Downloads' / 'config.json'}; download "
                "the checkpoint again.")
    controller.worker.folder_checked.emit(str(tmp_path / "Downloads"), sentence)
    assert card.message.text() == sentence and card.message.is_error()
    assert card.chooseFolderButton.isEnabled() and settings.value("model/source") == REPO
    loads = len(controller.named("load_model"))
    good = str(tmp_path / "OmniVoice")
    card.folder_chosen.emit(good)
    controller.worker.folder_checked.emit(good, "")
    assert settings.value("model/source") == good
    assert window.statusBarWidget.modelLabel.text() == "Loading"
    qtbot.waitUntil(lambda: len(controller.named("load_model")) > loads, timeout=3000)
    qtbot.wait(600)  # Settings' reload is the only one: the model loads once
    assert [c[1].source for c in controller.named("load_model")[loads:]] == [good]
    assert window.stack.currentWidget() is window.cloneView  # the card goes while it loads


def test_download_from_the_card_shows_bytes_and_cancel_keeps_the_card(qtbot, settings,
                                                                      controller, tmp_path):
    gate, asked = threading.Event(), []

    def downloader(repo, on_progress=None, cancel=None):
        asked.append(repo)
        on_progress(DownloadProgress(1_020_000_000, 3_000_000_000, 8_400_000))
        gate.wait(10)
        if cancel.is_set():
            raise DownloadCancelled("The download of k2-fsa/OmniVoice was cancelled; what "
                                    "arrived is kept and the next download resumes from there.")
        return tmp_path / "models" / "OmniVoice"

    window = make_window(qtbot, settings, controller, downloader=downloader)
    controller.worker.model_missing.emit(REPO)
    card = window.setupCard
    card.downloadButton.click()
    qtbot.waitUntil(lambda: window.statusBarWidget.modelLabel.text() == "Downloading 34 %",
                    timeout=5000)
    assert asked == [REPO]
    assert card.progressBar.isVisible() and card.cancelButton.isVisible()
    assert card.progressBar.format() == "1.0 GB of 3.0 GB · 8.4 MB/s · 4 min left"
    assert not card.downloadButton.isVisible()
    assert window.cloneView.form.progress_text() == "Downloading 34 %"
    card.cancelButton.click()
    gate.set()
    qtbot.waitUntil(lambda: card.message.isVisible(), timeout=5000)
    assert "cancelled" in card.message.text() and not card.message.is_error()
    assert window.statusBarWidget.modelLabel.text() == "Not downloaded"
    assert card.downloadButton.isEnabled() and card.downloadButton.isVisible()
    assert not card.cancelButton.isVisible()
    assert window.stack.currentWidget() is card


def test_render_on_a_server_opens_the_backend_settings(qtbot, settings, controller):
    window = make_window(qtbot, settings, controller)
    controller.worker.model_failed.emit("The model folder /gone does not exist; pass a "
                                        "checkpoint folder or a repo id.")
    assert window.setupCard.stateLabel.text().startswith("Failed: The model folder /gone")
    assert window.setupCard.settingsButton.isVisible()  # a failed load may be a setting
    window.setupCard.serverButton.click()
    assert window.current_view() == "settings"
    assert window.focusWidget() is window.settingsView.backendCombo
    settings.set_value("backend/url", "http://gpu-box:8000")
    settings.set_value("backend/kind", "remote")
    window.modelSetup.probe.succeeded.emit("Connected.")
    assert window.statusBarWidget.modelLabel.text() == "Server: gpu-box:8000"
    window.show_view("clone")
    assert window.stack.currentWidget() is window.cloneView  # a server renders: no card
    assert window.cloneView.form.generateButton.isEnabled()

