"""Reading a file the user named, safely: only a regular file, and only up to a bound.

A path on the command line or in a voice map can name ``/dev/zero``, a FIFO, a socket
or a terminal: ``Path.read_text`` would read a device until memory runs out and block
forever on a pipe with no writer. Here the file is opened with ``O_NONBLOCK`` (so a
FIFO opens at once), checked with ``fstat`` on the open descriptor (so a swap between
the check and the read is impossible), refused unless it is a regular file, and read
to at most ``limit`` bytes (a file that grows while it is read is refused too).

The bounds per kind of file live with the callers; each is far above any real file.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from studio.errors import UserError

KB = 1024
MB = 1024 * KB
MAX_JSON_DEPTH = 64  # a voice map is 3 deep, a dictionary 2: deeper is not ours
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
          | getattr(os, "O_CLOEXEC", 0))


def size_words(n: int) -> str:
    """A byte count as a person reads it: 800 KB, 8 MB."""
    return f"{n / MB:g} MB" if n >= MB else f"{n / KB:g} KB"


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse_kind(path: Path, what: str, kind: str) -> UserError:
    return UserError(f"The {what} {path} is {kind}, not a file; name a regular file.")


def check_regular(path: str | os.PathLike, what: str) -> Path:
    """Refuse, in one sentence, a path that is missing or not a regular file (for readers
    that open by name, such as libsndfile); returns the path."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UserError(f"The {what} {path} does not exist; check the path.") from None
    except OSError as exc:
        raise UserError(f"The {what} {path} cannot be read ({exc.strerror or exc}).") from None
    kind = _kind(mode)
    if kind is not None:
        raise _refuse_kind(path, what, kind)
    return path


def _open_regular(path: Path, what: str) -> tuple[int, os.stat_result]:
    """A descriptor of ``path`` and its fstat, or one sentence if it is not a regular file."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        raise UserError(f"The {what} {path} does not exist; check the path.") from None
    except IsADirectoryError:
        raise _refuse_kind(path, what, "a folder") from None
    except OSError as exc:
        raise UserError(f"The {what} {path} cannot be read ({exc.strerror or exc}).") from None
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise _refuse_kind(path, what, kind)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_head(path: str | os.PathLike, count: int, what: str) -> bytes:
    """The first ``count`` bytes (fewer in a shorter file) of the regular file ``path``."""
    path = Path(path)
    fd, _info = _open_regular(path, what)
    try:
        return os.read(fd, count)
    except OSError as exc:
        raise UserError(f"The {what} {path} cannot be read ({exc.strerror or exc}).") from None
    finally:
        os.close(fd)


def read_bytes(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """At most ``limit`` bytes of the regular file ``path``; one sentence for anything else."""
    path = Path(path)
    fd, info = _open_regular(path, what)
    try:
        too_big = UserError(f"The {what} {path} is larger than {size_words(limit)}; no "
                            f"{what} is that large, so check that it is the right file.")
        if info.st_size > limit:
            raise too_big
        chunks, total = [], 0
        while total <= limit:  # one byte past the limit tells a file that grew
            chunk = os.read(fd, min(MB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise too_big
        return b"".join(chunks)
    except OSError as exc:
        raise UserError(f"The {what} {path} cannot be read ({exc.strerror or exc}).") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, limit: int, what: str) -> str:
    """The UTF-8 text of ``path`` (a byte-order mark is dropped), bounded as read_bytes."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"The {what} {path} is not UTF-8 text; save it as UTF-8.") from None


def read_json(path: str | os.PathLike, limit: int, what: str):
    """The JSON value in ``path``, bounded as read_bytes and nested at most MAX_JSON_DEPTH
    deep (the decoder recurses: a file nested 100,000 deep would crash it)."""
    text = read_text(path, limit, what)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"The {what} {path} is not valid JSON ({exc.msg} at line "
                        f"{exc.lineno}).") from None
    except RecursionError:
        data = None
        deep = True
    else:
        deep = json_depth(data) > MAX_JSON_DEPTH
    if deep:
        raise UserError(f"The {what} {path} nests lists or objects more than {MAX_JSON_DEPTH} "
                        "deep; it is not the kind of file expected here.")
    return data


def json_depth(value) -> int:
    """How deep lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in item)
    return deepest
