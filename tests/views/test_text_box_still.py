"""Review 6, item 3: picking a saved voice pushed the Text box about 100 px lower, so
the next click missed it. A clip coming or going keeps the Text box where it was."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from studio_fakes import fake_window

from tests.library.library_helpers import make_prompt, write_clip


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_picking_a_saved_voice_leaves_the_text_box_where_it_was(qtbot, tmp_path, voice_writer,
                                                                size):
    voice = voice_writer.create("Margaret", write_clip(tmp_path / "m.wav", 5.0),
                                make_prompt(text="Welcome."))
    window = fake_window(qtbot, tmp_path, size=size)
    view = window.cloneView
    form = view.form
    qtbot.wait(50)

    def top() -> int:
        return form.textEdit.mapTo(form.scroll.viewport(), QPoint(0, 0)).y()

    before = top()
    view.pick_voice(voice.id)
    qtbot.wait(50)
    assert view.reference.reference() is not None and view.reference.clipMeter.isVisible()
    assert abs(top() - before) <= 2, (before, top())
    view.reference.set_reference(None)  # and back: still there
    qtbot.wait(50)
    assert abs(top() - before) <= 2, (before, top())


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_the_voice_picker_in_use_stays_in_view(qtbot, tmp_path, voice_writer, size):
    """Holding the Text box still scrolled the Voice row off the top while the person was
    using it (picked with the keyboard): the control in use stays in view."""
    from PySide6.QtCore import Qt

    voice_writer.create("Margaret", write_clip(tmp_path / "m.wav", 5.0),
                        make_prompt(text="Welcome."))
    window = fake_window(qtbot, tmp_path, size=size)
    view = window.cloneView
    combo, viewport = view.voices.voiceCombo, view.form.scroll.viewport()
    qtbot.wait(50)
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # "Your own clip" -> Margaret
    qtbot.waitUntil(lambda: view.reference.reference() is not None)
    qtbot.wait(400)  # past the anchor's settling
    top = combo.mapTo(viewport, QPoint(0, 0)).y()
    assert 0 <= top and top + combo.height() <= viewport.height(), top
