"""Hearing a script as it renders (Settings: Play as it renders): in the main window, a
Render all plays its lines in script order, each with its pause, as their batches end,
though the batches end out of script order; the row being heard follows; Cancel stops
it; a line deleted meanwhile is skipped; the setting off, nothing plays."""

from __future__ import annotations

import numpy as np
import pytest
from script_fixtures import open_cast
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings
from take_fixtures import RATE, add, voice

from studio.service.requests import LineDone, TakeAudio
from studio.sound.loudness import loudness_lufs
from studio.views.main_window import MainWindow

DIALOGUE = """Alice: Good morning, Bob.
Bob: Morning. Did you sleep well?
Alice: Not really, the storm kept me up.

Bob: Then coffee first.
"""


@pytest.fixture
def player():
    return FakePlayer()


@pytest.fixture
def studio(qtbot, tmp_path, data_writer, player):
    """The main window with the dialogue imported and both speakers given a voice."""
    controller = FakeController(data_writer)
    settings = make_settings(tmp_path / "settings.ini")
    window = MainWindow(settings, controller, player, audio_status=PLAYABLE,
                        accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    view = window.scriptView
    open_cast(qtbot, view, tmp_path / "breakfast.txt", DIALOGUE)
    yield window, controller, settings
    view.close_project()


def render_all(studio):
    window, controller, _settings = studio
    window.scriptView.renderAllButton.click()
    _name, job, request = controller.named("render_lines")[-1]
    return job, request


def clips(request) -> list[np.ndarray]:
    return [voice(0.4 + 0.1 * n, freq=150 + 40 * n) for n in range(len(request.lines))]


def finish_line(studio, data_writer, job, request, n, clip) -> None:
    """What the worker does as line ``n``'s batch ends: the take saved, line_rendered."""
    _window, controller, _settings = studio
    line = request.lines[n]
    take = add(data_writer, line.text, seed=line.seeds[0], instruct=line.instruct, audio=clip).id
    done = LineDone(request.keys[n], TakeAudio(clip, RATE, line.seeds[0], take), n,
                    len(request.lines))
    job.report("line", done)


def test_lines_play_in_script_order_as_their_batches_end(qtbot, studio, data_writer, player):
    window, controller, _settings = studio
    view = window.scriptView
    job, request = render_all(studio)
    audio = clips(request)
    pauses = [line.pause_after for line in view.project.lines()]
    key = ("script", str(view.project.path))

    finish_line(studio, data_writer, job, request, 0, audio[0])  # Alice's batch: lines 1 and 3
    assert ("begin_stream", key) in player.calls and player.state() == "playing"
    finish_line(studio, data_writer, job, request, 2, audio[2])
    assert len(player.streamed) == 1, "line 3 waits for line 2"
    finish_line(studio, data_writer, job, request, 1, audio[1])  # Bob's batch: lines 2 and 4
    assert len(player.streamed) == 3 and player.streaming()
    finish_line(studio, data_writer, job, request, 3, audio[3])
    assert ("end_stream",) in player.calls and not player.streaming()

    heard = np.concatenate(player.streamed)
    expected = np.concatenate([np.concatenate([clip, np.zeros(round(p * RATE), np.float32)])
                               for clip, p in zip(audio, pauses)])
    assert heard.shape == expected.shape and np.array_equal(heard, expected)
    assert pauses[2] > pauses[0], "the paragraph pause is heard as it will be in the mix"
    louder = audio[0] * player.gain()
    assert loudness_lufs(louder, RATE) == pytest.approx(-16.0, abs=0.05), \
        "the lines play at the mix's loudness (the first line sets it)"

    start = sum(audio[n].size + round(pauses[n] * RATE) for n in range(2)) / RATE
    player.seek(start + 0.05)
    assert view.table.currentIndex().row() == 2, "the row being heard follows the playhead"
    view.playButton.click()
    assert player.state() == "paused"
    view.playButton.click()
    qtbot.waitUntil(lambda: player.state() == "playing")  # the mix is made on its own thread
    assert player.calls[-2][0] != "load", \
        "Play carries on with what was heard, not the mix from the start"
    job.report("done", _result(4))
    assert view.playButton.text() == "Pause"


def test_cancel_stops_the_lines_playing_and_late_lines_stay_quiet(studio, data_writer, player):
    window, controller, _settings = studio
    job, request = render_all(studio)
    audio = clips(request)
    finish_line(studio, data_writer, job, request, 0, audio[0])
    assert player.state() == "playing"
    window.scriptView.cancelButton.click()
    assert controller.named("cancel") and player.state() == "stopped" and not player.streaming()
    finish_line(studio, data_writer, job, request, 1, audio[1])  # a batch that ended meanwhile
    assert len(player.streamed) == 1 and player.state() == "stopped"


def test_a_line_deleted_while_it_renders_is_skipped(studio, data_writer, player):
    window, _controller, _settings = studio
    view = window.scriptView
    job, request = render_all(studio)
    audio = clips(request)
    view.select_row(1)
    view.delete_lines()
    finish_line(studio, data_writer, job, request, 0, audio[0])
    finish_line(studio, data_writer, job, request, 2, audio[2])
    assert len(player.streamed) == 2, "line 3 follows line 1: line 2 is gone"
    assert player.streamed[1][:audio[2].size].tolist() == audio[2].tolist()


def test_playing_something_else_meanwhile_keeps_the_render_quiet(studio, data_writer, player):
    window, _controller, _settings = studio
    job, request = render_all(studio)
    audio = clips(request)
    finish_line(studio, data_writer, job, request, 0, audio[0])
    player.load(voice(1.0), RATE, key=("take", "someone else's"))
    player.play()
    finish_line(studio, data_writer, job, request, 1, audio[1])
    assert player.key() == ("take", "someone else's") and len(player.streamed) == 1


def test_with_the_setting_off_a_render_plays_nothing(studio, data_writer, player):
    window, _controller, settings = studio
    settings.set_value("audio/play_while_rendering", False)
    job, request = render_all(studio)
    for n, clip in enumerate(clips(request)):
        finish_line(studio, data_writer, job, request, n, clip)
    assert not any(call[0] == "begin_stream" for call in player.calls) and not player.streamed
    assert [line.take for line in window.scriptView.project.lines()].count(None) == 0


def _result(lines: int):
    from studio.service.requests import LinesResult

    return LinesResult(lines, 1.0, 2.0)
