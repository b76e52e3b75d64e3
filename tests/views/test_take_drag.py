"""Takes dragged out of the list (issue 27, finding 7): their WAV copies are written from
the mouse press on, off the GUI thread, so the GUI thread stays on time while twenty
long takes are written; the drag carries complete files, waits a bounded time for a
write still going, and otherwise says why in one sentence."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from gui_lateness import Lateness
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest
from studio_fakes import PLAYABLE
from take_fixtures import add, voice

from studio.sound import files as sound_files
from studio.views import prepared_files
from studio.views.take_drag import file_stem
from studio.views.takes_panel import TakesPanel

TAKES, SECONDS = 20, 30.0  # long enough to time on a fast, quiet machine (20 s: 0.19 s once)


@pytest.fixture
def make_panel(qtbot, player, controller, reader):
    def make() -> TakesPanel:
        panel = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
        panel.resize(360, 760)
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitExposed(panel)
        return panel

    return make


@pytest.fixture
def writes(monkeypatch):
    """Each WAV a drag writes: (its thread, when it ended), and when the first began; a
    gate may hold writes back."""
    record = {"done": [], "began": [], "gate": threading.Event()}
    record["gate"].set()
    real = sound_files.write_audio_atomic

    def write_audio_atomic(*args, **kwargs):
        record["gate"].wait(timeout=30)
        record["began"].append(time.monotonic())
        out = real(*args, **kwargs)
        record["done"].append((threading.current_thread(), time.monotonic()))
        return out

    monkeypatch.setattr(sound_files, "write_audio_atomic", write_audio_atomic)
    return record


def press(panel, row: int = 0) -> None:
    """A left press on a take, as a drag begins (no release: the selection stays)."""
    rect = panel.list.visualRect(panel.model.index(row))
    QTest.mousePress(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def release(panel, row: int = 0) -> None:
    rect = panel.list.visualRect(panel.model.index(row))
    QTest.mouseRelease(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def events_until(finished, seconds: float) -> None:
    """Run the GUI thread's event loop (the mouse travelling) until ``finished()`` or
    ``seconds``; a QEventLoop, since QTest.qWait holds the GIL (DESIGN.md)."""
    deadline = time.monotonic() + seconds
    while not finished() and time.monotonic() < deadline:
        loop = QEventLoop()
        QTimer.singleShot(20, loop.quit)
        loop.exec()


def drag(panel):
    """What QAbstractItemView.startDrag asks the model for: the selected takes' data."""
    return panel.model.mimeData(panel.list.selectedIndexes())


def test_twenty_long_takes_are_written_off_the_gui_thread_from_the_press(writer, make_panel,
                                                                          writes):
    takes = [add(writer, f"Long take {n}.", seed=n, audio=voice(SECONDS, freq=150 + 10 * n))
             for n in range(TAKES)]
    panel = make_panel()
    panel.list.selectAll()
    lateness = Lateness()
    lateness.timer.start()
    started = time.monotonic()
    press(panel)
    events_until(lambda: len(writes["done"]) == TAKES, seconds=15)
    before_drag = len(writes["done"])
    mime = drag(panel)
    events_until(lambda: False, seconds=0.1)  # a tick after a stall records it
    lateness.timer.stop()
    release(panel)

    writing = max(end for _, end in writes["done"]) - min(writes["began"])
    threads = {t.name for t, _ in writes["done"]}
    worst = max(lateness.gaps)
    print(f"{TAKES} takes of {SECONDS:.0f} s written in {writing:.2f} s "
          f"({time.monotonic() - started:.2f} s from the press); GUI timer ticks "
          f"{len(lateness.gaps)}, worst late {worst * 1000:.0f} ms")
    # Written on the GUI thread, the timer could not fire until every file was written.
    assert writing > 0.2, "the takes are long enough to measure"
    assert len(lateness.gaps) > 20 and worst < writing / 4, (
        f"the GUI thread stalled {worst * 1000:.0f} ms of the {writing * 1000:.0f} ms of writing")
    assert threading.main_thread().name not in threads, f"written on the GUI thread: {threads}"
    assert before_drag == TAKES, "the press started the writes; the drag only waited"
    assert len(writes["done"]) == TAKES, "the drag wrote again what the press had written"
    paths = {Path(url.toLocalFile()).name: Path(url.toLocalFile()) for url in mime.urls()}
    assert sorted(paths) == sorted(f"Long take {n}.wav" for n in range(TAKES))
    for n, take in enumerate(takes):
        audio, rate = sf.read(paths[f"Long take {n}.wav"], dtype="float32")
        expected, _ = writer.read_audio(take.id)
        assert rate == 24000 and audio.shape == expected.shape
        assert np.abs(audio - expected).max() < 1e-4


def test_a_write_that_outlasts_the_bound_is_one_sentence_then_is_carried(writer, make_panel,
                                                                          writes, monkeypatch):
    add(writer, "Slow to write.")
    panel = make_panel()
    panel.list.selectAll()
    monkeypatch.setattr(prepared_files, "DRAG_WAIT_S", 0.05)
    writes["gate"].clear()
    press(panel)
    assert drag(panel).urls() == []
    assert panel.detail.suspectLabel.text() == ("The files of the dragged takes are still being "
                                                "written; drag them again in a moment.")
    writes["gate"].set()
    monkeypatch.setattr(prepared_files, "DRAG_WAIT_S", 10)
    urls = drag(panel).urls()
    assert [u.fileName() for u in urls] == ["Slow to write.wav"]
    assert len(writes["done"]) == 1  # the slow write was waited for, not repeated


def test_a_renamed_take_is_written_again_under_its_new_name(writer, controller, make_panel,
                                                            writes):
    take = add(writer, "First name.")
    panel = make_panel()
    panel.list.selectAll()
    first = Path(drag(panel).urls()[0].toLocalFile())
    panel.model.patch(take.id, name="Second name")
    second = drag(panel).urls()
    assert [u.fileName() for u in second] == ["Second name.wav"]
    assert len(writes["done"]) == 2
    assert first.name == "First name.wav"
    assert not first.exists(), "a file no drag will carry again is deleted"


def test_a_press_on_another_take_stops_the_unfinished_write_of_the_last(qtbot, writer,
                                                                        make_panel, writes,
                                                                        monkeypatch):
    """A click that selects many takes must not hold up the drag of the one clicked next."""
    for n in range(4):
        add(writer, f"Take {n}.", seed=n)
    panel = make_panel()
    panel.list.selectAll()
    monkeypatch.setattr(prepared_files, "DRAG_WAIT_S", 10)
    writes["gate"].clear()
    press(panel, 0)  # all four selected: their copies start, held at the gate
    release(panel, 0)  # a click: the selection is this take now
    press(panel, 2)  # and now this one
    writes["gate"].set()
    urls = drag(panel).urls()
    release(panel, 2)
    assert [u.fileName() for u in urls] == [f"{file_stem(panel.model.row_info(2).name)}.wav"]
    # At most the file being written when the second press came, then the one dragged.
    assert len(writes["done"]) <= 2, f"{len(writes['done'])} files written for one"
