"""Player: real playback to ALSA's null device, timing with a paced fake stream, and a
machine without PortAudio."""

from __future__ import annotations

import time

import numpy as np
import pytest
from audio_helpers import PacedOpener, SpyOpener, ramp, ramp_index, tone
from PySide6.QtCore import QThread

from studio.audio import backend
from studio.audio.player import DEVICE_LOST, EMPTY_CLIP, NOTHING_LOADED, TICK_MS, Player

TICK = TICK_MS / 1000
SR = 24000


class Recorded:
    """Everything a player emits, in order."""

    def __init__(self, player: Player):
        self.events: list[tuple[str, object]] = []
        player.state_changed.connect(lambda s: self.events.append(("state", s)))
        player.position_changed.connect(lambda p: self.events.append(("position", p)))
        player.finished.connect(lambda: self.events.append(("finished", None)))
        player.error.connect(lambda e: self.events.append(("error", e)))

    def of(self, kind: str) -> list:
        return [value for k, value in self.events if k == kind]

    def kinds(self) -> list[str]:
        return [k for k, _ in self.events if k != "position"]


@pytest.fixture
def make_player(qapp):
    players = []

    def make(open_stream=None) -> Player:
        player = Player(open_stream=open_stream)
        players.append(player)
        return player

    yield make
    for player in players:
        player.close()


def wait_for_blocks(spy: SpyOpener, count: int, timeout_s: float = 5.0) -> None:
    """Busy-wait (no event loop, so no timer tick) until the callback has run ``count`` times."""
    deadline = time.monotonic() + timeout_s
    while len(spy.blocks) < count:
        assert time.monotonic() < deadline, "the output stream never ran"
        time.sleep(0.0002)


# ---------------------------------------------------------------------------
# Real playback to the null device: what was sent, and in what order
# ---------------------------------------------------------------------------


