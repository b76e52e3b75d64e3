"""Review 2 (new user), item 4: the inline "Type the text the voice should say." stayed
after a clip was loaded and under 25,000 pasted characters, and the message line cut the
Advanced / Takes row in half above it. A sentence about a missing input follows the
inputs (the newest check, or nothing), and a message coming keeps the last row whole."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget
from studio_fakes import fake_window

from studio.engine.options import MAX_TEXT_CHARS
from studio.sound.files import write_audio_atomic
from studio.views.clone_view import NO_REFERENCE
from studio.views.generate_form import NO_TEXT


@pytest.fixture
def clip(tmp_path, speech):
    path = tmp_path / "voice.wav"
    write_audio_atomic(path, speech(4.0), 24000)
    return path


@pytest.fixture
def window(qtbot, tmp_path):
    return fake_window(qtbot, tmp_path, size=(1366, 768))


def test_the_missing_text_sentence_goes_once_text_is_typed(qtbot, window, clip):
    view = window.cloneView
    view.reference.set_reference(clip)
    view.form.generateButton.click()
    assert view.form.message_text() == NO_TEXT
    qtbot.keyClicks(view.form.textEdit, "Hi")
    assert view.form.message_text() == "" and not view.form.message.isVisible()


def test_pasted_text_too_long_replaces_the_missing_text_sentence(qtbot, window, clip):
    view = window.cloneView
    view.reference.set_reference(clip)
    view.form.generateButton.click()
    assert view.form.message_text() == NO_TEXT
    QApplication.clipboard().setText("The quick brown fox. " * 1200)  # 25,200 characters
    view.form.textEdit.paste()
    said = view.form.message_text()
    assert said.startswith("The text is 25,200 characters long") and f"{MAX_TEXT_CHARS:,}" in said
    view.form.set_text("Short again.")  # within the limit: nothing is missing any more
    assert view.form.message_text() == ""


def test_a_new_clip_gives_the_newest_check_not_the_old_sentence(window, clip):
    view = window.cloneView
    view.form.generateButton.click()  # no clip, no text
    assert view.form.message_text() == NO_REFERENCE
    view.reference.set_reference(clip)  # the clip is given; the text is still missing
    assert view.form.message_text() == NO_TEXT
    view.form.set_text("Now it can render.")
    assert view.form.message_text() == ""


def test_other_messages_are_not_taken_for_a_missing_input(window):
    view = window.cloneView
    view.form.show_message("Cancelled.", error=False)
    view.form.set_text("An edit after a cancel.")
    assert view.form.message_text() == "Cancelled."


def _rect(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


@pytest.mark.parametrize("size", [(1366, 768), (1024, 640)])
def test_the_message_takes_its_own_room_under_the_last_rows(qtbot, tmp_path, clip, size):
    window = fake_window(qtbot, tmp_path, size=size)
    form = window.cloneView.form
    window.cloneView.reference.set_reference(clip)
    qtbot.wait(300)  # the page settles after the clip
    bar = form.scroll.verticalScrollBar()
    bar.setValue(bar.maximum())  # at the end, as the person who saw the last rows was
    form.generateButton.click()
    assert form.message_text() == NO_TEXT
    qtbot.wait(300)
    message = _rect(form.message, window)
    viewport = _rect(form.scroll.viewport(), window)
    for widget in (form.advanced.button, form.takesSpin, form.untilPassCheck):
        placed = _rect(widget, window)
        assert not placed.intersects(message), (widget.objectName(), placed, message)
        assert viewport.contains(placed), (widget.objectName(), placed, viewport)
