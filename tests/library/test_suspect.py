"""Suspect-take badges on synthetic signals, and the character error rate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from studio.library import suspect
from studio.library.suspect import (
    CLIPPED,
    LONG_SILENCE,
    LONG_SILENCE_S,
    NEAR_SILENT,
    TOO_LOUD,
    TOO_QUIET,
    cer,
    inspect,
)

RATE = 24000


def test_a_clean_take_gets_no_badge(speech):
    assert inspect(speech(4.0), RATE) == ()
    assert inspect(speech(0.3), RATE) == ()  # shorter than a loudness block


def test_silence_and_near_silence_are_flagged():
    assert inspect(np.zeros(RATE * 2, np.float32), RATE) == (NEAR_SILENT,)
    hiss = 1e-4 * np.random.default_rng(0).standard_normal(RATE * 2)
    assert inspect(hiss, RATE) == (NEAR_SILENT,)
    assert inspect(np.zeros(0, np.float32), RATE) == (NEAR_SILENT,)


def test_clipping_is_flagged_but_a_single_full_scale_peak_is_not(speech):
    clipped = np.clip(8.0 * speech(3.0), -1.0, 1.0)
    assert CLIPPED in inspect(clipped, RATE)
    peak = speech(3.0).copy()
    peak[1000] = 1.0
    assert CLIPPED not in inspect(peak, RATE)


def test_abnormal_loudness_is_flagged(speech):
    t = np.arange(RATE * 3) / RATE
    blaring = 0.98 * np.sign(np.sin(2 * np.pi * 300 * t)) * (np.abs(np.sin(2 * np.pi * 300 * t)) > 0.01)
    assert inspect(blaring, RATE) == (TOO_LOUD,)  # a square wave under full scale: loud, not clipped
    assert inspect(0.02 * speech(3.0), RATE) == (TOO_QUIET,)


def test_long_internal_silences_are_flagged_and_padding_is_not(speech):
    voice = speech(2.0)

    def gap(seconds):
        return np.zeros(int(seconds * RATE), np.float32)

    assert inspect(np.concatenate([voice, gap(LONG_SILENCE_S + 0.3), voice]), RATE) == (LONG_SILENCE,)
    assert inspect(np.concatenate([voice, gap(0.6), voice]), RATE) == ()
    assert inspect(np.concatenate([gap(3.0), voice, gap(3.0)]), RATE) == ()  # leading/trailing


def test_cer_counts_character_edits_on_normalised_text():
    assert cer("Hello, world!", "hello world") == 0.0
    assert cer("abc", "abd") == pytest.approx(1 / 3)
    assert cer("abc", "") == 1.0
    assert cer("ab", "xxab yy") == pytest.approx(4 / 2)  # insertions count: it can exceed 1
    assert cer("[laughter] Oh, hi!", "oh hi") == 0.0  # non-verbal tags are never heard as text
    assert cer("ＡＢＣ", "abc") == 0.0  # compatibility forms fold
    assert cer("你好世界", "你好世") == pytest.approx(0.25)
    assert cer("", "") == 0.0 and cer("...", "words") == 1.0


def test_the_user_guide_states_the_thresholds_in_use():
    guide = (Path(__file__).resolve().parents[2] / "docs" / "user-guide.md").read_text("utf-8")
    section = guide.split("## Suspect takes", 1)[1].split("\n## ", 1)[0]

    def minus(value: float) -> str:
        return f"−{abs(value):g}"

    for phrase in (
        f"below {minus(suspect.NEAR_SILENT_LUFS)} LUFS",
        f"between {minus(suspect.NEAR_SILENT_LUFS)} and {minus(suspect.QUIET_LUFS)} LUFS",
        f"above {minus(suspect.LOUD_LUFS)} LUFS",
        f"{suspect.CLIP_RUN} or more samples in a row",
        f"≥ {suspect.CLIP_LEVEL:g}",
        f"{suspect.LONG_SILENCE_S:g} s or more",
        f"{suspect.FRAME_S * 1000:g} ms frames",
        f"{suspect.SILENCE_BELOW_DB:g} dB below",
        f"below {minus(suspect.SILENCE_FLOOR_DBFS)} dBFS",
    ):
        assert phrase in section, phrase
