"""Several output files that appear together or not at all.

Each file is written under a hidden temporary name beside its target (keeping its
suffix, so writers that choose a format by the name still can); :meth:`Staged.commit`
renames them all into place once everything else (a project's save, say) has worked.
Leaving the ``with`` block without a commit removes the temporary files and the folders
this stage created, so a failure leaves nothing new behind and every earlier file intact.

The renames themselves are one ``os.replace`` each, done after every file is complete
and on disk: the window in which a crash could leave some outputs new and some old is
a handful of renames, not a render.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from studio.atomic import TEMP_EXTRA, fsync_dir, name_limit


class Staged:
    def __init__(self):
        self._moves: list[tuple[Path, Path]] = []  # (temporary file, target)
        self._made: list[Path] = []  # folders this stage created, outermost first
        self._committed = False

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, *exc) -> None:
        if not self._committed:
            self.discard()

    def folder(self, path: str | os.PathLike) -> Path:
        """``path`` as a folder, created (with missing parents) if it is not there yet."""
        path = Path(path)
        missing = [p for p in (path, *path.parents) if not p.exists()][::-1]
        for folder in missing:
            folder.mkdir()
            self._made.append(folder)
        return path

    def path(self, target: str | os.PathLike) -> Path:
        """A new empty temporary file to write ``target``'s contents to (a symlinked
        target is written through: its file is replaced, the link stays)."""
        target = Path(target)
        if target.is_symlink():
            target = target.resolve()
        suffix = target.suffix
        stem = target.name[: max(1, name_limit(target.parent) - TEMP_EXTRA - len(suffix))]
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        while True:
            temp = target.with_name(f".{stem}.{secrets.token_hex(6)}{suffix}")
            try:
                os.close(os.open(temp, flags, 0o666))
                break
            except FileExistsError:
                continue
        self._moves.append((temp, target))
        return temp

    def commit(self) -> None:
        """Rename every temporary file into place (make the renames durable too)."""
        for temp, target in self._moves:
            os.replace(temp, target)
        for folder in dict.fromkeys(target.parent for _, target in self._moves):
            fsync_dir(folder)
        self._committed = True

    def discard(self) -> None:
        for temp, _target in self._moves:
            temp.unlink(missing_ok=True)
        self._moves.clear()
        for folder in reversed(self._made):
            try:
                folder.rmdir()
            except OSError:  # something else was put there meanwhile: it stays
                pass
        self._made.clear()