def test_a_tone_plays_to_the_end(null_output, make_player, qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    log = Recorded(player)
    audio = tone(0.5)
    player.load(audio, SR, key="take-1")
    assert player.key() == "take-1" and player.duration() == pytest.approx(0.5)

    with qtbot.waitSignals(
        [player.state_changed, player.state_changed, player.finished],
        check_params_cbs=[lambda s: s == "playing", lambda s: s == "stopped", None],
        order="strict",
        timeout=5000,
    ):
        player.play()

    assert log.of("state") == ["playing", "stopped"]
    assert log.kinds()[-2:] == ["state", "finished"]
    positions = log.of("position")
    assert positions == sorted(positions) and positions[-1] == pytest.approx(0.5)
    assert player.state() == "stopped" and player.position() == pytest.approx(0.5)
    fed = spy.fed()
    np.testing.assert_array_equal(fed[: audio.size], audio)
    assert not fed[audio.size :].any()  # silence after the end, while the tail is heard


def test_seek_then_play_sends_the_samples_from_there(null_output, make_player, qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    audio = ramp(SR)
    player.load(audio, SR, key=1)
    player.seek(0.25)
    assert player.position() == 0.25
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    fed = spy.fed()
    np.testing.assert_array_equal(fed[: SR - 6000], audio[6000:])
    # Playing again after the end starts from the beginning.
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    np.testing.assert_array_equal(spy.fed(spy.marks[-1])[:SR], audio)


def test_pause_and_resume_skip_nothing_and_repeat_nothing(null_output, make_player, qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    frames = 120 * SR  # 120 s: long enough to pause mid-way even at the null device's speed
    audio = ramp(frames)
    player.load(audio, SR)
    player.play()
    wait_for_blocks(spy, 20)  # more than the output latency, so some of it was "heard"
    player.pause()
    assert player.state() == "paused"
    paused_at = player.position()
    assert 0 < paused_at < player.duration()
    first = spy.fed()
    np.testing.assert_array_equal(first, audio[: first.size])  # played from 0, in order
    resume_frame = int(round(paused_at * SR))
    assert resume_frame <= first.size  # never ahead of what was sent
    mark = len(spy.blocks)

    with qtbot.waitSignal(player.finished, timeout=15000):
        player.play()
    second = spy.fed(mark)
    np.testing.assert_array_equal(second[: frames - resume_frame], audio[resume_frame:])


def test_ab_switch_continues_on_the_same_sample(null_output, make_player, qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    log = Recorded(player)
    frames = 120 * SR
    player.load(ramp(frames), SR, key="A")
    player.play()
    wait_for_blocks(spy, 5)
    player.play_at_same_position(ramp(frames, sign=-1.0), SR, key="B")
    assert player.key() == "B" and player.state() == "playing"
    with qtbot.waitSignal(player.finished, timeout=15000):
        pass
    fed = spy.fed()[:frames]
    # One timeline 0, 1, 2, ... N-1 with no gap and no repeat: A's samples then B's.
    np.testing.assert_array_equal(ramp_index(fed), np.arange(frames))
    signs = np.sign(fed)
    switch = int(np.argmax(signs < 0))
    assert 0 < switch < frames, "the switch happened mid-way"
    assert (signs[:switch] > 0).all() and (signs[switch:] < 0).all()
    assert log.of("state") == ["playing", "stopped"]  # no flicker at the switch
    assert len(spy.marks) == 1  # the same stream carried on


def test_positions_on_the_real_device_never_go_back(null_output, make_player, qtbot):
    player = make_player()
    log = Recorded(player)
    player.load(tone(2.0), SR)
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    positions = log.of("position")
    assert positions == sorted(positions) and positions[-1] == pytest.approx(2.0)


# ---------------------------------------------------------------------------
# Timing, with a stream that runs at real-time pace
# ---------------------------------------------------------------------------


def test_position_ticks_at_about_30_hz_and_rises(paced, make_player, qtbot):
    player = make_player(paced())
    log = Recorded(player)
    player.load(tone(0.5), SR)
    start = time.monotonic()
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    elapsed = time.monotonic() - start
    positions = log.of("position")[1:]  # after the one load() emits
    assert elapsed >= 0.45
    assert len(positions) >= 8  # ~15 at 30 Hz over 0.5 s
    assert all(b > a for a, b in zip(positions, positions[1:]))
    assert positions[-1] == pytest.approx(0.5)
    assert log.of("state") == ["playing", "stopped"] and log.of("finished") == [None]


def test_pause_holds_the_position_and_resume_carries_on(paced, make_player, qtbot):
    opener = paced()
    player = make_player(opener)
    log = Recorded(player)
    player.load(ramp(SR), SR)
    player.play()
    qtbot.wait(200)
    player.pause()
    held = player.position()
    assert 0.1 < held < 0.4
    count = len(log.events)
    qtbot.wait(150)
    assert player.position() == held and len(log.events) == count  # nothing moves
    assert not opener.last.active

    with qtbot.waitSignal(player.finished, timeout=5000):
        player.toggle()
    positions = log.of("position")
    assert positions == sorted(positions)
    assert log.of("state") == ["playing", "paused", "playing", "stopped"]
    np.testing.assert_array_equal(ramp_index(opener.last.fed())[:SR], np.arange(SR))


def test_pause_steps_back_by_the_unheard_latency(paced, make_player, qtbot):
    opener = paced(latency=0.1)
    player = make_player(opener)
    player.load(tone(2.0), SR)
    player.play()
    qtbot.wait(400)
    sent = player.position()
    player.pause()
    assert player.position() == pytest.approx(sent - 0.1, abs=0.02)


def test_pause_just_after_a_seek_never_steps_back_past_it(paced, make_player, qtbot):
    player = make_player(paced(latency=0.1))
    player.load(tone(2.0), SR)
    player.play()
    qtbot.wait(300)
    player.seek(1.5)
    player.pause()  # the callback has not even seen the seek yet
    assert player.position() == 1.5
    player.play()
    qtbot.wait(30)  # less than the latency has been sent since the seek
    player.seek(1.0)
    qtbot.wait(30)
    player.pause()
    assert player.position() == pytest.approx(1.0, abs=1 / SR)
    player.seek(float("nan"))  # ignored
    assert player.position() == pytest.approx(1.0, abs=1 / SR)


def test_close_while_playing_pauses_and_releases_the_device(paced, make_player, qtbot):
    opener = paced()
    player = make_player(opener)
    player.load(tone(1.0), SR)
    player.play()
    qtbot.wait(100)
    player.close()
    assert player.state() == "paused" and opener.last.closed
    held = player.position()
    assert 0 < held < 1.0
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()  # usable again, on a new stream
    assert len(opener.streams) == 2


def test_seek_while_playing_jumps_there(paced, make_player, qtbot):
    player = make_player(paced())
    log = Recorded(player)
    player.load(tone(1.0), SR)
    player.play()
    qtbot.wait(100)
    player.seek(0.8)
    assert player.position() == pytest.approx(0.8)
    start = time.monotonic()
    with qtbot.waitSignal(player.finished, timeout=5000):
        pass
    assert time.monotonic() - start < 0.5
    after_seek = log.of("position")[log.of("position").index(0.8) :]
    assert after_seek == sorted(after_seek)


def test_ab_switch_keeps_the_position_within_one_tick(paced, make_player, qtbot):
    opener = paced()
    player = make_player(opener)
    log = Recorded(player)
    player.load(tone(1.0), SR, key="A")
    player.play()
    qtbot.wait(300)
    before = player.position()
    player.play_at_same_position(tone(1.0, freq=660), SR, key="B")
    assert abs(player.position() - before) <= TICK
    # A different sample rate needs a new stream; the time carries over all the same.
    before = player.position()
    player.play_at_same_position(tone(1.0, sample_rate=48000), 48000, key="C")
    assert abs(player.position() - before) <= TICK
    assert player.state() == "playing" and player.key() == "C"
    assert len(opener.streams) == 2 and opener.last.samplerate == 48000
    with qtbot.waitSignal(player.finished, timeout=5000):
        pass
    assert log.of("state") == ["playing", "stopped"]


def test_ab_switch_while_paused_stays_paused(paced, make_player, qtbot):
    player = make_player(paced())
    player.load(tone(1.0), SR, key="A")
    player.play()
    qtbot.wait(200)
    player.pause()
    held = player.position()
    player.play_at_same_position(tone(1.0, freq=660), SR, key="B")
    assert player.state() == "paused" and player.key() == "B"
    assert player.position() == pytest.approx(held, abs=1 / SR)


def test_a_device_that_refuses_the_rate_gets_resampled_audio(paced, make_player, qtbot):
    opener = paced(rates=(48000,))
    player = make_player(opener)
    player.load(tone(0.3), SR)
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    assert opener.last.samplerate == 48000
    assert player.duration() == pytest.approx(0.3)
    fed = opener.last.fed()[: int(0.3 * 48000)]
    np.testing.assert_allclose(fed[:-1], tone(0.3, sample_rate=48000)[:-1], atol=0.01)


def test_changing_the_device_while_playing_carries_on(paced, make_player, qtbot):
    opener = paced()
    player = make_player(opener)
    log = Recorded(player)
    player.load(tone(1.0), SR)
    player.play()
    qtbot.wait(200)
    before = player.position()
    player.set_device(3)
    assert player.state() == "playing" and player.device() == 3
    assert opener.last.device == 3 and opener.streams[0].closed
    assert abs(player.position() - before) <= TICK
    with qtbot.waitSignal(player.finished, timeout=5000):
        pass
    assert log.of("state") == ["playing", "stopped"]


def test_a_device_that_stops_answering_pauses_with_a_sentence(paced, make_player, qtbot):
    opener = paced()
    player = make_player(opener)
    player.load(tone(2.0), SR)
    player.play()
    qtbot.wait(100)
    with qtbot.waitSignal(player.error, timeout=2000) as caught:
        opener.last.fail = True
    assert caught.args == [DEVICE_LOST]
    assert player.state() == "paused" and 0 < player.position() < 2.0


def test_stop_goes_back_to_the_start(paced, make_player, qtbot):
    player = make_player(paced())
    log = Recorded(player)
    player.load(tone(1.0), SR)
    player.play()
    qtbot.wait(100)
    player.stop()
    assert player.state() == "stopped" and player.position() == 0.0
    assert log.of("position")[-1] == 0.0 and log.of("finished") == []


# ---------------------------------------------------------------------------
# Things that go wrong become one sentence, never an exception
# ---------------------------------------------------------------------------


def test_play_with_nothing_loaded_or_an_empty_clip(paced, make_player, qtbot):
    player = make_player(paced())
    with qtbot.waitSignal(player.error) as caught:
        player.play()
    assert caught.args == [NOTHING_LOADED]
    player.load(np.zeros(0, np.float32), SR)
    with qtbot.waitSignal(player.error) as caught:
        player.play()
    assert caught.args == [EMPTY_CLIP]
    assert player.state() == "stopped"


def test_without_portaudio_play_emits_an_error(no_portaudio, make_player, qtbot):
    assert backend.audio_status().reason == backend.PORTAUDIO_MISSING
    player = make_player()  # the real opener, which imports sounddevice lazily
    log = Recorded(player)
    player.load(tone(0.2), SR, key="x")
    with qtbot.waitSignal(player.error, timeout=1000) as caught:
        player.play()  # must not raise
    assert caught.args == [backend.PORTAUDIO_MISSING]
    player.toggle()
    player.seek(0.1)
    player.pause()
    player.stop()
    assert player.state() == "stopped" and "playing" not in log.of("state")


def test_a_device_that_fails_to_open(paced, make_player, qtbot):
    opener = paced()
    opener.refuse = "Playback failed: the audio output device could not be opened (busy)."
    player = make_player(opener)
    player.load(tone(0.2), SR)
    with qtbot.waitSignal(player.error) as caught:
        player.play()
    assert caught.args == [opener.refuse] and player.state() == "stopped"


def test_load_takes_channels_first_audio_and_copies_it(paced, make_player):
    player = make_player(paced())
    stereo = np.stack([np.ones(100, np.float32), np.zeros(100, np.float32)])
    player.load(stereo, SR)
    stereo[:] = 7.0  # the caller's array may change; the player keeps its own copy
    assert player.duration() == pytest.approx(100 / SR)
    with pytest.raises(ValueError):
        player.load(np.ones(10, np.float32), 0)


def test_the_leak_check_catches_a_stream_left_running(null_output, no_leaks):
    opener = PacedOpener()
    stream = opener(lambda out, *_: out.fill(0), SR, None)
    stream.start()
    real = backend.open_output_stream(lambda out, *_: out.fill(0), SR, None)
    real.start()
    thread = QThread()
    thread.start()  # runs its event loop until told to quit
    try:
        problems = no_leaks.problems([opener], wait_s=0.1)
        assert any("fake" in p for p in problems)
        assert any("sounddevice stream was left open" in p for p in problems)
        assert any("QThread is still running" in p for p in problems)
        assert any("Python thread" in p for p in problems)  # the fake stream's
    finally:
        stream.close()
        backend.close_quietly(real)
        thread.quit()
        thread.wait()
    assert no_leaks.problems([opener]) == []


# ---------------------------------------------------------------------------
# Gain (A/B loudness matching)
# ---------------------------------------------------------------------------


def test_gain_scales_what_the_callback_sends(null_output, make_player, qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    audio = tone(0.3)
    player.load(audio, SR, key="quiet", gain=0.5)
    assert player.gain() == 0.5
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()
    np.testing.assert_allclose(spy.fed()[: audio.size], audio * 0.5, rtol=0, atol=1e-7)
    player.load(audio, SR, key="plain")  # a plain load plays the clip as it is
    assert player.gain() == 1.0
    with pytest.raises(ValueError):
        player.set_gain(float("nan"))


def test_ab_switch_swaps_clip_and_gain_together(null_output, make_player, qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    frames = 120 * SR
    player.load(ramp(frames), SR, key="A", gain=1.0)
    player.play()
    wait_for_blocks(spy, 5)
    player.play_at_same_position(ramp(frames, sign=-1.0), SR, key="B", gain=0.5)
    assert player.gain() == 0.5
    with qtbot.waitSignal(player.finished, timeout=15000):
        pass
    fed = spy.fed()[:frames].astype(np.float64)
    switch = int(np.argmax(fed < 0))
    assert 0 < switch < frames
    expected = (np.arange(frames) + 1) * 2.0**-22
    np.testing.assert_array_equal(fed[:switch], expected[:switch])  # A at unity
    np.testing.assert_allclose(fed[switch:], -0.5 * expected[switch:], rtol=1e-6)  # B halved


def test_gain_carries_over_a_switch_that_needs_a_new_stream(paced, make_player, qtbot):
    opener = paced()
    player = make_player(opener)
    player.load(tone(1.0), SR, key="A")
    player.play()
    qtbot.wait(100)
    player.play_at_same_position(tone(1.0, sample_rate=48000), 48000, key="B", gain=0.25)
    assert player.gain() == 0.25 and player.state() == "playing"
    qtbot.wait(100)
    player.pause()
    last = opener.last.fed()
    assert np.abs(last).max() <= 0.3 * 0.25 + 1e-6


# ---------------------------------------------------------------------------
# A clip still being rendered: streamed playback
# ---------------------------------------------------------------------------


def test_a_six_chunk_stream_plays_gapless_to_the_null_device(null_output, make_player, qtbot):
    """Chunks appended while playing come out joined, sample for sample, with no output
    underflow, and playback ends at the end of the last chunk. (The null device plays
    about 60 times faster than real time, so the chunks follow each other at once.)"""
    spy = SpyOpener()
    player = make_player(spy)
    buffering = []
    player.buffering_changed.connect(buffering.append)
    # A long first chunk (about a second at the null device's pace, even under load):
    # the rest are appended while the device plays it.
    chunks = [ramp(SR * (60 if i == 0 else 1)) * (0.1 * (i + 1)) for i in range(6)]
    player.begin_stream(SR, key="live")
    player.append(chunks[0])
    player.play()
    assert player.state() == "playing"
    wait_for_blocks(spy, 1)  # the device is playing the first chunk
    for chunk in chunks[1:]:
        player.append(chunk)
    player.end_stream()
    with qtbot.waitSignal(player.finished, timeout=10000):
        pass
    whole = np.concatenate(chunks)
    fed = spy.fed()
    np.testing.assert_array_equal(fed[: whole.size], whole)
    assert not fed[whole.size:].any()
    assert player.underflows == 0 and buffering == []
    assert player.duration() == pytest.approx(whole.size / SR)


def test_catching_up_with_the_render_waits_on_silence_and_says_buffering(paced, make_player,
                                                                         qtbot):
    opener = paced()
    player = make_player(opener)
    states = []
    player.buffering_changed.connect(states.append)
    first = ramp(SR // 10)
    player.begin_stream(SR, key="live")
    player.append(first)
    player.play()
    qtbot.waitUntil(lambda: states == [True], timeout=5000)
    assert player.state() == "playing"
    held = player.position()
    assert held == pytest.approx(first.size / SR)
    qtbot.wait(100)
    assert player.position() == held  # the playhead waits with the render
    second = ramp(SR // 10) + 0.5
    player.append(second)
    qtbot.waitUntil(lambda: states == [True, False], timeout=5000)
    player.end_stream()
    with qtbot.waitSignal(player.finished, timeout=5000):
        pass
    fed = opener.last.fed()
    # What was heard: the first chunk, silence while buffering (never anything else),
    # then the second chunk, whole.
    np.testing.assert_array_equal(fed[: first.size], first)
    start = int(np.flatnonzero(fed[first.size:])[0]) + first.size
    assert not fed[first.size:start].any()
    np.testing.assert_array_equal(fed[start: start + second.size], second)


def test_cancel_mid_stream_stops_at_once_and_the_player_stays_usable(null_output, make_player,
                                                                     qtbot):
    spy = SpyOpener()
    player = make_player(spy)
    player.begin_stream(SR, key="live")
    player.append(tone(2.0))
    player.play()
    qtbot.wait(50)
    player.stop()
    player.end_stream()
    assert player.state() == "stopped" and not player.streaming()
    assert player._stream is None  # the device is released
    player.load(tone(0.2), SR, key="next")
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.play()


def test_append_needs_a_stream_and_a_new_load_ends_one(paced, make_player):
    player = make_player(paced())
    with pytest.raises(RuntimeError):
        player.append(tone(0.1))
    player.begin_stream(SR, key="live")
    assert player.streaming()
    player.load(tone(0.1), SR, key="take")
    assert not player.streaming()
