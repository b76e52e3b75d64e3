"""No output may overwrite an input or another output: the one check every command that
writes makes before it writes anything.

Two paths are the same file when the operating system says so (a hard link, a symlink,
another spelling of the path, a case-insensitive file system), or, for a file that does
not exist yet, when they resolve to the same place.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

Named = tuple["str | os.PathLike | None", str]  # a path (None: not given) and what it is


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    try:
        if os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b):
            return True
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):  # unreadable, or a NUL in a name: cannot be the same
        return False


def check_distinct(inputs: Iterable[Named], outputs: Iterable[Named]) -> None:
    """One sentence (UserError) when an output is an input (writing it would destroy the
    input) or two outputs are one file; ``None`` paths are skipped."""
    from studio.errors import UserError

    inputs = [(Path(p), what) for p, what in inputs if p is not None]
    outputs = [(Path(p), what) for p, what in outputs if p is not None]
    for n, (path, what) in enumerate(outputs):
        for source, role in inputs:
            if same_file(path, source):
                raise UserError(f"The {what} {path} is the {role}; writing it would destroy "
                                f"the {role}, so choose another name.")
        for other, other_what in outputs[n + 1:]:
            if same_file(path, other):
                raise UserError(f"The {what} and the {other_what} are both {path}; give each "
                                "its own name.")
