"""The files a drag out of the takes list carries: WAV copies with readable names,
written from the mouse press on, off the GUI thread (prepared_files.py): 20 takes of
20 s take 764-924 ms, which on the GUI thread froze the window as the drag began.

Never the library's own FLAC: a file manager may move what is dropped, and
``<uuid>.flac`` says nothing to anyone browsing the folder later.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from studio.errors import UserError
from studio.outputs import safe_stem
from studio.sound import files as sound_files  # looked up per write: tests wrap it
from studio.views.prepared_files import PreparedFiles, Superseded
from studio.views.take_export import reopened
from studio.views.takes_model import Row

STILL_WRITING = ("The files of the dragged takes are still being written; drag them again "
                 "in a moment.")


def file_stem(name: str) -> str:
    """A take name as a file name every file manager accepts."""
    return safe_stem(name)


class DragFiles:
    """The dragged takes' WAV copies, written from the press on, off the GUI thread
    (prepared_files.py), in a private temp folder that goes when this object does.

    ``shelf_of()``: the panel's TakeShelf (asked on the GUI thread; the write reads
    through its own read-only connection, as the export does). ``say(sentence)``: why a
    drag carries fewer takes than chosen, or none.
    """

    def __init__(self, shelf_of: Callable[[], object], say: Callable[[str], None]):
        self._shelf_of = shelf_of
        self._say = say
        self._files = PreparedFiles("take-drag")

    def prepare(self, rows: list[Row]) -> Future:
        """Start writing the copies of ``rows`` (unless they are, under these names)."""
        ids, names = tuple(r.take.id for r in rows), tuple(r.name for r in rows)
        shelf = self._shelf_of()
        return self._files.prepare(ids, names, lambda folder, stop: write_copies(
            shelf, ids, names, folder, stop))

    def __call__(self, rows: list[Row]) -> list[Path]:
        """The copies of ``rows``, waiting a bounded time for their write; [] (and the
        sentence said) when they cannot be written or are not ready in time."""
        try:
            paths, problems = self._files.wait(self.prepare(rows), STILL_WRITING)
        except UserError as exc:
            self._say(str(exc))
            return []
        if problems:
            self._say(problems[0])
        return paths

    def close(self) -> None:
        self._files.close()


def write_copies(shelf, ids, names, folder: Path, stop) -> tuple[list[Path], list[str]]:
    """Each take as ``<its name>.wav`` in ``folder`` (on the drag thread); returns the
    paths written and a sentence for each take that could not be read (left out)."""
    library, closing = reopened(shelf)
    paths: list[Path] = []
    problems: list[str] = []
    try:
        for take_id, name in zip(ids, names, strict=True):
            if stop.is_set():
                raise Superseded
            try:
                samples, rate = library.read_audio(take_id)
            except UserError as exc:
                problems.append(str(exc))
                continue
            path = folder / f"{file_stem(name)}.wav"
            n = 2
            while path in paths:
                path = folder / f"{file_stem(name)} ({n}).wav"
                n += 1
            sound_files.write_audio_atomic(path, samples, rate)
            paths.append(path)
    except OSError as exc:
        raise UserError(f"The dragged takes could not be written to a temporary folder "
                        f"({exc.strerror or exc}); free some disk space and drag them "
                        "again.") from None
    finally:
        for opened in closing:
            opened.close()
    return paths, problems
