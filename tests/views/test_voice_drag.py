"""A voice card dragged out: its .ovoice is written from the press on, off the GUI
thread, once per state of the voice; the drag waits a bounded time and otherwise
says why in one sentence."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from studio_fakes import FakePlayer

from studio.library import bundle_file
from studio.library.bundle import read_bundle
from studio.views import prepared_files
from studio.views.voices_view import VoicesView
from tests.library.library_helpers import make_prompt, write_clip


@pytest.fixture
def zoe(voice_writer, tmp_path):
    return voice_writer.create("Zoe", write_clip(tmp_path / "zoe.wav", 2.0),
                               make_prompt(text="Once upon a time."), language="en")


@pytest.fixture
def view(qtbot, zoe):
    view = VoicesView(FakePlayer())
    qtbot.addWidget(view)
    view.show()
    view.refresh(select=zoe.id)
    yield view
    view.close_library()


@pytest.fixture
def writes(monkeypatch):
    """Each bundle write's thread, and a gate a test may close to hold writes back."""
    record = {"threads": [], "gate": threading.Event()}
    record["gate"].set()
    real = bundle_file.write_files

    def write_files(*args):
        record["threads"].append(threading.current_thread())
        record["gate"].wait(timeout=30)
        return real(*args)

    monkeypatch.setattr(bundle_file, "write_files", write_files)
    return record


def press(view, row: int = 0) -> None:
    rect = view.list.visualRect(view.model.index(row))
    QTest.mousePress(view.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    QTest.mouseRelease(view.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_press_writes_the_bundle_on_another_thread_and_the_drag_carries_it(qtbot, view, zoe,
                                                                               writes):
    press(view)
    qtbot.waitUntil(lambda: len(writes["threads"]) == 1)  # started by the press
    path = view._bundle_for_drag(zoe.id)
    assert writes["threads"] and all(t is not threading.main_thread() for t in writes["threads"])
    assert len(writes["threads"]) == 1, "the drag wrote again what the press had written"
    assert path.name == "Zoe.ovoice" and read_bundle(path).name == "Zoe"
    assert view._bundle_for_drag(zoe.id) == path  # an unchanged voice: the same file


def test_a_changed_voice_gets_a_fresh_bundle(view, zoe, voice_writer, writes):
    first = view._bundle_for_drag(zoe.id)
    voice_writer.rename(zoe.id, "Zoe Two")
    view.refresh(select=zoe.id)
    second = view._bundle_for_drag(zoe.id)
    assert second.name == "Zoe Two.ovoice" and read_bundle(second).name == "Zoe Two"
    assert not first.exists() and len(writes["threads"]) == 2


def test_a_write_that_outlasts_the_bound_is_one_sentence(view, zoe, writes, monkeypatch):
    monkeypatch.setattr(prepared_files, "DRAG_WAIT_S", 0.05)
    writes["gate"].clear()
    assert view._bundle_for_drag(zoe.id) is None
    assert view.notice.text() == ("The voice file for 'Zoe' is still being written; drag the "
                                  "card again in a moment.")
    writes["gate"].set()
    monkeypatch.setattr(prepared_files, "DRAG_WAIT_S", 10)
    assert view._bundle_for_drag(zoe.id).is_file()
    assert len(writes["threads"]) == 1  # the slow write was waited for, not repeated


def test_unreadable_files_are_one_sentence_and_a_later_drag_tries_again(view, zoe, voice_writer):
    clip = voice_writer.clip_path(zoe.id)
    kept = clip.read_bytes()
    clip.unlink()
    assert view._bundle_for_drag(zoe.id) is None
    assert view.notice.text().startswith("The voice 'Zoe' cannot be exported because its files "
                                         "cannot be read")
    clip.write_bytes(kept)
    assert view._bundle_for_drag(zoe.id).is_file()
