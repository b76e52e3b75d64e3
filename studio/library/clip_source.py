"""Which clip a cleaned clip was made from, as a person names it.

A cleaned clip (:mod:`studio.service.cleanup`) is a WAV named for a hash, with its
report beside it as JSON; the report also keeps the source clip's file name under
:data:`SOURCE_KEY`. Takes rendered from a cleaned clip are labelled by that name
("noisy.wav, cleaned"), which never changes, rather than by the hashed file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SOURCE_KEY = "source_name"  # in a cleaned clip's JSON report
CLEANED = ", cleaned"
_HASHLIKE = re.compile(r"[0-9a-f]{12,}", re.IGNORECASE)


def cleaned_source(path: str | Path) -> str | None:
    """The source's file name of the cleaned clip at ``path``; "" for a cleaned clip whose
    report names none (cleaned before names were kept); None for any other file."""
    path = Path(path)
    if not _HASHLIKE.fullmatch(path.stem):
        return None
    try:
        data = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    name = data.get(SOURCE_KEY)
    return name.strip() if isinstance(name, str) else ""


def clip_label(path: str | Path | None) -> str | None:
    """"noisy.wav, cleaned" for a cleaned clip, else None. One whose source is not
    known yet reads "A cleaned clip": the same every session, unlike its file's time."""
    if not path:
        return None
    source = cleaned_source(path)
    if source is None:
        return None
    if not source:
        return "A cleaned clip"
    if _HASHLIKE.fullmatch(Path(source).stem):  # cleaned from the studio's own file
        return f"An earlier clip{CLEANED}"
    return f"{source}{CLEANED}"
