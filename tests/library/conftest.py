"""Fixtures for the library tests: a library in the private data folder, and clips."""

from __future__ import annotations

from pathlib import Path

import pytest
from library_helpers import write_clip

from studio.library.voices import VoiceLibrary
from studio.paths import data_dir


@pytest.fixture
def library():
    lib = VoiceLibrary(data_dir())
    yield lib
    lib.close()


@pytest.fixture
def make_clip(tmp_path):
    """``make_clip(name="ref.wav", seconds=0.5, seed=0)`` -> the path of a short clip."""

    def make(name: str = "ref.wav", seconds: float = 0.5, seed: int = 0) -> Path:
        return write_clip(tmp_path / "clips" / name, seconds, seed)

    return make
