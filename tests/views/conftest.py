"""Fixtures the takes-panel and A/B tests share: a real take library in a temp
folder (the worker's writer and the GUI's reader), a fake player and a fake
controller that applies take edits to the writer. A test module may override any."""

from __future__ import annotations

import pytest
from studio_fakes import FakeController, FakePlayer

from studio.library.takes import TakeLibrary


@pytest.fixture
def writer(tmp_path):
    with TakeLibrary(tmp_path / "lib") as library:
        yield library


@pytest.fixture
def data_writer():
    """The take library in the data folder (which the root conftest points at a temp
    folder): the one a whole MainWindow reads, unlike ``writer``'s."""
    with TakeLibrary() as library:
        yield library


@pytest.fixture
def reader(tmp_path, writer):
    with TakeLibrary(tmp_path / "lib", read_only=True) as library:
        yield library


@pytest.fixture
def player() -> FakePlayer:
    return FakePlayer()


@pytest.fixture
def controller(writer) -> FakeController:
    return FakeController(writer)


@pytest.fixture
def voice_writer():
    """The saved voices' writer (the worker's part) in the data folder conftest points at."""
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary() as library:
        yield library
