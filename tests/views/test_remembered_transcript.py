"""Review 2 (new user), item 8: a clip loaded again silently got back the transcript
typed for it earlier, and a person who began typing its transcript got it twice. The
hint line says it is the earlier transcript, and it is selected so typing replaces it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from studio_fakes import FakePlayer, FakeRecorder

from studio.audio.backend import AudioStatus
from studio.sound.files import write_audio_atomic
from studio.views.reference_panel import AUTO_TRANSCRIPT_NOTE, ReferencePanel
from studio.views.remembered_text import REMEMBERED_NOTE

PLAYABLE = AudioStatus(True, None, [(0, "Speakers")], [(1, "Microphone")])


@pytest.fixture
def panel(qtbot, tmp_path, speech):
    widget = ReferencePanel(FakePlayer(), recorder=FakeRecorder(speech(1.0)),
                            audio_status=PLAYABLE)
    qtbot.addWidget(widget)
    widget.resize(700, 500)
    widget.show()
    qtbot.waitExposed(widget)
    me, other = tmp_path / "me.wav", tmp_path / "other.wav"
    write_audio_atomic(me, speech(3.0), 24000)
    write_audio_atomic(other, speech(3.0, seed=5), 24000)
    widget.set_reference(me)
    widget.refTextEdit.setPlainText("Hello, this is my voice.")
    widget.set_reference(other)
    widget.set_reference(me)  # back: its transcript comes back
    return widget


def test_the_hint_says_the_transcript_is_the_one_typed_earlier(panel):
    assert panel.transcript() == "Hello, this is my voice."
    assert panel.note.text() == REMEMBERED_NOTE
    assert panel.note.text().startswith("The transcript you typed for this clip earlier")
    assert panel.refTextEdit.textCursor().selectedText() == "Hello, this is my voice."


def test_typing_after_tabbing_in_replaces_it(qtbot, panel):
    panel.refTextEdit.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(panel.refTextEdit.hasFocus)
    qtbot.keyClicks(panel.refTextEdit, "Hello again")
    assert panel.transcript() == "Hello again"
    assert panel.note.text() == AUTO_TRANSCRIPT_NOTE  # the person's own words now


def test_typing_after_a_click_replaces_it(qtbot, panel):
    """The review's person clicked into the box first; the click no longer drops the
    selection the first time."""
    viewport = panel.refTextEdit.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=QPoint(viewport.width() - 10, 10))
    qtbot.keyClicks(panel.refTextEdit, "Typed once")
    assert panel.transcript() == "Typed once"
    # Later clicks place the cursor as usual.
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=QPoint(viewport.width() - 10, 10))
    qtbot.keyClicks(panel.refTextEdit, "!")
    assert panel.transcript() == "Typed once!"


def test_a_new_clip_or_the_recogniser_size_keeps_the_hint_true(panel, tmp_path, speech):
    panel.set_recogniser_size("about 1.6 GB")  # said once the remembered text is edited
    assert panel.note.text() == REMEMBERED_NOTE
    third = tmp_path / "third.wav"
    write_audio_atomic(third, speech(3.0, seed=7), 24000)
    panel.set_reference(third)  # never used: starts empty, with the usual hint
    assert panel.transcript() is None
    assert "about 1.6 GB" in panel.note.text()
