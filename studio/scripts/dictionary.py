"""A project's pronunciations as the Script view edits them (``word = how to say it`` per
line), and the lexicon a line is read with: the project's entries, then the data folder's
``pronunciations.json``.

The data folder's file is read once and again only when its modification time or size
changes, so showing a line (which says how the model will read it) costs one ``stat``,
not a read and a parse of the file per selection.
"""

from __future__ import annotations

import os
from pathlib import Path

from studio.engine.lexicon import GLOBAL_FILE, Lexicon
from studio.errors import UserError


def parse_dictionary(text: str) -> Lexicon:
    """``word = how to say it`` per line (blank lines and ``#`` comments ignored)."""
    entries = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, sep, say = line.partition("=")
        if not sep or not word.strip() or not say.strip():
            raise UserError(f"Line {n} of the pronunciations needs the form word = how to "
                            "say it.")
        entries.append({"word": word.strip(), "say": say.strip()})
    return Lexicon.from_data(entries, "of this project")


def dictionary_text(lexicon: Lexicon) -> str:
    return "\n".join(f"{e.word} = {e.say}" for e in lexicon.entries)


class Pronunciations:
    """The data folder's dictionary, cached by the file's (path, mtime, size); and the
    lexicon of a project's own entries followed by it, cached while neither changes (a
    Lexicon compiles its patterns once, on first use)."""

    def __init__(self, root: Path | None = None):
        self._root = root  # None: the app's data folder, looked up on each use
        self._stamp: tuple | None = None
        self._common: Lexicon | UserError = Lexicon()
        self._own: tuple = ()
        self._combined: Lexicon | None = None

    def common(self) -> Lexicon:
        """The data folder's ``pronunciations.json`` (empty when there is none); a damaged
        file raises its one sentence, without being read again until it changes."""
        from studio.paths import data_dir

        path = (self._root if self._root is not None else data_dir()) / GLOBAL_FILE
        try:
            info = os.stat(path)
            stamp = (str(path), info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = (str(path), None, None)
        if stamp != self._stamp:
            try:
                self._common = Lexicon.load(path) if stamp[1] is not None else Lexicon()
            except UserError as exc:
                self._common = exc
            self._stamp, self._combined = stamp, None
        if isinstance(self._common, UserError):
            raise self._common
        return self._common

    def lexicon(self, own: Lexicon) -> Lexicon:
        """``own`` (a project's entries) and then the data folder's; only ``own`` when the
        data folder's file is damaged (a line still shows the project's readings)."""
        try:
            common = self.common()
        except UserError:
            return own
        if self._combined is None or own.entries != self._own:
            self._own, self._combined = own.entries, own + common
        return self._combined

    def reads(self, text: str, language: str | None, own: Lexicon) -> str:
        """``text`` as the model will read it."""
        lexicon = self.lexicon(own)
        return lexicon.apply(text, language) if lexicon else text
