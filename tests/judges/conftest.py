"""Real speech for the judges: espeak-ng voices (a Debian package installed by .ci/run)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from studio.sound.files import read_audio

T1 = "The quick brown fox jumps over the lazy dog near the river bank."
T2 = "Every morning she walks to the market and buys fresh bread for breakfast."


@pytest.fixture(scope="session")
def speak(tmp_path_factory):
    """speak(text, voice) -> (mono float32 samples, sample rate), rendered by espeak-ng."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed; .ci/run installs it (apt-get install espeak-ng)")
    folder = tmp_path_factory.mktemp("espeak")
    made: dict[tuple[str, str], tuple[np.ndarray, int]] = {}

    def render(text: str, voice: str = "en+m3") -> tuple[np.ndarray, int]:
        if (text, voice) not in made:
            out = folder / f"{len(made)}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-w", str(out), text], check=True)
            audio, rate = read_audio(out)
            made[(text, voice)] = (np.asarray(audio, np.float32).reshape(-1), rate)
        return made[(text, voice)]

    return render


@pytest.fixture(scope="session")
def encoder():
    from studio.judges.voice import SpeakerEncoder

    return SpeakerEncoder()


@pytest.fixture(scope="session")
def dnsmos():
    from studio.judges.sound import Dnsmos

    return Dnsmos()
