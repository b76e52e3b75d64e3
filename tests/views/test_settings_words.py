"""Review 5, items 5 and 6: Settings says in plain words what Precision and Acceleration
change, names "needs an NVIDIA GPU" once, explains the voice prompt cache and why there
are two speech recognisers; the status bar's precision and acceleration open Settings."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from studio_fakes import CPU_ONLY, PLAYABLE, fake_window, make_settings

from studio.views.main_window import MainWindow
from studio.views.settings_view import SettingsView
from studio.views.settings_words import accel_availability


@pytest.fixture
def view(qtbot, tmp_path) -> SettingsView:
    view = SettingsView(make_settings(tmp_path / "s.ini"), probe=lambda: CPU_ONLY,
                        audio_status=PLAYABLE)
    qtbot.addWidget(view)
    return view


def _texts(view) -> list[str]:
    return [label.text() for label in view.findChildren(QLabel)]


def test_precision_says_what_it_changes_for_the_sound(view):
    hint = next(t for t in _texts(view) if t.startswith("fp32 "))
    assert "exactly" in hint and "faster" in hint and "tiny differences" in hint
    tip = view.precisionCombo.toolTip()
    assert "as accurate as bf16" in tip and "memory" in tip


def test_acceleration_says_needs_an_nvidia_gpu_once_and_keeps_each_reason(view):
    shown = view.accelAvailability.text()
    assert shown.count("Needs an NVIDIA GPU") == 1 and "no CUDA GPU" not in shown
    items = view.accelCombo.model()
    row = view.accelCombo.findData("flashinfer")
    assert items.item(row).toolTip() == CPU_ONLY["flashinfer"][1]  # the whole reason, kept
    assert any(t.startswith("Faster rendering on an NVIDIA GPU") for t in _texts(view))


def test_a_reason_other_than_no_gpu_is_still_named_per_option():
    text = accel_availability([("FlashInfer", "flashinfer: package not installed"),
                               ("CUDA graphs", "graph: no CUDA GPU")])
    assert "Needs an NVIDIA GPU:</span> CUDA graphs." in text
    assert "<b>FlashInfer</b>: package not installed" in text


def test_the_prompt_cache_and_its_counts_are_explained(view):
    texts = _texts(view)
    assert any(t.startswith("A voice prompt is a reference clip made ready") for t in texts)
    assert "One prompt per reference clip or saved voice you render with." in texts


def test_the_two_recognisers_say_why_there_are_two(view):
    judge = view.judgeModel.label.text()
    assert "whisper-base" in judge and "transcription model below is the accurate one" in judge
    assert any(t.startswith("Writes down every take with the transcription model below")
               and "Judging does not need it" in t for t in _texts(view))


@pytest.fixture
def window(qtbot, tmp_path) -> MainWindow:
    return fake_window(qtbot, tmp_path, asr_on_disk=lambda model: model)


@pytest.mark.parametrize(("pill", "control"), [("badge", "accelCombo"),
                                                ("deviceLabel", "precisionCombo")])
def test_the_status_bar_pills_open_settings_at_their_setting(qtbot, window, pill, control):
    window.show()
    qtbot.waitExposed(window)
    label = getattr(window.statusBarWidget, pill)
    label.show()  # the device label shows once a model is ready
    assert window.current_view() == "clone"
    assert "Click to change it in Settings." in label.toolTip()
    with qtbot.waitSignal(window.statusBarWidget.settings_requested):
        qtbot.mouseClick(label, Qt.MouseButton.LeftButton)
    assert window.current_view() == "settings"
    combo = getattr(window.settingsView, control)
    qtbot.waitUntil(lambda: combo.hasFocus() or not window.isActiveWindow(), timeout=1000)
    assert combo.visibleRegion().boundingRect().height() > 0  # scrolled into view


def test_acceleration_stays_beside_its_label_beside_the_takes_panel_at_1024(qtbot, view):
    """Its longest item ("… (unavailable)") wrapped the row under its label at 1024 px."""
    view.resize(480, 640)  # the page beside the takes panel in a 1024 px window
    view.show()
    qtbot.waitExposed(view)

    def left(widget) -> int:
        return widget.mapTo(view, widget.rect().topLeft()).x()

    qtbot.waitUntil(lambda: left(view.accelCombo) == left(view.precisionCombo), timeout=2000)


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
@pytest.mark.parametrize(("key", "control"), [("accel/mode", "accelCombo"),
                                              ("model/precision", "precisionCombo")])
def test_settings_opened_at_a_row_shows_its_heading_and_lights_the_row_briefly(
        qtbot, tmp_path, size, key, control):
    """Review 6, item 8: opened from the status bar, nothing was highlighted and the Model
    heading was scrolled off the top."""
    from PySide6.QtCore import QPoint

    window = fake_window(qtbot, tmp_path, size=size)
    window.show_view("settings")
    view = window.settingsView
    view.show_setting(key)
    qtbot.wait(30)
    combo = getattr(view, control)
    viewport = view._scroll.viewport()
    section = combo
    while section.property("settingsSection") is None:
        section = section.parentWidget()
    assert section.property("settingsSection") == "Model"
    heading_top = section.mapTo(viewport, QPoint(0, 0)).y()
    combo_bottom = combo.mapTo(viewport, QPoint(0, combo.height())).y()
    assert combo_bottom <= viewport.height()  # the row in view
    if combo_bottom - heading_top <= viewport.height() - 60:  # both fit: the heading shows
        assert heading_top >= 0, heading_top
    assert view.highlighted() == key
    qtbot.waitUntil(lambda: view.highlighted() is None, timeout=4000)  # brief, then gone


def test_the_device_note_says_the_greyed_out_choices_are_in_the_list(view):
    view.set_availability({"device:cuda": (False, "no CUDA GPU found")})
    assert view.deviceAvailability.text().startswith("Greyed out in the list: ")
