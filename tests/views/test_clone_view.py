"""CloneView: the RenderRequest it emits, what it refuses inline, the main window's
slots, and saved state. A real Player and Recorder are built but never started."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from studio.audio.backend import AudioStatus
from studio.audio.player import Player
from studio.audio.recorder import Recorder
from studio.service.requests import RenderRequest
from studio.settings import Settings
from studio.sound.files import write_audio_atomic
from studio.views.clone_view import NO_REFERENCE, CloneView
from studio.views.generate_form import NO_TEXT

PLAYABLE = AudioStatus(True, None, [(0, "Speakers")], [(1, "Microphone")])


@pytest.fixture
def clip(tmp_path, speech) -> Path:
    path = tmp_path / "voice.wav"
    write_audio_atomic(path, speech(1.5), 24000)
    return path


def make_view(qtbot) -> CloneView:
    view = CloneView(Player(), recorder=Recorder(), audio_status=PLAYABLE)
    qtbot.addWidget(view)
    return view


@pytest.fixture
def view(qtbot):
    return make_view(qtbot)


def test_stable_object_names(view):
    for name in ("textEdit", "refPathEdit", "refTextEdit", "generateButton", "cancelButton",
                 "progressBar"):
        assert view.findChild(QWidget, name) is not None, name
    assert view.objectName() == "cloneView"


def test_generate_emits_a_clone_request_with_reference_and_transcript(qtbot, view, clip):
    view.reference.set_reference(clip)
    view.reference.set_transcript("What the clip says.")
    view.form.set_text("Say this, please.")
    view.form.languagePicker.set_language("en")
    view.form.presetButtons["Final"].click()
    view.form.takesSpin.setValue(2)
    view.form.seedLock.setChecked(True)
    view.form.seedSpin.setValue(40)
    with qtbot.waitSignal(view.render_requested) as emitted:
        view.form.generateButton.click()
    request = emitted.args[0]
    assert isinstance(request, RenderRequest)
    assert request.mode == "clone" and request.instruct is None
    assert request.reference == clip and request.ref_text == "What the clip says."
    assert request.text == "Say this, please." and request.language == "en"
    assert request.seeds == (40, 41)
    assert request.options.decode.num_step == 32
    assert request.preprocess is True and request.speed is None and request.duration is None


def test_empty_transcript_asks_for_auto_transcription(qtbot, view, clip):
    view.reference.set_reference(clip)
    view.form.set_text("Hello.")
    with qtbot.waitSignal(view.render_requested) as emitted:
        view.form.generateButton.click()
    assert emitted.args[0].ref_text is None


def test_refuses_without_a_reference_inline(qtbot, view, clip):
    view.form.set_text("Hello.")
    with qtbot.assertNotEmitted(view.render_requested):
        view.form.generateButton.click()
    assert view.form.message_text() == NO_REFERENCE
    assert view.form.message.is_error()
    view.reference.set_reference(clip)  # choosing a clip takes the complaint away
    assert view.form.message_text() == ""


def test_refuses_empty_text_inline(qtbot, view, clip):
    view.reference.set_reference(clip)
    view.form.set_text("   ")
    with qtbot.assertNotEmitted(view.render_requested):
        view.form.generateButton.click()
    assert view.form.message_text() == NO_TEXT


def test_slots_for_the_main_window(qtbot, view):
    view.set_busy(True)
    assert not view.form.generateButton.isEnabled()
    view.on_progress(8, 16, 1, 1)
    assert view.form.progress_text().startswith("step 8/16")
    with qtbot.waitSignal(view.cancel_requested):
        view.form.cancelButton.click()
    assert view.form.progress_text() == "Cancelling…"  # at once (review 8)
    view.on_failed("The text is 20,001 characters long; split it into parts.")
    assert view.form.is_busy(), "busy is the window's call: it knows every job"
    view.set_busy(False)  # the window: that was the view's last job
    assert view.form.generateButton.isEnabled() and not view.form.cancelButton.isEnabled()
    assert view.form.message_text().startswith("The text is 20,001 characters long")
    view.set_busy(True)
    view.on_finished()
    view.set_busy(False)
    assert view.form.generateButton.isEnabled() and view.form.progress_text() == "Done"
    assert view.form.message_text() == ""


def test_transcribe_round_trip(qtbot, view, clip):
    view.reference.set_reference(clip)
    with qtbot.waitSignal(view.transcribe_requested) as asked:
        view.reference.transcribeButton.click()
    assert asked.args == [clip]
    assert not view.reference.transcribeButton.isEnabled()  # busy until the text comes back
    view.set_transcript("Recognised words.")
    assert view.reference.transcript() == "Recognised words."
    assert view.reference.transcribeButton.isEnabled()
    view.on_transcribe_failed("Transcription is unavailable: transformers is not installed.")
    assert view.reference.message_text().startswith("Transcription is unavailable")


def test_state_round_trip(qtbot, view, clip, tmp_path):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        environ={})
    view.reference.set_reference(clip)
    view.reference.set_transcript("Saved words.")
    view.form.set_text("Saved target.")
    view.form.languagePicker.set_language("ja")
    view.save_state(settings)

    again = make_view(qtbot)
    again.restore_state(settings)
    assert again.reference.reference() == clip
    assert again.reference.transcript() == "Saved words."
    assert again.form.request_fields() == view.form.request_fields()


def test_renders_offscreen(view, clip):
    view.reference.set_reference(clip)
    view.resize(1000, 700)
    image = view.grab().toImage()
    assert (image.width(), image.height()) == (1000, 700)
