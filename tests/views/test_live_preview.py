"""The render in progress: its waveform grows chunk by chunk and the player is fed, started,
handed over to the take, or stopped; a take the user plays meanwhile is left alone."""

from __future__ import annotations

import numpy as np
import pytest

from studio.engine.stream import StreamChunk
from studio.views.live_preview import LivePreview

SR = 24000


def chunks(count: int = 3, seconds: float = 0.5) -> list[StreamChunk]:
    out, start = [], 0
    for index in range(count):
        audio = np.full(int(seconds * SR), 0.1 * (index + 1), np.float32)
        out.append(StreamChunk(0, index, count, audio, start, SR))
        start += audio.size
    return out


@pytest.fixture
def preview(qtbot, player):
    widget = LivePreview(player)
    qtbot.addWidget(widget)
    return widget


def test_the_first_chunk_starts_playback_and_the_waveform_grows(preview, player):
    assert preview.isHidden()  # nothing to show until a render streams
    parts = chunks()
    preview.add_chunk(5, parts[0])
    assert not preview.isHidden()
    assert player.calls[:1] == [("begin_stream", ("live", 5))]
    assert ("play",) in player.calls and player.state() == "playing"
    assert preview.waveform.duration() == pytest.approx(0.5)
    assert preview.state_text() == "Playing as it renders · 1 of 3 chunks"
    preview.add_chunk(5, parts[1])
    preview.add_chunk(5, parts[2])
    assert preview.waveform.duration() == pytest.approx(1.5)
    assert [a[0] for a in player.streamed] == pytest.approx([0.1, 0.2, 0.3])
    assert not player.streaming()  # the last chunk closed the stream
    assert player.calls.count(("play",)) == 1


def test_buffering_is_said_while_playback_waits_for_the_render(preview, player):
    parts = chunks()
    preview.add_chunk(1, parts[0])
    player.buffering_changed.emit(True)
    assert preview.state_text() == "Buffering · waiting for chunk 2 of 3…"
    preview.add_chunk(1, parts[1])
    player.buffering_changed.emit(False)
    assert preview.state_text() == "Playing as it renders · 2 of 3 chunks"


def test_finishing_hands_the_playback_to_the_take_and_hides(preview, player):
    for part in chunks():
        preview.add_chunk(2, part)
    preview.finish(("take", "abc"))
    assert player.key() == ("take", "abc") and player.state() == "playing"
    assert preview.isHidden() and preview.job() is None


def test_abort_stops_playback_and_ignores_the_jobs_late_chunks(preview, player):
    parts = chunks()
    preview.add_chunk(3, parts[0])
    preview.abort()
    assert player.state() == "stopped" and not player.streaming()
    preview.add_chunk(3, parts[1])  # already on its way when Cancel was pressed
    assert preview.job() is None and preview.isHidden()
    assert len(player.streamed) == 1


def test_a_take_played_meanwhile_is_left_alone(preview, player):
    parts = chunks()
    preview.add_chunk(4, parts[0])
    player.load(np.zeros(SR, np.float32), SR, key=("take", "other"))
    player.play()
    preview.add_chunk(4, parts[1])
    assert len(player.streamed) == 1 and player.key() == ("take", "other")
    assert preview.waveform.duration() == pytest.approx(1.0)  # still seen growing
    assert preview.state_text() == "Rendering · 2 of 3 chunks"
    preview.finish(("take", "new"))
    assert player.key() == ("take", "other") and player.state() == "playing"


def test_a_render_started_again_begins_a_new_stream(preview, player):
    parts = chunks()
    preview.add_chunk(6, parts[0])
    preview.add_chunk(6, parts[1])
    preview.add_chunk(6, parts[0])  # the accelerator failed: the render starts over
    assert player.calls.count(("begin_stream", ("live", 6))) == 2
    assert preview.waveform.duration() == pytest.approx(0.5)


def test_a_servers_stream_of_unknown_length_plays_until_the_render_ends(preview, player):
    """A remote stream's pieces come with ``chunks`` 0: none is the last until finish."""
    parts = [StreamChunk(0, i, 0, np.full(SR // 4, 0.1, np.float32), i * SR // 4, SR)
             for i in range(3)]
    preview.add_chunk(4, parts[0])
    assert preview.state_text() == "Playing as it renders · 1 piece received"
    player.buffering_changed.emit(True)
    assert preview.state_text() == "Buffering · waiting for the server…"
    player.buffering_changed.emit(False)
    for part in parts[1:]:
        preview.add_chunk(4, part)
    assert preview.state_text() == "Playing as it renders · 3 pieces received"
    assert player.streaming()  # no piece said it was the last
    preview.finish(take_key="take")
    assert not player.streaming()
