"""Files a drag out of a list carries, written ahead of the drag on a thread of their own.

Qt's drag needs its files when it starts (the QMimeData holds their URLs), so the write
cannot follow the drag. It starts instead when the mouse presses an item
(:class:`PressList` calls the view back), and the drag waits only for what is left of
it, at most ``DRAG_WAIT_S``; the mouse travels for longer than most writes before a drag
begins. The Voices view's .ovoice bundles and the takes list's WAV copies both go this
way. Measured with benchmarks/bench_exports.py on a 2-core CPU: a bundle of a 49 MB
clip 271-459 ms, the WAV copies of 20 takes of 20 s 764-924 ms, for which the window
froze when they were written on the GUI thread; written from the press, the press
costs the GUI thread under 2 ms and its timer ran at most 15 ms late meanwhile.

The thread is a ``ThreadPoolExecutor``'s: a Python thread (a first torch import crashed
on a Qt-made one, DESIGN.md), one, so writes follow the presses in order. Each write gets
a folder of its own in a private temp folder, so a drop target still reading an earlier
drag's files never sees them replaced. A write is kept for another drag of the same
thing in the same state (``KEPT`` of them); a write no drag will carry again is deleted.
A press on something else supersedes a write not yet done: one waiting never starts, and
one under way stops at its next check of ``stop`` (a click that selects two hundred takes
must not hold up the drag of the one clicked next).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as WaitedTooLong
from pathlib import Path
from typing import Any, NamedTuple

from PySide6.QtCore import Qt, QTemporaryDir
from PySide6.QtWidgets import QListView, QWidget

from studio.errors import UserError

DRAG_WAIT_S = 2.0  # the longest a drag waits for its files on the GUI thread
KEPT = 16  # writes kept for another drag; older ones are deleted


class Superseded(Exception):
    """Raised by a write that saw its ``stop`` set: a newer press wants the thread."""


class _Write(NamedTuple):
    state: Any  # what the files were written from
    future: Future
    folder: Path  # the write's own: deleted once no drag carries its files
    stop: threading.Event  # set when a newer press supersedes the write

    def failed(self) -> bool:
        """Not worth waiting for: it failed, or was superseded (stopped or never run)."""
        return self.stop.is_set() or (self.future.done() and self.future.exception() is not None)

    def discard(self) -> None:
        """Delete the files (a drop may have copied them already); a write still going
        is deleted when it ends, on its thread."""
        self.future.add_done_callback(lambda _: shutil.rmtree(self.folder, ignore_errors=True))


class PreparedFiles:
    """Writes started on a press, one folder each, and awaited (bounded) by the drag.

    ``key`` names what is dragged (a voice, a selection of takes); ``state`` is what the
    files depend on (the voice, the takes' names): a write of the same key in an equal
    state, done or under way, is reused, while one of an older state is discarded.
    """

    def __init__(self, thread_name: str):
        self._thread_name = thread_name
        self._dir: QTemporaryDir | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._held: dict[Hashable, _Write] = {}  # most recently asked for last
        self._writes = 0

    def prepare(self, key: Hashable, state: Any,
                write: Callable[[Path, threading.Event], Any]) -> Future:
        """The write of ``key`` in ``state``: ``write(folder, stop)`` on this object's
        thread, started now unless one is held (a failed or stopped write is tried
        again). ``stop`` is set when a newer write supersedes this one unfinished: the
        write may then raise :class:`Superseded` between its files."""
        held = self._held.pop(key, None)
        if held is not None and held.state == state and not held.failed():
            self._held[key] = held
            return held.future
        if held is not None:
            held.discard()
        if self._dir is None:
            self._dir = QTemporaryDir()
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._thread_name)
        self._writes += 1
        folder = Path(self._dir.path()) / str(self._writes)
        folder.mkdir(parents=True, exist_ok=True)
        for other in self._held.values():
            if not other.future.done():
                other.stop.set()
                other.future.cancel()  # never started: it never will
        stop = threading.Event()
        held = self._held[key] = _Write(state, self._pool.submit(write, folder, stop), folder,
                                        stop)
        while len(self._held) > KEPT:
            self._held.pop(next(iter(self._held))).discard()
        return held.future

    def wait(self, future: Future, still_writing: str) -> Any:
        """``future``'s result, waiting at most ``DRAG_WAIT_S``: the write's own error
        passes on, and a write not done in time (or superseded meanwhile) raises
        UserError(``still_writing``)."""
        try:
            return future.result(timeout=DRAG_WAIT_S)
        except (WaitedTooLong, CancelledError, Superseded):
            raise UserError(still_writing) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class PressList(QListView):
    """A list whose left press on an item calls ``pressed(rows)`` with the rows a drag
    from there would carry (the selection once the press has moved it)."""

    def __init__(self, pressed: Callable[[list[int]], None], parent: QWidget | None = None):
        super().__init__(parent)
        self._pressed = pressed

    def mousePressEvent(self, event) -> None:
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton \
                and self.indexAt(event.position().toPoint()).isValid():
            self._pressed(sorted({index.row() for index in self.selectedIndexes()}))

