"""What outputs are called and what they may not be: a file name made from a text (the
one rule for every name the app derives: a take's export, a dragged take, a title), and
no output may overwrite an input or another output, the one check every command that
writes makes before it writes anything.

Two paths are the same file when the operating system says so (a hard link, a symlink,
another spelling of the path, a case-insensitive file system), or, for a file that does
not exist yet, when they resolve to the same place.
"""

from __future__ import annotations

import os
import re
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


# ---------------------------------------------------------------- names of outputs
# Characters some file system refuses (Windows' set covers the others), and the controls.
_REFUSED = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')
MAX_STEM_CHARS = 80
TITLE_WORDS = 5  # a title from a text: its first sentence, or this many words at most
TITLE_CHARS = 40  # ...and this many characters (a text without spaces: Chinese, Japanese)
_SENTENCE_END = ".!?…。！？"
_CLAUSE_END = ",;:—–，；："


def safe_stem(text: str, fallback: str = "take") -> str:
    """``text`` as a file name without its extension that every system accepts: refused
    characters become spaces, "·" a dash, and the ends lose spaces and dots (Windows
    drops a trailing dot); ``fallback`` when nothing is left."""
    stem = _REFUSED.sub(" ", str(text)).replace("·", "-")
    stem = " ".join(stem.split()).strip(" .")
    return stem[:MAX_STEM_CHARS].rstrip(" .") or fallback


def title_of(text: str, words: int = TITLE_WORDS) -> str:
    """A short readable title from the start of ``text``: its first sentence when that
    has two to ``words`` words, else its first words cut at a clause's end (a comma...)
    when one falls after the second word, else at a word's end; never mid-word, and
    without the punctuation it was cut at. "" for a text with no words."""
    tokens = str(text).split()[:words]
    if len(tokens) == 1:  # one word, or a text written without spaces: cut by characters
        head = tokens[0][:TITLE_CHARS]
        for ends in (_SENTENCE_END, _CLAUSE_END):
            cut = next((n for n, c in enumerate(head) if c in ends and n >= 2), None)
            if cut is not None:
                return _trimmed(head[:cut])
        return _trimmed(head)
    for ends in (_SENTENCE_END, _CLAUSE_END):
        for n, token in enumerate(tokens[1:], 2):
            if token[-1] in ends:
                return _trimmed(" ".join(tokens[:n]))
    while len(tokens) > 1 and len(" ".join(tokens)) > TITLE_CHARS:
        tokens.pop()
    return _trimmed(" ".join(tokens))


def _trimmed(title: str) -> str:
    return title.strip().rstrip(_SENTENCE_END + _CLAUSE_END + " '\"”’»)-")


def name_of(*parts: str, fallback: str = "take") -> str:
    """A file name (no extension) of the non-empty ``parts`` joined by " - ", such as
    "Chapter two - Margaret - take 2"."""
    return safe_stem(" - ".join(p.strip() for p in parts if p and p.strip()), fallback)
