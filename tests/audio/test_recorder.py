"""Recorder: the callback and its bounded buffer fed block by block, the level meter,
the 60 s limit on ALSA's null input device, and a machine without PortAudio."""

from __future__ import annotations

import math

import numpy as np
import pytest

from studio.audio import backend
from studio.audio.recorder import (
    DEVICE_LOST,
    MAX_SECONDS,
    SILENCE_DB,
    Recorder,
    level_dbfs,
    limit_sentence,
)

SR = 24000


@pytest.fixture
def make_recorder(qapp):
    recorders = []

    def make(**kwargs) -> Recorder:
        recorder = Recorder(**kwargs)
        recorders.append(recorder)
        return recorder

    yield make
    for recorder in recorders:
        recorder.close()


def sine(frames: int, amplitude: float = 0.5, start: int = 0) -> np.ndarray:
    t = np.arange(start, start + frames) / SR
    return (amplitude * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)


def test_level_in_dbfs():
    assert level_dbfs(np.zeros(480, np.float32)) == SILENCE_DB
    assert level_dbfs(np.zeros(0, np.float32)) == SILENCE_DB
    assert level_dbfs(np.ones(480, np.float32)) == pytest.approx(0.0)
    assert level_dbfs(sine(2400, 0.5)) == pytest.approx(
        20 * math.log10(0.5 / math.sqrt(2)), abs=0.01
    )
    assert level_dbfs(np.full(10, 1e-9, np.float32)) == SILENCE_DB  # floored
    assert level_dbfs(np.array([np.nan, np.inf, 1e30], np.float32)) <= 0.0  # garbage input


def test_garbage_from_a_driver_is_cleaned(manual, make_recorder):
    opener = manual()
    recorder = make_recorder(open_stream=opener)
    recorder.start(sample_rate=SR)
    opener.last.feed(np.array([np.nan, np.inf, -np.inf, 3.0, -0.25], np.float32))
    audio, _ = recorder.stop()
    np.testing.assert_array_equal(audio, np.array([0, 0, 0, 1, -0.25], np.float32))


# ---------------------------------------------------------------------------
# The callback and buffer, driven block by block
# ---------------------------------------------------------------------------


def test_blocks_land_in_order_and_the_meter_shows_the_last_one(manual, make_recorder, qtbot):
    opener = manual()
    recorder = make_recorder(open_stream=opener)
    with qtbot.waitSignal(recorder.state_changed) as state:
        assert recorder.start(device=2, sample_rate=SR)
    assert state.args == ["recording"] and recorder.is_recording()
    stream = opener.last
    assert stream.device == 2

    blocks = [sine(480, 0.5, start=480 * i) for i in range(4)] + [sine(480, 0.05, start=1920)]
    for block in blocks:
        stream.feed(block)
    assert recorder.elapsed() == pytest.approx(2400 / SR)
    with qtbot.waitSignal(recorder.level_changed, timeout=1000) as level:
        pass
    # The meter reads the last block only: the quiet one, 20 dB under the others.
    assert level.args[0] == pytest.approx(20 * math.log10(0.05 / math.sqrt(2)), abs=0.05)

    stream.feed(np.zeros(480, np.float32), status=1)  # an input overflow is counted
    assert recorder.overflows == 1
    with qtbot.waitSignal(recorder.state_changed) as state:
        audio, rate = recorder.stop()
    assert state.args == ["stopped"] and stream.closed and not recorder.is_recording()
    assert rate == SR and audio.dtype == np.float32
    np.testing.assert_array_equal(audio, np.concatenate([*blocks, np.zeros(480, np.float32)]))
    assert recorder.stop()[0].size == 0  # handed over once


