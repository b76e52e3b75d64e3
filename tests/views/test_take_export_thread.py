"""Take exports leave the GUI thread: the event loop keeps running while takes are
written, the dialog shows it is busy and cannot be closed mid-export, and a failure
of any kind is one sentence in the dialog."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
from PySide6.QtCore import QTimer
from take_fixtures import add

from studio.library.session_takes import TakeShelf
from studio.views.take_export import ExportDialog, reopened

TICKS_WANTED = 5


def rows_of(*takes):
    return [SimpleNamespace(name=t.settings.text, take=t) for t in takes]


def test_the_event_loop_runs_while_takes_are_exported(qtbot, writer, reader, tmp_path):
    takes = [add(writer, f"Take number {n}.", seed=n) for n in range(3)]
    ticked = threading.Event()
    ticks = []
    seen = {}

    def export(library, ids, folder, fmt, stems=None, **options):
        seen["thread"] = threading.current_thread()
        seen["busy"] = (dialog.progress.isVisibleTo(dialog), dialog.exportButton.isEnabled())
        # On the GUI thread this wait would starve the timer below and time out.
        seen["loop_ran"] = ticked.wait(timeout=10)
        from studio.library.export import export_takes

        return export_takes(library, ids, folder, fmt, stems, **options)

    def tick():
        ticks.append(1)
        if len(ticks) >= TICKS_WANTED:
            ticked.set()

    dialog = ExportDialog(reader, rows_of(*takes), folder=str(tmp_path / "out"), fmt="WAV",
                          export=export)
    qtbot.addWidget(dialog)
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    with qtbot.waitSignal(dialog.exported, timeout=30_000) as done:
        assert dialog.run_export()
        dialog.reject()  # Esc mid-export: the export finishes, then the dialog closes
    timer.stop()
    assert seen["thread"] is not threading.main_thread()
    assert seen["loop_ran"], "the GUI thread's timer did not fire during the export"
    assert seen["busy"] == (True, False)
    assert done.args[0].startswith("Exported 3 takes as WAV")
    assert sorted(p.name for p in dialog.written) == [
        "Take number 0.wav", "Take number 1.wav", "Take number 2.wav"]
    assert dialog.result() == dialog.DialogCode.Accepted
    assert not dialog.progress.isVisibleTo(dialog)


def test_an_unexpected_failure_is_one_sentence_and_the_dialog_stays(qtbot, reader, writer,
                                                                      tmp_path):
    take = add(writer, "Fails.")

    def export(*args, **kwargs):
        raise ValueError("a bug deep inside")

    dialog = ExportDialog(reader, rows_of(take), folder=str(tmp_path), fmt="WAV", export=export)
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.failed) as failed:
        assert dialog.run_export()
    assert failed.args[0] == (f"The takes could not be exported to {tmp_path}; the log file "
                              "in the data folder says why.")
    assert dialog.exportButton.isEnabled() and dialog.result() == 0
    assert not dialog.busy()


def test_the_thread_reads_through_its_own_connection(writer, reader):
    """An SQLite connection refuses a thread that did not open it: the export thread
    opens its own on the same files, and keeps the session's unsaved takes."""
    take = add(writer, "Mine.")
    session = SimpleNamespace()
    shelf, closing = reopened(TakeShelf(reader, session))
    try:
        assert shelf.library is not reader and closing == [shelf.library]
        assert shelf.session is session
        audio, rate = shelf.library.read_audio(take.id)
        assert rate == 24000 and np.asarray(audio).size > 0
    finally:
        for library in closing:
            library.close()
    assert reopened(None) == (None, [])
