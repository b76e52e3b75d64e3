"""Review 5, item 3: the first screen (Clone) needs a recording. While no clip is loaded it
says the other way in (Design) with a link; typed text follows the person between Clone
and Design; and the empty reference area is short enough for the Text box at 1024x640."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from studio_fakes import fake_window

from studio.sound.files import write_audio_atomic
from studio.views.main_window import MainWindow
from studio.views.text_carry import TextCarry


@pytest.fixture
def window(qtbot, tmp_path) -> MainWindow:
    return fake_window(qtbot, tmp_path, asr_on_disk=lambda model: model)


@pytest.fixture
def clip(tmp_path, speech) -> Path:
    path = tmp_path / "voice.wav"
    write_audio_atomic(path, speech(1.5), 24000)
    return path


def test_with_no_clip_clone_offers_design_and_the_link_goes_there(qtbot, window, clip):
    window.show()
    qtbot.waitExposed(window)
    clone = window.cloneView
    assert window.current_view() == "clone"
    assert clone.designLink.isVisible()
    assert "No recording?" in clone.designLink.text()
    clone.designLink.linkActivated.emit("design")
    assert window.current_view() == "design"

    window.show_view("clone")
    clone.reference.set_reference(clip)
    assert not clone.designLink.isVisible()  # a clip is here: nothing to offer instead
    assert clone.cleanup.isVisible()


def test_text_typed_in_clone_is_there_in_design_and_back(window):
    window.cloneView.form.set_text("Chapter two. The rain had not stopped.")
    window.show_view("design")
    assert window.designView.form.text() == "Chapter two. The rain had not stopped."

    window.cloneView.form.set_text("")
    window.show_view("clone")
    assert window.cloneView.form.text() == "Chapter two. The rain had not stopped."


def test_text_already_in_the_other_view_is_never_overwritten(window):
    window.designView.form.set_text("Design's own words.")
    window.cloneView.form.set_text("Clone's words.")
    window.show_view("design")
    assert window.designView.form.text() == "Design's own words."
    window.show_view("voices")
    window.show_view("clone")  # from Voices: nothing to carry
    assert window.cloneView.form.text() == "Clone's words."


class _Form:
    def __init__(self, text: str = ""):
        self._text = text

    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        self._text = text


def test_the_carry_rule_only_between_its_views_and_only_into_an_empty_box():
    clone, design = _Form("Hello."), _Form("   ")
    carry = TextCarry({"clone": clone, "design": design}, current="clone")
    assert not carry.entered("clone")  # no switch
    assert carry.entered("design") and design.text() == "Hello."
    clone.set_text("")
    assert carry.entered("settings") is False
    assert carry.entered("clone") is False and clone.text() == ""  # from Settings: no carry


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_the_text_box_is_in_view_on_the_first_screen(qtbot, window, size):
    """At 1024x640 only one line of the Text box showed above the fold."""
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(50)
    form = window.cloneView.form
    viewport = form.scroll.viewport()
    top = form.textEdit.mapTo(viewport, QPoint(0, 0)).y()
    shown = viewport.height() - top
    assert shown >= min(80, form.textEdit.height()), (top, viewport.height())