def test_the_buffer_is_bounded_and_the_limit_is_said(manual, make_recorder, qtbot):
    opener = manual()
    recorder = make_recorder(open_stream=opener, max_seconds=0.1)  # 2400 samples
    recorder.start(sample_rate=SR)
    stream = opener.last
    blocks = [sine(512, 0.3, start=512 * i) for i in range(6)]  # 3072 samples offered
    with qtbot.waitSignal(recorder.limit_reached, timeout=1000) as limit:
        for block in blocks:
            stream.feed(block)
    assert limit.args == [limit_sentence(0.1)]
    assert limit.args[0] == (
        "Recording stopped at the 0.1-second limit; a voice reference needs only 3 to 10 seconds."
    )
    assert not recorder.is_recording() and stream.closed
    audio, rate = recorder.stop()  # what was kept before the limit
    np.testing.assert_array_equal(audio, np.concatenate(blocks)[:2400])
    assert rate == SR


def test_the_default_limit_is_sixty_seconds(manual, make_recorder):
    opener = manual()
    recorder = make_recorder(open_stream=opener)
    recorder.start(sample_rate=SR)
    assert MAX_SECONDS == 60.0 and recorder.max_seconds == 60.0
    assert recorder._buffer.size == 60 * SR  # allocated before the stream starts
    recorder.stop()


def test_a_device_that_refuses_the_rate_records_at_its_own(manual, make_recorder):
    opener = manual(force_rate=48000)
    recorder = make_recorder(open_stream=opener)
    recorder.start(sample_rate=SR)
    opener.last.feed(sine(960))
    audio, rate = recorder.stop()
    assert rate == 48000 and audio.size == 960


def test_a_device_that_stops_answering(manual, make_recorder, qtbot):
    opener = manual()
    recorder = make_recorder(open_stream=opener)
    recorder.start(sample_rate=SR)
    opener.last.feed(sine(480))
    with qtbot.waitSignal(recorder.error, timeout=1000) as caught:
        opener.last.fail = True
    assert caught.args == [DEVICE_LOST] and not recorder.is_recording()
    assert recorder.stop()[0].size == 480  # what came in before is kept


def test_without_portaudio_start_says_why(no_portaudio, make_recorder, qtbot):
    recorder = make_recorder()
    with qtbot.waitSignal(recorder.error, timeout=1000) as caught:
        assert recorder.start() is False
    assert caught.args == [
        "Recording is off: the PortAudio library is not installed (install libportaudio2)."
    ]
    assert not recorder.is_recording()
    audio, rate = recorder.stop()
    assert audio.size == 0 and rate == SR


# ---------------------------------------------------------------------------
# The null device's input (silence, delivered far faster than real time)
# ---------------------------------------------------------------------------


def test_recording_from_the_null_device_stops_at_sixty_seconds(null_input, make_recorder, qtbot):
    recorder = make_recorder()
    levels = []
    recorder.level_changed.connect(levels.append)
    with qtbot.waitSignal(recorder.limit_reached, timeout=15000) as limit:
        assert recorder.start(sample_rate=SR)
    assert limit.args == [limit_sentence(60.0)]
    audio, rate = recorder.stop()
    assert rate == SR and audio.size == 60 * SR
    # ALSA's null capture hands over uninitialised memory, not silence: what comes back
    # must still be usable audio, and the meter must show real numbers.
    assert np.isfinite(audio).all() and np.abs(audio).max() <= 1.0
    assert levels and all(SILENCE_DB <= level <= 0.0 for level in levels)


def test_start_and_stop_on_the_null_device(null_input, make_recorder, qtbot):
    recorder = make_recorder()
    assert recorder.start(device=null_input.default_input, sample_rate=SR)
    assert recorder.is_recording()
    audio, rate = recorder.stop()
    assert rate == SR and 0 <= audio.size <= 60 * SR
    assert not recorder.is_recording()


def test_a_missing_input_device_is_one_sentence(null_input, make_recorder, qtbot):
    recorder = make_recorder()
    with qtbot.waitSignal(recorder.error) as caught:
        assert recorder.start(device=9999) is False
    assert caught.args[0].startswith(
        "Recording failed: the audio input device could not be opened ("
    )
    assert isinstance(backend.audio_status().input_devices, list)
