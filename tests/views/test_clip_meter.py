"""Issue 25, finding 10: the Clone view's reference clip is checked before a render. A
0.4 s and a 40 s clip loaded silently; now a length meter says too short / good / long,
a long clip offers "Trim to the best 10 s", and clipping and noise are named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor

from studio.audio.backend import AudioStatus
from studio.sound.files import read_audio, write_audio_atomic
from studio.views.clip_meter import GREEN
from studio.views.reference_panel import ReferencePanel

RATE = 24000
SHOTS = Path(__file__).resolve().parents[2] / "out" / "views"
PLAYABLE = AudioStatus(True, None, [(0, "Speakers")], [(1, "Microphone")])


def syllables(seconds: float, level: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    gate = ((t % 0.3) < 0.2).astype(np.float64)
    return (level * np.sin(2 * np.pi * 150 * t) * gate).astype(np.float32)


def wav(tmp_path, name: str, audio: np.ndarray) -> Path:
    path = tmp_path / name
    write_audio_atomic(path, audio, RATE)
    return path


@pytest.fixture
def panel(qtbot, tmp_path):
    widget = ReferencePanel(None, audio_status=PLAYABLE, recordings_dir=tmp_path / "rec")
    qtbot.addWidget(widget)
    widget.resize(760, 420)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_a_too_short_clip_says_so_on_the_meter(panel, tmp_path):
    panel.set_reference(wav(tmp_path, "blip.wav", syllables(0.4)))
    meter = panel.clipMeter
    assert meter.isVisible()
    assert meter.lengthLabel.text() == "0.4 s · too short: 3-10 s clones best"
    assert not meter.trimBestButton.isVisible()
    assert meter.check.warnings[0].startswith("The clip is only 0.4 s")


def test_a_good_clip_is_a_good_length_with_nothing_to_warn(panel, tmp_path):
    panel.set_reference(wav(tmp_path, "good.wav", syllables(5.0)))
    assert panel.clipMeter.lengthLabel.text() == "5.0 s · a good length"
    assert not panel.clipMeter.warningsLabel.isVisible()


def test_a_clip_with_no_speech_is_not_called_a_good_length(panel, tmp_path):
    """Review 8, finding 3: a silent 5 s clip read "5.0 s · a good length" in green
    right above the red sentence that it has no speech."""
    meter = panel.clipMeter
    panel.set_reference(wav(tmp_path, "silence.wav", np.zeros(5 * RATE, np.float32)))
    assert meter.lengthLabel.text() == "5.0 s · no speech"
    assert meter.lengthLabel.palette().color(meter.lengthLabel.foregroundRole()) != \
        GREEN.darker(130)
    # Silence is refused by Generate: said as a fix, in red.
    assert meter.warningsLabel.text().startswith("The clip is silent")
    assert meter.warningsLabel.is_error()
    # Steady noise renders (as it sounds): a warning, not an error.
    hum = np.random.default_rng(0).normal(0, 0.2, 5 * RATE).astype(np.float32)
    panel.set_reference(wav(tmp_path, "hum.wav", hum))
    assert meter.lengthLabel.text() == "5.0 s · no speech"
    assert meter.warningsLabel.text().startswith("No speech stands out")
    assert meter.warningsLabel.isVisible() and not meter.warningsLabel.is_error()


def test_a_saved_voices_clip_warns_without_red(panel, tmp_path):
    """Review 8, finding 11: a saved voice renders from the prompt it was saved with, so
    nothing said about its clip looks like a refusal."""
    hot = np.clip(syllables(5.0, level=1.0) * 3, -1.0, 1.0)
    panel.set_reference(wav(tmp_path, "hot.wav", hot))
    meter = panel.clipMeter
    assert meter.warningsLabel.is_error()  # the user's own clip: record it quieter
    meter.set_saved(True)
    assert meter.warningsLabel.text().startswith("The clip is distorted")
    assert not meter.warningsLabel.is_error()


def test_a_long_clip_trims_to_its_best_10_s_and_keeps_the_original(qtbot, panel, tmp_path):
    quiet = np.zeros(15 * RATE, dtype=np.float32)
    long = wav(tmp_path, "interview.wav", np.concatenate([quiet, syllables(8.1), quiet,
                                                          quiet]))
    original = long.read_bytes()
    panel.set_reference(long)
    meter = panel.clipMeter
    assert meter.lengthLabel.text().endswith("long: 3-10 s clones best and renders faster")
    assert meter.trimBestButton.isVisible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.grab().save(str(SHOTS / "clip_meter_long.png"))
    with qtbot.waitSignal(panel.reference_changed):
        meter.trimBestButton.click()
    trimmed = panel.reference()
    assert trimmed != long and trimmed.parent == tmp_path / "rec"
    audio, rate = read_audio(trimmed)
    seconds = audio.shape[-1] / rate
    assert 8.0 <= seconds <= 10.0
    loud = np.abs(audio[0]) > 0.1
    assert loud.sum() / rate > 4.0, "all 8 s of speech (its loud samples) are in the clip"
    assert long.read_bytes() == original
    assert meter.lengthLabel.text().endswith("a good length")
    assert meter.lengthLabel.palette().windowText().color() == QColor("#3a9d5d").darker(130), \
        "a good length is green, 10.0 s too"


def test_trim_goes_under_the_length_where_the_row_has_no_room_and_back(qtbot, panel,
                                                                        tmp_path):
    """Review 8: at 1024x640 the long verdict and Trim made the Clone page wider than its
    pane ("Trin"); narrow, the verdict wraps and Trim moves under it, whole."""
    panel.set_reference(wav(tmp_path, "long.wav", syllables(21.0)))
    meter = panel.clipMeter
    trim, words = meter.trimBestButton, meter.lengthLabel

    def beside() -> bool:
        return abs(trim.geometry().center().y() - meter.bar.geometry().center().y()) < 6

    panel.resize(meter.one_row_width() + 40, 420)
    qtbot.waitUntil(beside)
    assert trim.geometry().left() > words.geometry().right()
    panel.resize(440, 420)
    qtbot.waitUntil(lambda: not beside())
    assert trim.geometry().top() > words.geometry().top()
    assert trim.width() >= trim.sizeHint().width()
    assert meter.geometry().right() < panel.width() and words.width() <= meter.width()
    panel.resize(meter.one_row_width() + 40, 420)
    qtbot.waitUntil(beside)


def test_clipping_and_noise_are_named_under_the_meter(panel, tmp_path):
    hot = np.clip(syllables(5.0, level=1.0) * 3, -1.0, 1.0)
    panel.set_reference(wav(tmp_path, "hot.wav", hot))
    assert panel.clipMeter.warningsLabel.isVisible()
    assert panel.clipMeter.warningsLabel.text().startswith("The clip is distorted")
    hiss = np.random.default_rng(0).normal(0, 10 ** (-30 / 20), 5 * RATE).astype(np.float32)
    panel.set_reference(wav(tmp_path, "hiss.wav", syllables(5.0) + hiss))
    assert "Background noise is loud" in panel.clipMeter.warningsLabel.text()
    panel.set_reference(None)
    assert not panel.clipMeter.isVisible()
