"""Takes panel: one row per take, newest first, played through the shared player;
Space toggles; the play button says why when playback is off."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView
from studio_fakes import PLAYABLE, SILENT, FakePlayer, make_result

from studio.views.takes_panel import TakesModel, TakesPanel


@pytest.fixture
def player() -> FakePlayer:
    return FakePlayer()


@pytest.fixture
def panel(qtbot, player) -> TakesPanel:
    widget = TakesPanel(player, audio_status=PLAYABLE)
    qtbot.addWidget(widget)
    return widget


def test_add_result_adds_one_row_per_take_newest_first(panel):
    assert panel.findChild(QListView, "takesList") is panel.list
    assert panel.model.rowCount() == 0 and not panel.playButton.isEnabled()
    panel.add_result(make_result("First text.", "clone", seeds=(1,)))
    panel.add_result(make_result("Second text, two takes.", "design", seeds=(5, 6),
                                 seconds_each=2.0, render_seconds=2.0))
    model = panel.model
    assert model.rowCount() == 3
    assert model.index(0).data() == "Second text, two takes."
    assert model.index(2).data() == "First text."
    meta = model.index(0).data(TakesModel.MetaRole)
    assert "Design" in meta and "take 1/2" in meta and "seed 5" in meta
    assert "2.0 s" in meta and "RTF 0.50" in meta  # 2 s of work for 4 s of audio
    assert "seed 6" in model.index(1).data(TakesModel.MetaRole)
    assert panel.countLabel.text() == "3 takes"
    assert panel.list.currentIndex().row() == 0  # the newest take is selected


def test_long_text_is_an_excerpt_with_the_full_text_in_the_tooltip(panel):
    text = "word " * 60
    panel.add_result(make_result(text))
    index = panel.model.index(0)
    assert len(index.data()) <= 90 and index.data().endswith("…")
    assert text.strip() in index.data(Qt.ItemDataRole.ToolTipRole)


def test_play_pause_through_the_player(qtbot, panel, player):
    panel.add_result(make_result("One."))
    panel.playButton.click()
    take = panel.selected()
    assert player.calls[:2] == [("load", take.key), ("play",)]
    assert panel.playButton.text() == "Pause"
    assert panel.model.index(0).data(TakesModel.StateRole) == "playing"
    panel.playButton.click()
    assert player.calls[-1] == ("pause",) and panel.playButton.text() == "Play"
    assert panel.model.index(0).data(TakesModel.StateRole) == "paused"


def test_space_toggles_the_selected_take(qtbot, panel, player):
    panel.add_result(make_result("One."))
    panel.add_result(make_result("Two."))
    panel.list.setCurrentIndex(panel.model.index(1))
    qtbot.keyClick(panel.list, Qt.Key.Key_Space)
    assert player.key() == panel.model.take(1).key and player.state() == "playing"
    qtbot.keyClick(panel.list, Qt.Key.Key_Space)
    assert player.state() == "paused"
    panel.list.setCurrentIndex(panel.model.index(0))  # another take loads afresh
    qtbot.keyClick(panel.list, Qt.Key.Key_Space)
    assert player.key() == panel.model.take(0).key and player.state() == "playing"
    assert panel.model.index(1).data(TakesModel.StateRole) == ""


def test_playing_another_clip_clears_the_take_marker(panel, player):
    panel.add_result(make_result("One."))
    panel.toggle()
    player.load([0.0] * 10, 10, ("reference", 1))
    assert panel.model.index(0).data(TakesModel.StateRole) == ""
    assert panel.playButton.text() == "Play"


def test_playback_off_disables_play_with_the_reason(qtbot, player):
    panel = TakesPanel(player, audio_status=SILENT)
    qtbot.addWidget(panel)
    panel.add_result(make_result("One."))
    assert not panel.playButton.isEnabled()
    assert panel.playButton.toolTip() == SILENT.reason
    panel.toggle()
    assert player.calls == []


def test_no_player_disables_play(qtbot):
    panel = TakesPanel(None, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    panel.add_result(make_result("One."))
    assert not panel.playButton.isEnabled() and "Playback is off" in panel.playButton.toolTip()
