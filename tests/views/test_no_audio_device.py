"""Review 2: with no audio output device the take's Play was greyed with a reason, but
Voices' "Play clip" was enabled (and failed with PortAudio's "device -1"), and the
cast's previews looked ready. Every play button follows the window's one audio status:
greyed, with the same sentence as its tooltip."""

from __future__ import annotations

import pytest
from studio_fakes import CPU_ONLY, PLAYABLE, SILENT, FakeController, FakePlayer, make_settings

from studio.views.main_window import MainWindow
from studio.views.script_cast import PREVIEW
from tests.library.library_helpers import make_prompt, write_clip


@pytest.fixture
def window_with(qtbot, tmp_path, voice_writer):
    """A window on ``status`` with a saved voice Mia, her clip in Clone and a script of her
    lines open; yields a function of the status."""
    clip = write_clip(tmp_path / "mia.wav", 2.0)
    voice_writer.create("Mia", clip, make_prompt(text="Hello there."), language="en")
    made = []

    def make(status):
        window = MainWindow(make_settings(tmp_path / f"settings{len(made)}.ini"),
                            FakeController(), FakePlayer(), audio_status=status,
                            accel_probe=lambda: CPU_ONLY)
        qtbot.addWidget(window)
        made.append(window)
        window.cloneView.reference.set_reference(clip)
        window.designView.reference.set_reference(clip)
        window.show_view("voices")
        window.voicesView.refresh()
        window.voicesView.list.setCurrentIndex(window.voicesView.model.index(0, 0))
        script = tmp_path / f"talk{len(made)}.txt"
        script.write_text("Mia: Good morning.\n", encoding="utf-8")
        window.scriptView.open(script)  # Mia gets the saved voice of her name
        return window

    yield make
    for window in made:
        window.scriptView.close_project()
        for view in (window.voicesView, window.cloneView.voices, window.scriptView):
            view.close_library()


def play_buttons(window) -> dict:
    return {
        "take": window.takesPanel.playButton,
        "clone clip": window.cloneView.reference.playButton,
        "design clip": window.designView.reference.playButton,
        "voice clip": window.voicesView.playButton,
        "cast preview": window.scriptView.cast.table.cellWidget(0, PREVIEW),
        "script mix": window.scriptView.playButton,
    }


def test_every_play_button_is_greyed_with_the_one_reason(window_with):
    window = window_with(SILENT)
    buttons = play_buttons(window)
    assert all(button is not None for button in buttons.values())
    assert {name: b.isEnabled() for name, b in buttons.items()} == dict.fromkeys(buttons, False)
    assert {name: b.toolTip() for name, b in buttons.items()} == dict.fromkeys(
        buttons, "Playback is off: no audio output device was found.")
    window.voicesView.toggle_play()  # a shortcut or a stale click plays nothing, says nothing
    assert not [c for c in window._player.calls if c[0] in ("load", "play")]
    assert not window.statusBarWidget.is_error()


def test_with_a_device_the_clip_buttons_play(window_with):
    window = window_with(PLAYABLE)
    buttons = play_buttons(window)
    for name in ("clone clip", "design clip", "voice clip", "cast preview"):
        assert buttons[name].isEnabled(), name
        assert "Playback is off" not in buttons[name].toolTip(), name


def test_a_greyed_play_icon_is_faint(qtbot):
    """Clone's icon-only ▶ looked ready when greyed (the style's disabled triangle is dark)."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QPushButton

    from studio.views.play_state import DISABLED_OPACITY, play_icon

    button = QPushButton()
    qtbot.addWidget(button)

    def darkest_alpha(mode) -> int:
        image = play_icon(button).pixmap(16, 16, mode).toImage()
        return max(image.pixelColor(x, y).alpha()
                   for x in range(image.width()) for y in range(image.height()))

    assert darkest_alpha(QIcon.Mode.Normal) > 200
    assert darkest_alpha(QIcon.Mode.Disabled) <= 255 * DISABLED_OPACITY + 1
