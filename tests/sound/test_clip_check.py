"""Reference clip checks (issue 25, finding 10): length, clipping and the noise floor,
and the best 10 s of a long clip; on synthetic audio and on espeak-ng speech."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf

from studio.sound.clip_check import best_window, check_clip, length_verdict

RATE = 24000


def syllables(seconds: float, *, level: float = 0.3, seed: int = 0) -> np.ndarray:
    """Speech-like: 200 ms tone bursts with 100 ms gaps, pitch wandering."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t) + rng.normal(0, 2, t.size)
    tone = np.sin(2 * np.pi * np.cumsum(pitch) / RATE) + 0.3 * np.sin(4 * np.pi * np.cumsum(pitch) / RATE)
    gate = ((t % 0.3) < 0.2).astype(np.float64)
    return (level * tone * gate / 1.3).astype(np.float32)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), dtype=np.float32)


def noise(seconds: float, dbfs: float, seed: int = 1) -> np.ndarray:
    rms = 10 ** (dbfs / 20)
    return (np.random.default_rng(seed).normal(0, rms, int(seconds * RATE))).astype(np.float32)


@pytest.mark.parametrize(("seconds", "verdict"), [(0.4, "too short"), (2.5, "short"),
                                                   (3.0, "best"), (10.0, "best"),
                                                   (12.0, "longish"), (40.0, "long")])
def test_length_verdicts(seconds, verdict):
    assert length_verdict(seconds) == verdict


def test_a_clean_clip_of_a_good_length_has_no_warnings():
    check = check_clip(syllables(5.0), RATE)
    assert check.length == "best" and check.warnings == () and check.clipped_runs == 0


def test_a_short_and_a_long_clip_say_so():
    short = check_clip(syllables(0.4), RATE)
    assert short.length == "too short"
    assert short.warnings[0].startswith("The clip is only 0.4 s; record or choose 3-10 s")
    long = check_clip(syllables(40.0), RATE)
    assert long.length == "long" and "trim it to the best 10 s" in long.warnings[0]


def test_clipping_is_found_and_counted():
    loud = np.clip(syllables(5.0, level=1.0) * 3.0, -1.0, 1.0)
    check = check_clip(loud, RATE)
    assert check.clipped_runs > 5
    assert any(w.startswith("The clip is distorted") for w in check.warnings)


def test_a_loud_noise_floor_is_named_in_dbfs():
    noisy = syllables(5.0) + noise(5.0, -35.0)
    check = check_clip(noisy, RATE)
    assert check.noise_floor_dbfs is not None and -40 < check.noise_floor_dbfs < -30
    assert any(w.startswith("Background noise is loud (-3") for w in check.warnings)
    quiet = syllables(5.0) + noise(5.0, -70.0)
    assert check_clip(quiet, RATE).warnings == ()


def test_speech_barely_above_the_noise_is_a_low_snr_warning():
    weak = syllables(5.0, level=0.05) + noise(5.0, -50.0)
    check = check_clip(weak, RATE)
    assert any("dB above the background" in w for w in check.warnings), check


def test_a_silent_clip_has_no_speech_and_is_said_to_be_silent():
    check = check_clip(silence(4.0), RATE)
    assert (check.speech, check.silent) == (False, True)
    assert check.warnings == ("The clip is silent; choose a clip where the voice is audible.",)


def test_a_clip_of_steady_noise_has_no_speech_but_is_not_silent():
    """Review 8, finding 11: a saved voice made from a noise take. It renders (it is not
    silent), so its sentence is a warning about what the clone copies, not a refusal."""
    check = check_clip(noise(4.0, -12.0), RATE)
    assert (check.speech, check.silent) == (False, False)
    assert check.warnings[0].startswith("No speech stands out in the clip")
    assert check_clip(syllables(4.0), RATE).speech


def test_the_best_window_is_where_the_speech_is_and_ends_in_pauses():
    clip = np.concatenate([noise(12.0, -60.0), syllables(9.0), noise(14.0, -60.0)])
    start, end = best_window(clip, RATE)
    assert 0 < end - start <= 10.0
    assert start <= 12.1 and end >= 20.9, "the whole 9 s of speech is kept"
    # The edges land in quiet frames, not inside a syllable.
    for edge in (start, end - 0.02):
        frame = clip[int(edge * RATE):int(edge * RATE) + int(0.02 * RATE)]
        assert np.sqrt(np.mean(frame.astype(np.float64) ** 2)) < 0.01, edge


def test_the_best_window_avoids_a_clipped_stretch():
    clean, harsh = syllables(10.0, seed=3), np.clip(syllables(10.0, level=1.0, seed=4) * 4, -1, 1)
    start, end = best_window(np.concatenate([harsh, clean, harsh]), RATE)
    assert 9.4 <= start and end <= 20.6


def test_a_clip_shorter_than_the_window_is_kept_whole():
    assert best_window(syllables(6.0), RATE) == (0.0, 6.0)


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is needed (apt-get install espeak-ng)")
    path = tmp_path_factory.mktemp("espeak") / "speech.wav"
    subprocess.run(["espeak-ng", "-v", "en+f3", "-w", str(path),
                    "The quick brown fox jumps over the lazy dog, and then it rests."],
                   check=True, capture_output=True)
    audio, rate = sf.read(path, dtype="float32")
    return audio, rate


def test_espeak_speech_is_clean_then_noisy_then_clipped(speech):
    audio, rate = speech
    clean = check_clip(audio, rate)
    assert clean.length == "best" and clean.warnings == (), clean
    hiss = np.random.default_rng(5).normal(0, 10 ** (-32 / 20), audio.size).astype(np.float32)
    assert any(w.startswith("Background noise") for w in check_clip(audio + hiss, rate).warnings)
    hot = np.clip(audio / np.abs(audio).max() * 4.0, -1.0, 1.0)
    assert any(w.startswith("The clip is distorted") for w in check_clip(hot, rate).warnings)


def test_espeak_speech_in_a_long_recording_is_found(speech):
    audio, rate = speech
    pad = np.zeros(int(20 * rate), dtype=np.float32)
    long = np.concatenate([pad, audio, pad, pad])
    assert check_clip(long, rate).length == "long"
    start, end = best_window(long, rate)
    spoken = audio.size / rate
    assert end - start <= 10.0
    assert start <= 20.0 + 0.1 and end >= 20.0 + min(spoken, 10.0) - 1.3, (start, end, spoken)
