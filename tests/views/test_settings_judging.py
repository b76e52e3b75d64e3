"""Settings → Judging: declared once, edited in the Settings view, read into the
JudgingSettings the worker gets with each load and at once when one changes."""

from __future__ import annotations

import pytest
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

from studio.judges.scores import WEIGHTS
from studio.service.requests import PASS_AT, JudgingSettings
from studio.settings import judging_settings
from studio.views.main_window import MainWindow, load_request


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(),
                        FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    return window


def test_the_defaults_judge_with_the_declared_weights(tmp_path):
    judging = judging_settings(make_settings(tmp_path / "s.ini"))
    assert judging == JudgingSettings(True, tuple(WEIGHTS.items()), PASS_AT)


def test_the_judging_controls_reach_the_worker(window):
    controller, view = window._controller, window.settingsView
    view.weightSpins["voice"].setValue(60)
    view.weightSpins["sound"].setValue(0)
    view.passSpin.setValue(55)
    sent = controller.named("set_judging")[-1][1]
    assert dict(sent.weights) == {"voice": 0.6, "words": 0.4, "sound": 0.0}
    assert sent.pass_at == 0.55 and sent.enabled
    view.judgingCheck.setChecked(False)
    assert controller.named("set_judging")[-1][1].enabled is False
    assert load_request(window._settings).judging == controller.named("set_judging")[-1][1]


def test_weights_all_at_zero_count_the_judges_equally(tmp_path):
    settings = make_settings(tmp_path / "s.ini")
    for judge in WEIGHTS:
        settings.set_value(f"judging/weight_{judge}", 0)
    assert set(dict(judging_settings(settings).weights).values()) == {1.0}
