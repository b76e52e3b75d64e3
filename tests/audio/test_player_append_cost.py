"""Appending to a streamed clip costs the same near its 1,000th chunk as near its 10th.

Before, every ``Player.append`` concatenated (and, on a device at another rate,
re-resampled) the whole clip so far on the GUI thread: quadratic in a long streamed
script. The bound is a ratio of medians far from timing noise: the old code measured
84x (same rate) and 259x (resampled) here, the flat one 0.9x and 1.0x."""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest

from studio.audio.player import Player

SR = 24000
CHUNK = 1200  # 50 ms pieces: a long streamed script arrives as thousands of them
SAMPLES = 25  # appends timed at each length


def _median_append_s(player: Player, piece: np.ndarray) -> float:
    spent = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        player.append(piece)
        spent.append(time.perf_counter() - started)
    return statistics.median(spent)


@pytest.mark.parametrize("device_rate", [SR, 48000], ids=["same-rate", "resampled"])
def test_an_append_costs_the_same_late_in_a_long_stream(qapp, paced, qtbot, device_rate):
    player = Player(open_stream=paced(rates=(device_rate,)))
    try:
        player.begin_stream(SR, key="live")
        piece = np.sin(np.arange(CHUNK, dtype=np.float32) / 7).astype(np.float32)
        player.append(piece)
        player.play()  # opens the device (at its own rate), then holds for more audio
        player.pause()
        early = _median_append_s(player, piece)  # chunks 2 to 26: the median is the 14th
        for _ in range(1000 - 10 - SAMPLES):
            player.append(piece)
        late = _median_append_s(player, piece)
        player.end_stream()
        assert player.duration() == pytest.approx((1 + 1000 - 10 + SAMPLES) * CHUNK / SR,
                                                  abs=2 / SR)
    finally:
        player.close()
    assert late / early < 5, f"an append at 1,000 chunks took {late / early:.0f}x one at 10"


def test_a_clip_resampled_piece_by_piece_equals_the_whole_resampled():
    from studio.audio.player import resample_linear
    from studio.sound.growing import GrowingWave, resample_points

    rng = np.random.default_rng(3)
    for rate, target in ((24000, 48000), (24000, 44100), (48000, 22050), (24000, 24001)):
        clip = rng.standard_normal(5003).astype(np.float32)
        source, feed = GrowingWave(), GrowingWave()
        for piece in np.array_split(clip, [1, 2, 700, 701, 2500, 5000]):
            whole = source.extend(piece)
            feed.extend(resample_points(whole, rate, target, feed.size, final=False))
        feed.extend(resample_points(source.view(), rate, target, feed.size))
        np.testing.assert_array_equal(source.view(), clip)
        np.testing.assert_array_equal(feed.view(), resample_linear(clip, rate, target))
