"""The server's own paths, taken out of sentences a client reads.

Library and engine errors name files (``The voice prompt /home/ana/.local/share/...
is damaged``), which is right in the studio and the CLI, where the user owns them,
and wrong over HTTP, where it tells a stranger the account name and the folder
layout. Every sentence a client gets passes through :func:`hide_paths` (in
``app.error``): a path inside the data folder becomes "a file in the server's data
folder", any other path under the home, temp, working or Python folders "a file on
the server". The full sentence still goes to the log file.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

_DATA = "the server's data folder"
_DATA_FILE = "a file in the server's data folder"
_OTHER = "a file on the server"
_TAIL = r"[^\s'\"]*"  # the rest of a path: a root with spaces is matched whole, its tail is not
_TRAILING = ".,;:)!?"  # a sentence's punctuation after a path


def _spellings(folder: str | os.PathLike) -> set[str]:
    """A folder as it may be written: as given, absolute, resolved (links followed)."""
    path = Path(folder).expanduser()
    found = {str(path), os.path.abspath(path)}
    try:
        found.add(str(path.resolve()))
    except (OSError, RuntimeError):
        pass
    return {f.rstrip("/\\") for f in found if len(f.rstrip("/\\")) > 1}


def private_roots(data_root: str | os.PathLike | None = None) -> list[tuple[str, str, str]]:
    """(folder, word for the folder itself, word for a path inside it), longest first,
    so that the data folder inside the home folder is named as the data folder."""
    from studio.paths import data_dir

    roots = []
    for folder in {data_root or data_dir(), data_dir()}:
        roots += [(s, _DATA, _DATA_FILE) for s in _spellings(folder)]
    for folder in (Path.home(), tempfile.gettempdir(), os.getcwd(), sys.prefix,
                   sys.base_prefix):
        roots += [(s, _OTHER, _OTHER) for s in _spellings(folder)]
    return sorted(roots, key=lambda root: len(root[0]), reverse=True)


def _neutral(match: re.Match, itself: str, inside: str) -> str:
    tail = match.group(1)
    kept = tail.rstrip(_TRAILING)
    return (inside if kept.strip("/\\") else itself) + tail[len(kept):]


def hide_paths(sentence: str, data_root: str | os.PathLike | None = None) -> str:
    """``sentence`` with each path under a private folder replaced by neutral words."""
    for folder, itself, inside in private_roots(data_root):
        if folder in sentence:
            # Only where the folder ends (a separator, a quote, a space or the end), so
            # /home/ana does not match /home/anabel.
            sentence = re.sub(re.escape(folder) + r"(?=$|[/\\\s'\".,;:)])" + f"({_TAIL})",
                              lambda m, a=itself, b=inside: _neutral(m, a, b), sentence)
    return sentence
