"""Asked before Whisper downloads (issue 25, finding 6): Transcribe, or Generate with an
empty transcript, asks first with the size, offers to type the transcript instead, shows
the download's bytes with a Cancel, then transcribes; a missing model is one sentence
without an exception's name."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

from studio.engine.hub_download import DownloadProgress
from studio.errors import UserError
from studio.views.main_window import MainWindow


@pytest.fixture
def clip(tmp_path, speech) -> Path:
    import soundfile as sf

    path = tmp_path / "my voice.wav"
    sf.write(path, speech(1.5), 24000)
    return path


def make_window(qtbot, tmp_path, downloader, on_disk):
    controller = FakeController()
    window = MainWindow(make_settings(tmp_path / "settings.ini"), controller, FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY,
                        asr_downloader=downloader, asr_on_disk=on_disk)
    qtbot.addWidget(window)
    window.show()
    return window, controller


def question(qtbot, window=None) -> QMessageBox:
    """The question shown (``window``'s own, when given: an earlier test's may linger)."""
    def shown() -> list:
        return [w for w in QApplication.topLevelWidgets()
                if w.objectName() == "asrDownloadQuestion" and w.isVisible()
                and (window is None or w.parentWidget() is window)]

    qtbot.waitUntil(lambda: bool(shown()), timeout=3000)
    return shown()[0]


def test_transcribe_asks_first_and_typing_instead_downloads_nothing(qtbot, tmp_path, clip):
    fetched = []
    window, controller = make_window(qtbot, tmp_path, lambda repo, **_: fetched.append(repo),
                                     on_disk=lambda model: None)
    panel = window.cloneView.reference
    # Leaving the transcript empty leads to this question: the hint says so first.
    assert panel.note.text() == ("Leave empty to transcribe automatically when you generate "
                                 "(the first time downloads a speech recogniser, about 1.6 GB).")
    panel.set_reference(clip)
    panel.transcribeButton.click()
    box = question(qtbot)
    assert "openai/whisper-large-v3-turbo (about 1.6 GB)" in box.text()
    assert "type what the clip says" in box.informativeText()
    assert not controller.named("transcribe") and panel.transcribeButton.text() == "Transcribe"
    box.findChild(type(box.buttons()[0]), "asrTypeButton").click()
    assert not fetched and not controller.named("transcribe")
    # The note sits by the Transcript box (not above the waveform) and goes once typed.
    note = panel.transcriptMessage
    assert "nothing was downloaded" in note.text() and not note.is_error()
    assert "nothing was downloaded" not in panel.message.text()
    assert note.isVisible() and note.y() > panel.refTextEdit.y()
    assert window.focusWidget() is panel.refTextEdit
    qtbot.keyClicks(panel.refTextEdit, "Hello there.")
    assert not note.isVisible()


def test_download_shows_bytes_then_the_transcription_runs(qtbot, tmp_path, clip):
    gate, here = threading.Event(), []

    def downloader(repo, on_progress=None, cancel=None):
        on_progress(DownloadProgress(400_000_000, 1_600_000_000, 20_000_000))
        gate.wait(10)
        here.append(repo)
        return tmp_path / "whisper"

    window, controller = make_window(qtbot, tmp_path, downloader,
                                     on_disk=lambda model: model if here else None)
    panel = window.cloneView.reference
    # Leaving the transcript empty leads to this question: the hint says so first.
    assert panel.note.text() == ("Leave empty to transcribe automatically when you generate "
                                 "(the first time downloads a speech recogniser, about 1.6 GB).")
    panel.set_reference(clip)
    panel.transcribeButton.click()
    box = question(qtbot)
    box.findChild(type(box.buttons()[0]), "asrDownloadButton").click()
    dialog = window.modelSetup.asr.dialog
    assert isinstance(dialog, QProgressDialog) and dialog.isVisible()
    qtbot.waitUntil(lambda: "400.0 MB of 1.6 GB" in dialog.labelText(), timeout=3000)
    assert dialog.labelText().endswith("400.0 MB of 1.6 GB · 20.0 MB/s · 60 s left")
    assert not controller.named("transcribe")
    gate.set()
    qtbot.waitUntil(lambda: bool(controller.named("transcribe")), timeout=5000)
    assert controller.named("transcribe")[0][2] == clip
    assert window.modelSetup.asr.dialog is None
    assert panel.note.text() == "Leave empty to transcribe automatically when you generate."


def test_generate_with_an_empty_transcript_asks_too(qtbot, tmp_path, clip):
    window, controller = make_window(qtbot, tmp_path, lambda repo, **_: None,
                                     on_disk=lambda model: None)
    window.modelStatus.ready("/m/OmniVoice")
    window.cloneView.reference.set_reference(clip)
    window.cloneView.form.textEdit.setPlainText("Hello there.")
    window.cloneView.form.generateButton.click()
    question(qtbot)
    assert not controller.named("render")


OFFLINE = ("Cannot download openai/whisper-large-v3-turbo from the Hugging Face hub; check "
           "your connection and try again.")


def offline(repo, on_progress=None, cancel=None):
    raise UserError(OFFLINE)


@pytest.mark.parametrize("asked_by", ["generate", "transcribe"])
def test_a_failed_download_is_said_whole_beside_the_button_that_asked(qtbot, tmp_path, clip,
                                                                     asked_by, speech):
    """Review 2: offline, Generate's download failed only on the status bar, cut off at
    1024 px and not red; it is said whole by the button that asked, and in red below."""
    import soundfile as sf

    other_clip = tmp_path / "another.wav"
    sf.write(other_clip, speech(1.5, seed=2), 24000)
    window, controller = make_window(qtbot, tmp_path, offline, on_disk=lambda model: None)
    window.modelStatus.ready("/m/OmniVoice")
    view = window.cloneView
    view.reference.set_reference(clip)
    view.form.textEdit.setPlainText("Hello there.")
    button = view.form.generateButton if asked_by == "generate" else view.reference.transcribeButton
    button.click()
    box = question(qtbot, window)
    box.findChild(type(box.buttons()[0]), "asrDownloadButton").click()
    status = window.statusBarWidget
    qtbot.waitUntil(lambda: status.message() == OFFLINE, timeout=5000)
    assert status.is_error() and status.messageLabel.toolTip() == OFFLINE
    beside, other = ((view.form.message, view.reference.message) if asked_by == "generate"
                     else (view.reference.message, view.form.message))
    assert beside.text() == OFFLINE and beside.is_error() and beside.isVisible()
    assert OFFLINE not in other.text()
    assert not controller.named("render") and not controller.named("transcribe")
    view.reference.set_reference(other_clip)  # the sentence was about the old clip
    assert OFFLINE not in beside.text() and not status.is_error()


def test_a_missing_whisper_is_one_sentence_and_never_a_silent_download(monkeypatch, tmp_path):
    from studio.engine.asr import Transcriber

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(UserError) as caught:
        Transcriber("someone/whisper-nowhere")._load()
    sentence = str(caught.value)
    assert sentence.startswith("Transcribing needs the speech recognition model "
                               "someone/whisper-nowhere (a large download), which is not on "
                               "this computer;")
    assert "Error)" not in sentence and not (tmp_path / "hf" / "hub").exists()
