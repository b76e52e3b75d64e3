"""The .ovoice files a drag out of the Voices view carries, written ahead of the drag.

The write starts when the mouse presses a card and the drag waits for what is left of
it (prepared_files.py says why and how). It reads the library's files only (no
database connection, no model, so neither the worker nor the view's SQLite connection
is involved). Measured with bench_exports.py on a 2-core CPU: 4 ms for a 3 s clip,
13 ms for 10 s, 50 ms for 60 s, 271 ms for a 49 MB clip (the library takes up to
50 MB). A bundle is written once per state of the voice: another drag of an unchanged
voice reuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QWidget

from studio.views.prepared_files import PreparedFiles, PressList

STILL_WRITING = ("The voice file for '{name}' is still being written; drag the card again "
                 "in a moment.")


class DragBundles:
    """``library_of()``: the view's read-only VoiceLibrary (read on the GUI thread)."""

    def __init__(self, library_of: Callable[[], object]):
        self._library_of = library_of
        self._files = PreparedFiles("voice-drag")

    def prepare(self, voice_id: str) -> Future:
        """Start writing the voice's bundle (unless one of its current state exists)."""
        return self._start(voice_id)[1]

    def path(self, voice_id: str) -> Path:
        """The voice's bundle, waiting a bounded time for its write; raises UserError
        (one sentence) when it cannot be written or is not ready in time."""
        voice, future = self._start(voice_id)
        return self._files.wait(future, STILL_WRITING.format(name=voice.name))

    def close(self) -> None:
        self._files.close()

    def _start(self, voice_id: str):
        from studio.library.bundle_file import bundle_name, write_files

        library = self._library_of()
        voice = library.get(voice_id)
        clip, prompt = library.clip_path(voice.id), library.prompt_path(voice.id)
        return voice, self._files.prepare(
            voice_id, voice, lambda folder, _stop: write_files(voice, clip, prompt,
                                                               folder / bundle_name(voice)))


class VoiceList(PressList):
    """The cards; a card dragged out becomes an .ovoice file (written from the press on,
    off the GUI thread: see voice_drag.py)."""

    def __init__(self, bundle_of, prepare, parent: QWidget | None = None):
        super().__init__(self._pressed_rows, parent)
        self._bundle_of = bundle_of  # voice id -> Path of a fresh .ovoice, or None
        self._prepare = prepare  # voice id: a drag may follow, start writing its file

    def _pressed_rows(self, rows: list[int]) -> None:
        for row in rows:
            entry = self.model().entry(row)
            if entry is not None:
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

