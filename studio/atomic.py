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


def _open_temp_beside(target: Path) -> tuple[int, str]:
    # Mode 0o666 lets the umask decide, as for any new file (mkstemp forces 0o600).
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = os.fspath(target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp"))
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue


@contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """``with atomic_write(p) as f: f.write(...)`` -- ``p`` appears complete or not at all."""
    target = Path(path)
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


def fsync_dir(path: str | os.PathLike) -> None:
    """Make a rename inside ``path`` durable (POSIX; Windows has no directory handles)."""
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
