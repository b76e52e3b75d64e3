"""A/B view: switching keeps the playhead and applies the loudness-matching gains;
blind mode hides which take is which until the pick, then reveals and stars the
winner; keys A/B/Tab/Space."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from studio_fakes import PLAYABLE, SILENT, FakePlayer
from take_fixtures import add, add_judged, voice

from studio.sound.loudness import gain_db
from studio.views.ab_view import ABDialog, ABView
from studio.views.takes_panel import TakesPanel


@pytest.fixture
def pair(writer):
    """A loud take (A) and one 12 dB quieter (B)."""
    loud = add(writer, "Compare us.", seed=1, audio=voice(2.0, amplitude=0.4))
    quiet = add(writer, "Compare us.", seed=2, audio=voice(2.0, amplitude=0.1, freq=220))
    return loud, quiet


def make_view(qtbot, player, controller, reader, pair, **kwargs) -> ABView:
    view = ABView(player, controller, reader, pair, names=("Take 1 · seed 1", "Take 2 · seed 2"),
                  **kwargs)
    qtbot.addWidget(view)
    view.resize(640, 420)
    return view


def test_switching_keeps_the_position_and_applies_matched_gains(qtbot, player, controller,
                                                               reader, pair):
    loud, quiet = pair
    view = make_view(qtbot, player, controller, reader, pair)
    gain_loud, gain_quiet = view.gains()
    # Stored loudness differs by about 12 dB; the louder take is turned down to the quieter one.
    assert loud.loudness_lufs - quiet.loudness_lufs > 10
    assert gain_db(gain_loud) == pytest.approx(quiet.loudness_lufs - loud.loudness_lufs, abs=0.01)
    assert gain_quiet == 1.0
    view.toggle()  # Play: A loads at its gain
    assert player.calls[:2] == [("load", ("ab", loud.id)), ("play",)]
    assert player.gain() == pytest.approx(gain_loud)
    player.seek(1.25)
    view.select(1)  # B: the same time, B's gain, still playing
    assert player.calls[-1] == ("switch", ("ab", quiet.id), 1.25, 1.0)
    assert player.state() == "playing" and player.position() == 1.25
    assert view.waveform.position() == pytest.approx(1.25)
    assert view.sideButtons[1].isChecked() and not view.sideButtons[0].isChecked()
    view.switch()  # Tab's action: back to A at the same time
    assert player.calls[-1] == ("switch", ("ab", loud.id), 1.25, pytest.approx(gain_loud))
    assert f"turned down {-gain_db(gain_loud):.1f} dB" in view.sideLabels[0].text()
    assert "as rendered" in view.sideLabels[1].text()


def test_matched_loudness_is_within_half_a_db(qtbot, player, controller, reader, pair):
    from studio.sound.loudness import loudness_lufs

    view = make_view(qtbot, player, controller, reader, pair)
    levels = []
    for index, take in enumerate(pair):
        audio, rate = reader.read_audio(take.id)
        levels.append(loudness_lufs(audio * view.gains()[index], rate))
    assert abs(levels[0] - levels[1]) < 0.5


def test_keys_a_b_tab_and_space(qtbot, player, controller, reader, pair):
    loud, quiet = pair
    view = make_view(qtbot, player, controller, reader, pair)
    view.show()
    qtbot.waitExposed(view)
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow)
    view.playButton.setFocus()
    qtbot.keyClick(view.playButton, Qt.Key.Key_Space)
    assert player.state() == "playing" and player.key() == ("ab", loud.id)
    qtbot.keyClick(view.playButton, Qt.Key.Key_B)
    assert player.key() == ("ab", quiet.id) and view.current_side() == 1
    qtbot.keyClick(view.playButton, Qt.Key.Key_Tab)
    assert player.key() == ("ab", loud.id) and view.current_side() == 0
    qtbot.keyClick(view.playButton, Qt.Key.Key_Tab)
    qtbot.keyClick(view.playButton, Qt.Key.Key_A)
    assert view.current_side() == 0
    qtbot.keyClick(view.playButton, Qt.Key.Key_Space)
    assert player.state() == "paused"


def test_blind_mode_hides_the_takes_until_the_pick_then_stars_the_winner(
        qtbot, player, controller, reader, pair):
    loud, quiet = pair
    rng = random.Random(3)
    view = make_view(qtbot, player, controller, reader, pair, rng=rng)
    view.blindCheck.setChecked(True)
    assert [b.text() for b in view.sideButtons] == ["X", "Y"]
    shown = " ".join(label.text() for label in view.sideLabels) + view.loudnessLabel.text()
    for secret in ("Take 1", "Take 2", "seed", "dB", "LUFS", "turned", "rendered"):
        assert secret not in shown
    assert not view.revealed()
    x_take = view.take_on(0)
    with qtbot.waitSignal(view.winner_picked) as picked:
        view.pickButtons[0].click()  # "X is better"
    assert picked.args[0].id == x_take.id
    assert controller.named("star_take") == [("star_take", x_take.id, True)]
    assert reader.get(x_take.id).starred
    x_name = "Take 1 · seed 1" if x_take.id == loud.id else "Take 2 · seed 2"
    assert view.result.text() == f"X was {x_name}; starred."
    assert view.revealed() and x_name in view.sideLabels[0].text()
    assert "winner" in view.sideLabels[0].text()
    assert not view.pickButtons[1].isEnabled()  # one pick per round
    view.againButton.click()  # a new round hides everything again
    assert not view.revealed() and view.pickButtons[1].isEnabled()


def test_blind_shuffle_maps_x_to_either_take(qtbot, player, controller, reader, pair):
    view = make_view(qtbot, player, controller, reader, pair, rng=random.Random(0))
    view.blindCheck.setChecked(True)
    seen = set()
    for _ in range(12):
        view._winner = view.take_on(0)  # (a pick enables the shuffle)
        view.shuffle()
        seen.add(view.take_on(0).id)
    assert seen == {pair[0].id, pair[1].id}


def test_blind_switch_while_playing_keeps_the_position(qtbot, player, controller, reader, pair):
    view = make_view(qtbot, player, controller, reader, pair, rng=random.Random(1))
    view.blindCheck.setChecked(True)
    view.toggle()
    player.seek(0.5)
    view.select(1)
    y = view.take_on(1)
    assert player.calls[-1][:3] == ("switch", ("ab", y.id), 0.5)
    assert player.gain() == pytest.approx(view.gains()[pair.index(y)])


def test_picking_a_winner_without_blind_mode(qtbot, player, controller, reader, pair):
    view = make_view(qtbot, player, controller, reader, pair)
    view.pickButtons[1].click()
    assert controller.named("star_take") == [("star_take", pair[1].id, True)]
    assert view.result.text() == "Take 2 · seed 2 wins; starred."


def test_without_playback_the_view_still_compares_and_says_why(qtbot, controller, reader,
                                                              pair):
    player = FakePlayer()
    view = make_view(qtbot, player, controller, reader, pair, reason=SILENT.reason)
    assert not view.playButton.isEnabled() and view.playButton.toolTip() == SILENT.reason
    view.toggle()
    view.select(1)
    assert player.calls == []


def test_the_panel_opens_the_comparison_for_two_selected_takes(qtbot, player, controller,
                                                              reader, pair):
    panel = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    panel.select_ids([t.id for t in pair])
    panel.compareButton.click()
    dialog = panel.findChild(ABDialog)
    assert dialog is not None and dialog.isVisible()
    assert {dialog.view.take_on(0).id, dialog.view.take_on(1).id} == {t.id for t in pair}
    dialog.view.toggle()
    assert player.state() == "playing"
    dialog.close()  # closing pauses its playback
    assert player.state() == "paused"


def test_the_comparison_window_has_a_close_button(qtbot, player, controller, reader, pair):
    """Issue 25: the window could only be closed from its title bar or with Esc."""
    panel = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    panel.select_ids([t.id for t in pair])
    panel.compare()
    dialog = panel.findChild(ABDialog)
    close = dialog.findChild(QPushButton, "abCloseButton")
    assert close is not None and close.isVisible() and close.text() == "Close"
    dialog.view.toggle()
    close.click()
    assert not dialog.isVisible() and player.state() == "paused"


def test_compare_can_be_opened_again_after_closing(qtbot, player, controller, reader, pair):
    panel = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    panel.select_ids([t.id for t in pair])
    for _ in range(2):
        panel.compare()
        dialog = panel.findChild(ABDialog)
        assert dialog.isVisible()
        dialog.close()
        qtbot.waitUntil(lambda: panel.findChild(ABDialog) is None)  # deleted on close
        player.play()  # the player's signals no longer reach the deleted view
        player.pause()


def _cells(view, side: int) -> list[str]:
    return [label.text() for label in view.judgements.cells[side]]


def test_judgements_side_by_side_with_the_better_take_marked(qtbot, player, controller,
                                                             writer, reader):
    """Issue 28: each judge a row, A and B columns, the better side marked; hidden in a
    blind round until the pick (the scores would tell X from Y)."""
    text = "The quick brown fox jumps over the lazy dog."
    good = add_judged(writer, text, 1, similarity=0.93, quality=3.9)
    poor = add_judged(writer, text, 2, similarity=0.62, quality=2.2,
                      heard="the quick brown box jumps over a very lazy dog")
    view = make_view(qtbot, player, controller, reader, (poor, good), rng=random.Random(3))
    view.show()
    assert view.judgements.isVisibleTo(view)
    a, b = _cells(view, 0), _cells(view, 1)
    score_a, score_b = (round(100 * t.judgements["combined"]) for t in (poor, good))
    assert a[0] == f"Score {score_a}" and b[0] == f"▲ Score {score_b}"
    assert a[1] == "✗ Voice 62 · similarity 0.62"
    assert b[1] == "▲ ✓ Voice 93 · similarity 0.93"
    assert a[2] == "✗ Words 67 · 2 substituted, 1 added"
    assert b[2] == "▲ ✓ Words 100 · every word heard"
    assert a[3].startswith("! Sound 30 · quality 2.2 of 5") and b[3].startswith("▲ ✓ Sound")
    assert view.judgements.cells[1][1].toolTip().startswith(
        "B is better here. Voice ✓ good (93): Voice similarity 0.93")

    view.set_blind(True)
    hidden = _cells(view, 0) + _cells(view, 1)
    assert hidden.count("Judgements hidden until you pick") == 2
    assert not any("Score " in cell or "Voice" in cell for cell in hidden)
    view.pick(0)  # revealed: X's column shows X's take
    x = view.take_on(0)
    assert _cells(view, 0)[0].endswith(f"Score {round(100 * x.judgements['combined'])}")


def test_no_judgements_row_when_neither_take_is_judged(qtbot, player, controller, reader, pair):
    view = make_view(qtbot, player, controller, reader, pair)
    view.show()
    assert not view.judgements.isVisibleTo(view)


def test_the_hint_names_the_keys_of_the_sides_shown(qtbot, player, controller, reader, pair):
    """Seen by a new user: in blind mode the tiles read X and Y while the hint still said
    "Switch with A and B"."""
    view = make_view(qtbot, player, controller, reader, pair, rng=random.Random(2))
    view.show()
    qtbot.waitExposed(view)
    hint = view.findChild(QLabel, "abHint")
    assert "A and B" in hint.text() and "X" not in hint.text()
    view.blindCheck.setChecked(True)
    assert "X and Y" in hint.text() and "A and B" not in hint.text()
    # The keys it names are the ones that pick the sides.
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow)
    view.playButton.setFocus()
    qtbot.keyClick(view.playButton, Qt.Key.Key_Y)
    assert view.current_side() == 1
    qtbot.keyClick(view.playButton, Qt.Key.Key_X)
    assert view.current_side() == 0
    view.blindCheck.setChecked(False)
    assert "A and B" in hint.text()
