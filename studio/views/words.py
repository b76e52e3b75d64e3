"""Words a person reads in the window for things the engine names in its own terms:
what each non-verbal tag sounds like, and a file's name without hashes or app folders."""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

from studio.paths import data_dir

# What the model makes of each tag in NONVERBAL_TAGS (studio.engine.text).
TAG_WORDS = {
    "[laughter]": "A laugh",
    "[sigh]": "A sigh",
    "[confirmation-en]": "An agreeing “mm-hm”",
    "[question-en]": "A questioning “hm?”",
    "[question-ah]": "A questioning “ah?”",
    "[question-oh]": "A questioning “oh?”",
    "[question-ei]": "A questioning “eh?”",
    "[question-yi]": "A questioning “yi?” (as in Chinese)",
    "[surprise-ah]": "A surprised “ah!”",
    "[surprise-oh]": "A surprised “oh!”",
    "[surprise-wa]": "A surprised “wa!” (as in Chinese)",
    "[surprise-yo]": "A surprised “yo!” (as in Chinese)",
    "[dissatisfaction-hnn]": "A displeased “hnn”",
}
PAUSE_WORDS = {"[pause 500ms]": "Half a second of silence", "[pause 1s]": "One second of silence",
               "[pause 2s]": "Two seconds of silence"}

_HASHLIKE = re.compile(r"[0-9a-f]{12,}", re.IGNORECASE)


def tag_words(tag: str) -> str:
    return TAG_WORDS.get(tag) or PAUSE_WORDS.get(tag) or tag


def clip_name(path: Path, modified: float | None = None) -> str:
    """A clip as a person knows it: its file name, or, for a name the app made from a
    hash, "Clip of 3 Dec 14:05" (when it was made)."""
    path = Path(path)
    if not _HASHLIKE.fullmatch(path.stem):
        return path.name
    try:
        stamp = modified if modified is not None else path.stat().st_mtime
    except OSError:
        return "An earlier clip"
    when = _dt.datetime.fromtimestamp(stamp)
    return f"Clip of {when.day} {when:%b %H:%M}"


def start_folder(last: str | Path | None, avoid: Path | None = None) -> str:
    """Where a file dialog opens: the user's last folder if it still exists and is not
    inside the app's own data (``avoid``), else home."""
    if last:
        folder = Path(last).expanduser()
        folder = folder if folder.is_dir() else folder.parent
        inside = avoid is not None and (folder == avoid or avoid in folder.parents)
        if folder.is_dir() and not inside and str(folder) not in ("", "."):
            return str(folder)
    return str(Path.home())


def shown_name(path: Path) -> str:
    """A clip's path as the window shows it: the user's own files as they are, the app's
    own (under the data folder: a saved voice's clip, a take's audio) by a name."""
    try:
        inside = data_dir().resolve() in Path(path).resolve().parents
    except OSError:
        inside = False
    return clip_name(path) if inside else str(path)
