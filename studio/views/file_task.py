"""File work off the GUI thread: one call (reading takes, mixing, writing an export) on
its own Python thread, its progress and outcome delivered as signals on the GUI thread.

Why not the worker's thread: it owns the model and is busy for minutes while a script
renders, so an export queued there would wait for the render. Why a ``threading.Thread``
and not a QThreadPool task: our Python code that runs longer than one callback runs on
Python threads (docs/architecture.md, "Threads and Python"); a file task may import
the audio writers (and through them torch) first, which crashed on a Qt-made thread.
The work is numpy and libsndfile, which release the GIL for their large steps, and the
interpreter hands the GIL back to the GUI thread every few milliseconds in between.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from studio.errors import UserError
from studio.views.thread_emit import emit_from_thread

log = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.05  # at most 20 progress signals a second (a new step always says)


class TaskCancelled(Exception):
    """Raised by the task's function when it saw its cancel event set."""


class FileTask(QObject):
    """Runs ``work(progress, cancel)`` once; ``progress(str, float)`` while it runs, then
    one of ``done(result)``, ``failed(sentence)`` or ``cancelled()``, all on the GUI
    thread. A UserError's own sentence is passed on; an OSError becomes ``failure`` with
    the system's reason; any other error (its traceback goes to the log) becomes
    ``unexpected``, by default ``failure`` and where the log file is."""

    progress = Signal(str, float)
    done = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    # Emitted on the task's thread; received by this object's slots on the GUI thread.
    _moved = Signal(str, float)
    _ended = Signal(str, object)

    def __init__(self, work: Callable, failure: str, *, cancelled_by=(TaskCancelled,),
                 unexpected: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._work, self._failure, self._cancelled_by = work, failure, tuple(cancelled_by)
        self._unexpected = unexpected or (f"{failure}; the log file in the data folder has "
                                          "the details.")
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._said = ("", 0.0)
        self._moved.connect(self._on_moved)
        self._ended.connect(self._on_ended)

    def start(self, name: str, *, daemon: bool = True) -> None:
        """``daemon=False``: quitting the studio waits for the work to end (an export the
        user was promised finishes; a mix to play need not)."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=daemon)
        self._thread.start()

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def cancel(self, wait: float = 0.0) -> None:
        """Ask the work to stop at its next check; ``wait`` seconds for it to end."""
        self._cancel.set()
        if wait and self._thread is not None:
            self._thread.join(wait)

    def _report(self, what: str, fraction: float) -> None:
        """The work's progress callback (its thread): a new step, or 50 ms later."""
        now = time.monotonic()
        if what != self._said[0] or now - self._said[1] >= PROGRESS_EVERY_S:
            self._said = (what, now)
            emit_from_thread(self._moved, what, float(fraction))

    def _run(self) -> None:
        try:
            outcome = ("done", self._work(self._report, self._cancel))
        except self._cancelled_by:
            outcome = ("cancelled", None)
        except UserError as exc:
            outcome = ("failed", str(exc))
        except OSError as exc:
            log.warning("file task: %s", exc)
            outcome = ("failed", f"{self._failure} ({exc.strerror or exc}); nothing was kept.")
        except Exception:  # the studio must survive any failure of a file task
            log.exception("file task %s failed", threading.current_thread().name)
            outcome = ("failed", self._unexpected)
        emit_from_thread(self._ended, *outcome)

    @Slot(str, float)
    def _on_moved(self, what: str, fraction: float) -> None:
        if not self._cancel.is_set():
            self.progress.emit(what, fraction)

    @Slot(str, object)
    def _on_ended(self, how: str, value: object) -> None:
        self._thread = None
        if how == "done":
            self.done.emit(value)
        elif how == "failed":
            self.failed.emit(value)
        else:
            self.cancelled.emit()
