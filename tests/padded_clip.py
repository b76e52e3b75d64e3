"""A clip for the cleanup's trim: espeak-ng speech with a second of silence at both ends
(espeak-ng is a Debian package .ci/run installs). tests/conftest.py offers the fixture
to every test."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from studio.sound.files import read_audio, write_audio_atomic

PADDED_CLIP_TEXT = "The quick brown fox jumps over the lazy dog."


@pytest.fixture
def padded_clip(tmp_path):
    """PADDED_CLIP_TEXT spoken, with a second of silence before and after."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed; .ci/run installs it (apt-get install espeak-ng)")
    raw = tmp_path / "raw.wav"
    subprocess.run(["espeak-ng", "-v", "en+m3", "-w", str(raw), PADDED_CLIP_TEXT], check=True)
    audio, rate = read_audio(raw)
    pad = np.zeros(rate, np.float32)
    clip = tmp_path / "clip.wav"
    write_audio_atomic(clip, np.concatenate([pad, audio.reshape(-1), pad]), rate)
    return clip
