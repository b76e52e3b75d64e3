"""Status bar: model state, device and precision, the acceleration badge in its three
states (reason in text and tooltip when fallen back), and errors styled apart."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from studio.model_state import ModelState, Phase
from studio.service.requests import AccelState, ModelInfo
from studio.views.status_bar import ACTIVE, FELL_BACK, OFF, REQUESTED, StatusBar, badge_for


@pytest.fixture
def bar(qtbot) -> StatusBar:
    widget = StatusBar()
    qtbot.addWidget(widget)
    return widget


def badge(bar: StatusBar) -> QLabel:
    label = bar.findChild(QLabel, "accelBadge")
    assert label is bar.badge
    return label


def test_requested_until_the_worker_answers(bar):
    bar.set_accel_requested("flashinfer")
    assert bar.badge_state() == REQUESTED
    assert badge(bar).text() == "FlashInfer: requested"
    assert "takes effect" in badge(bar).toolTip()


def test_active_when_the_worker_runs_what_was_asked(bar):
    bar.set_accel(AccelState("compile", "compile", None))
    assert bar.badge_state() == ACTIVE
    assert badge(bar).text() == "torch.compile: active"
    assert "#e3f4e5" in badge(bar).styleSheet()  # green pill


def test_fell_back_names_the_reason_in_text_and_tooltip(bar):
    reason = "flashinfer: package not installed"
    bar.set_accel(AccelState("flashinfer-graph", "off", reason))
    assert bar.badge_state() == FELL_BACK
    assert badge(bar).text().startswith("FlashInfer + CUDA graphs: fell back")
    assert reason in badge(bar).text()
    assert reason in badge(bar).toolTip() and "standard path" in badge(bar).toolTip()
    assert "#fde3e1" in badge(bar).styleSheet()  # red pill


def test_the_three_states_look_different(bar):
    styles = set()
    for state in (None, AccelState("flashinfer", "flashinfer", None),
                  AccelState("flashinfer", "off", "flashinfer: CUDA out of memory")):
        if state is None:
            bar.set_accel_requested("flashinfer")
        else:
            bar.set_accel(state)
        styles.add(badge(bar).styleSheet())
    assert len(styles) == 3


def test_off_is_neutral_and_a_new_request_resets_the_answer(bar):
    bar.set_accel(AccelState("off", "off", None))
    assert bar.badge_state() == OFF and badge(bar).text() == "Acceleration: off"
    bar.set_accel(AccelState("flashinfer", "off", "flashinfer: no CUDA GPU"))
    bar.set_accel_requested("compile")
    assert bar.badge_state() == REQUESTED


def test_badge_for_a_fallback_to_another_accelerated_path():
    badge_ = badge_for(AccelState("flashinfer-graph", "flashinfer", "graph capture failed"))
    assert badge_.state == FELL_BACK and "FlashInfer" in badge_.tooltip


def test_model_states(bar):
    bar.set_model_state(ModelState(Phase.NOT_DOWNLOADED, "k2-fsa/OmniVoice"))
    assert bar.model_state() == "not_downloaded" and bar.modelLabel.text() == "Not downloaded"
    bar.set_model_state(ModelState(Phase.DOWNLOADING, "k2-fsa/OmniVoice", percent=34))
    assert bar.modelLabel.text() == "Downloading 34 %"
    bar.set_model_state(ModelState(Phase.LOADING, "/models/OmniVoice"))
    assert bar.model_state() == "loading" and bar.modelLabel.text() == "Loading"
    assert not bar.deviceLabel.isVisibleTo(bar)
    bar.set_model_state(ModelState(Phase.READY, "/models/OmniVoice"),
                        ModelInfo("/models/OmniVoice", "cuda:0", "bf16", 24000,
                                  "auto: GPU supports bf16"))
    assert bar.modelLabel.text() == "Ready: OmniVoice"
    assert "/models/OmniVoice" in bar.modelLabel.toolTip()
    assert bar.deviceLabel.text() == "cuda:0 · bf16"
    assert "auto: GPU supports bf16" in bar.deviceLabel.toolTip()  # why this precision
    bar.set_model_state(ModelState(Phase.FAILED, "/x", "The model folder /x does not exist; "
                                   "pass a checkpoint folder."))
    assert bar.model_state() == "failed" and bar.is_error()
    assert "does not exist" in bar.findChild(QLabel, "statusMessage").text()
    assert not bar.deviceLabel.isVisibleTo(bar)  # no device: nothing runs
    bar.set_model_state(ModelState(Phase.SERVER, "http://gpu-box:8000"))
    assert bar.modelLabel.text() == "Server: gpu-box:8000"


def test_errors_are_styled_apart_from_messages(bar):
    message = bar.findChild(QLabel, "statusMessage")
    bar.show_message("Rendered 1 take.")
    assert not bar.is_error() and message.text() == "Rendered 1 take."
    plain = message.styleSheet()
    bar.show_error("The model is not loaded yet.")
    assert bar.is_error() and "The model is not loaded yet." in message.text()
    assert message.styleSheet() != plain and "#b71c1c" in message.styleSheet()
    assert message.toolTip() == "The model is not loaded yet."


LONG = ("Cannot download openai/whisper-large-v3-turbo from the Hugging Face hub; check your "
        "connection and try again, or choose a model folder in Settings.")


def test_a_cut_off_message_is_whole_in_its_tooltip_and_on_a_click(qtbot, bar, monkeypatch):
    """Review 2: at 1024 px the status line was cut off; hovering or clicking shows it all."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtWidgets import QToolTip

    bar.resize(520, 30)
    bar.show()
    qtbot.waitExposed(bar)
    bar.show_error(LONG)
    label = bar.messageLabel
    assert label.is_elided(), "the sentence does not fit: it is cut at a word with …"
    assert label.toolTip() == LONG
    shown = []
    monkeypatch.setattr(QToolTip, "showText", lambda *args: shown.append(args[1]))
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=QPoint(20, label.height() // 2))
    assert shown == [LONG]


def test_a_short_form_keeps_the_whole_sentence_in_the_tooltip(bar):
    from studio.crash import ABNORMAL_END, abnormal_end_message

    bar.show_error(ABNORMAL_END, details=abnormal_end_message(None))
    assert bar.messageLabel.text() == "⚠ " + ABNORMAL_END and bar.message() == ABNORMAL_END
    assert bar.messageLabel.toolTip() == abnormal_end_message(None)


def test_move_on_clears_an_error_but_not_a_message(bar):
    bar.show_error("The render failed.")
    bar.move_on()
    assert not bar.is_error() and bar.message() == ""
    bar.show_message("Rendered 1 take.")
    bar.move_on()
    assert bar.message() == "Rendered 1 take."
