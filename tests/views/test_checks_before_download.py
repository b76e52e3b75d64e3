"""Generate says what is wrong with the request before it offers the speech recogniser's
download (review 8, finding 3): a silent clip or a text over the limit is refused at
once; the 1.6 GB question comes only when an empty transcript is the one thing missing.
A refusal about a clip goes when the clip changes (finding 5)."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtWidgets import QApplication
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

from studio.engine.options import MAX_TEXT_CHARS
from studio.views.main_window import MainWindow


@pytest.fixture
def window(qtbot, tmp_path):
    controller = FakeController()
    window = MainWindow(make_settings(tmp_path / "settings.ini"), controller, FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY,
                        asr_downloader=lambda repo, **_: None, asr_on_disk=lambda model: None)
    qtbot.addWidget(window)
    window.show()
    window.modelStatus.ready("/m/OmniVoice")
    window.controller = controller
    return window


@pytest.fixture
def clips(tmp_path, speech):
    silence, me = tmp_path / "silence.wav", tmp_path / "me.wav"
    sf.write(silence, np.zeros(5 * 24000, np.float32), 24000)
    sf.write(me, speech(4.0), 24000)
    return silence, me


def questions() -> list:
    return [w for w in QApplication.topLevelWidgets()
            if w.objectName() == "asrDownloadQuestion" and w.isVisible()]


def asked() -> bool:
    return bool(questions())


def generate(window, clip, text: str) -> None:
    view = window.cloneView
    view.reference.set_reference(clip)
    view.form.textEdit.setPlainText(text)
    view.form.generateButton.click()
    QApplication.processEvents()


def test_a_silent_clip_is_refused_before_the_download_is_offered(window, clips):
    silence, _me = clips
    generate(window, silence, "Hello there.")
    assert not asked() and not window.controller.named("render")
    said = f"{silence} is completely silent; choose a clip where the voice is audible."
    assert window.cloneView.form.message_text() == said
    assert window.statusBarWidget.message() == said and window.statusBarWidget.is_error()


def test_a_text_over_the_limit_is_refused_before_the_download_is_offered(window, clips):
    _silence, me = clips
    generate(window, me, "Word. " * (MAX_TEXT_CHARS // 6 + 10))
    assert not asked() and not window.controller.named("render")
    assert "split it into parts" in window.cloneView.form.message_text()


def test_the_download_is_offered_when_the_transcript_is_all_that_is_missing(window, clips):
    _silence, me = clips
    generate(window, me, "Hello there.")
    assert asked() and not window.controller.named("render")
    assert not window.cloneView.form.message_text()
    for box in questions():  # answered, so no later test finds this window's question
        box.findChild(type(box.buttons()[0]), "asrTypeButton").click()


def test_a_refusal_about_a_clip_goes_when_the_clip_changes(window, clips):
    silence, me = clips
    generate(window, silence, "Hello there.")
    assert "completely silent" in window.cloneView.form.message_text()
    window.cloneView.reference.set_reference(me)
    assert window.cloneView.form.message_text() == ""
    assert window.statusBarWidget.message() == ""


def test_a_refusal_about_the_text_stays_when_the_clip_changes(window, clips):
    silence, me = clips
    generate(window, me, "Word. " * (MAX_TEXT_CHARS // 6 + 10))
    window.cloneView.reference.set_reference(silence)
    # The form keeps it, beside the text it is about; the status bar moves on with the new
    # clip (it keeps no error past the user's next action).
    assert "split it into parts" in window.cloneView.form.message_text()


def test_a_refusal_about_the_text_goes_once_the_text_is_fixed(window, clips):
    """Review 2 (new user), item 4: an input's sentence follows the input, never stale."""
    _silence, me = clips
    generate(window, me, "Word. " * (MAX_TEXT_CHARS // 6 + 10))
    form = window.cloneView.form
    assert "split it into parts" in form.message_text()
    form.textEdit.setPlainText("Word. " * (MAX_TEXT_CHARS // 6 + 20))  # still too long
    assert "split it into parts" in form.message_text()
    form.textEdit.setPlainText("Short enough now.")
    assert form.message_text() == ""
