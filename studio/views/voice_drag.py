"""The .ovoice files a drag out of the Voices view carries, written ahead of the drag.

Qt's drag needs the file when it starts (the QMimeData holds its URL), so the write
cannot follow the drag. It starts instead when the mouse presses a card, on this
object's own thread (the library's files only: no database connection, no model, so
neither the worker nor the view's SQLite connection is involved), and the drag waits
only for what is left of it, at most ``DRAG_WAIT_S``. Measured with bench_exports.py
on a 2-core CPU: 4 ms for a 3 s clip, 13 ms for 10 s, 50 ms for 60 s, 271 ms for a
49 MB clip (the library takes up to 50 MB); the mouse travels for longer than most of
that before a drag begins. A bundle is written once per state of the voice: another
drag of an unchanged voice reuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as WaitedTooLong
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QTemporaryDir, QUrl
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QListView, QWidget

from studio.errors import UserError

DRAG_WAIT_S = 2.0  # the longest a drag waits for its file on the GUI thread
KEPT = 16  # bundles kept for another drag; older ones are deleted
STILL_WRITING = ("The voice file for '{name}' is still being written; drag the card again "
                 "in a moment.")


class DragBundles:
    """``library_of()``: the view's read-only VoiceLibrary (read on the GUI thread)."""

    def __init__(self, library_of: Callable[[], object]):
        self._library_of = library_of
        self._dir: QTemporaryDir | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._held: dict[str, tuple[object, Future]] = {}  # voice id -> (its state, write)
        self._writes = 0

    def prepare(self, voice_id: str) -> Future:
        """Start writing the voice's bundle (unless one of its current state exists)."""
        from studio.library.bundle_file import bundle_name, write_files

        library = self._library_of()
        voice = library.get(voice_id)
        held = self._held.pop(voice_id, None)
        if held is not None and held[0] == voice and not _failed(held[1]):
            self._held[voice_id] = held  # most recent last
            return held[1]
        if held is not None:
            _discard(held[1])
        if self._dir is None:
            self._dir = QTemporaryDir()
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="voice-drag")
        self._writes += 1
        folder = Path(self._dir.path()) / str(self._writes)  # a drop target may still read
        folder.mkdir(parents=True, exist_ok=True)            # an earlier file: never reused
        future = self._pool.submit(write_files, voice, library.clip_path(voice.id),
                                   library.prompt_path(voice.id), folder / bundle_name(voice))
        self._held[voice_id] = (voice, future)
        while len(self._held) > KEPT:
            _discard(self._held.pop(next(iter(self._held)))[1])
        return future

    def path(self, voice_id: str) -> Path:
        """The voice's bundle, waiting at most ``DRAG_WAIT_S`` for its write; raises
        UserError (one sentence) when it cannot be written or is not ready in time."""
        future = self.prepare(voice_id)
        try:
            return future.result(timeout=DRAG_WAIT_S)
        except WaitedTooLong:
            raise UserError(STILL_WRITING.format(name=self._held[voice_id][0].name)) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class VoiceList(QListView):
    """The cards; a card dragged out becomes an .ovoice file (written from the press on,
    off the GUI thread: see voice_drag.py)."""

    def __init__(self, bundle_of, prepare, parent: QWidget | None = None):
        super().__init__(parent)
        self._bundle_of = bundle_of  # voice id -> Path of a fresh .ovoice, or None
        self._prepare = prepare  # voice id: a drag may follow, start writing its file

    def mousePressEvent(self, event) -> None:
        super().mousePressEvent(event)
        entry = self.model().entry(self.indexAt(event.position().toPoint()).row())
        if entry is not None and event.button() == Qt.MouseButton.LeftButton:
            self._prepare(entry.voice.id)

    def startDrag(self, actions) -> None:
        entry = self.model().entry(self.currentIndex().row())
        path = self._bundle_of(entry.voice.id) if entry is not None else None
        if path is None:
            return
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(path))])
        drag = QDrag(self)
        drag.setMimeData(mime)
        drag.exec(Qt.DropAction.CopyAction)


def _failed(future: Future) -> bool:
    return future.done() and future.exception() is not None


def _discard(future: Future) -> None:
    """Delete a bundle no drag will carry again (a drop may have copied it already)."""
    if future.done() and future.exception() is None:
        future.result().unlink(missing_ok=True)
