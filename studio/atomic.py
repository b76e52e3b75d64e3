"""Atomic file writes: a crash or an error never leaves a half-written file behind.

Data goes to a unique hidden temp file in the target's folder, is flushed to
disk, and is then renamed over the target with ``os.replace`` (atomic on one
file system). Concurrent writers of one path each use their own temp file, so
the last rename wins with a complete file.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

TEMP_EXTRA = len(".") + 1 + 12 + len(".tmp")  # what a temp name adds to the target's


def name_limit(folder: Path) -> int:
    """The longest file name the folder's file system takes (255 where it cannot say)."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):
        return 255


def check_target(path: Path, what: str) -> None:
    """Refuse, in one sentence, a path that cannot be written atomically: a missing or
    read-only folder, a folder in its place, or a name the file system would refuse."""
    from studio.errors import UserError

    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise UserError(f"The folder {folder} for the {what} does not exist; create it first.")
    limit = name_limit(folder)
    if len(os.fsencode(target.name)) > limit:  # before any stat: that would raise on it
        raise UserError(f"The {what} name is {len(os.fsencode(target.name))} bytes long, more "
                        f"than this file system allows ({limit}); choose a shorter name.")
    if target.is_dir():
        raise UserError(f"The {what} {target} is a folder; name a file instead.")
    if target.exists() and not target.resolve().is_file():  # /dev/full, a pipe, ...
        raise UserError(f"The {what} {target} is not a regular file (a device or a pipe); "
                        "name a file instead.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"The folder {folder} for the {what} is not writable; choose another "
                        "folder or fix its permissions.")


def _open_temp_beside(target: Path) -> tuple[int, str]:
    # Mode 0o666 lets the umask decide, as for any new file (mkstemp forces 0o600).
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    # The temp name holds as much of the target's as fits, so any legal name can be written.
    stem = target.name[: max(1, name_limit(target.parent) - TEMP_EXTRA)]
    while True:
        name = os.fspath(target.with_name(f".{stem}.{secrets.token_hex(6)}.tmp"))
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue


@contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """``with atomic_write(p) as f: f.write(...)`` -- ``p`` appears complete or not at all.

    A symlink is written through: its target is replaced, the link stays."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    fd, tmp = _open_temp_beside(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """:func:`atomic_write` for writers that open a file by name (libsndfile): yields the
    temp file's path, which appears at ``path`` complete or not at all. A writer that
    opens by name reports a full disk as its own error, not from inside a callback."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    fd, tmp = _open_temp_beside(target)
    os.close(fd)
    try:
        yield Path(tmp)
        fd = os.open(tmp, os.O_RDWR | getattr(os, "O_BINARY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def fsync_dir(path: str | os.PathLike) -> None:
    """Make a rename inside ``path`` durable (POSIX; Windows has no directory handles)."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
