"""A pronunciation dictionary: whole-word replacements applied to the text before it is
chunked and read, so a name is said the same way in every line.

An entry maps a word (or phrase) to what the model should read instead: another
spelling, CMU phonemes in brackets (``[K AA1 R L]``) or pinyin with tone digits.
Matching is whole-word and, unless the entry says otherwise, ignores case; the longest
entry wins where two overlap ("New York" before "New"). Entries in CJK script match
anywhere (those scripts have no spaces between words). An entry with a language
applies only to text in that language.

The file format (JSON): ``[{"word": "Nguyen", "say": "Win", "language": "en",
"case": false}, ...]`` or, for the simple case, ``{"Nguyen": "Win", ...}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from studio.engine.text import check_code_points
from studio.errors import UserError

MAX_ENTRIES = 10_000
MAX_FIELD_CHARS = 200
MAX_FILE_BYTES = 8 * 1024 * 1024  # MAX_ENTRIES entries of two MAX_FIELD_CHARS fields fit
GLOBAL_FILE = "pronunciations.json"  # in the data folder: applied to every render
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
# Bracketed parts are left alone: tags ([laughter], [pause 1s]) and phonemes ([B EY1 S]).
_BRACKETED = re.compile(r"(\[[^\]]*\])")


@dataclass(frozen=True)
class Entry:
    word: str
    say: str
    language: str | None = None  # a language id ("en"); None: every language
    case: bool = False  # True: match the word's case exactly


class Lexicon:
    def __init__(self, entries=()):
        self.entries = tuple(entries)
        # Per language: the compiled alternation and what each of its groups says.
        self._compiled: dict[str | None, tuple[re.Pattern | None, dict[str, str]]] = {}

    def __add__(self, other: Lexicon) -> Lexicon:
        """Both dictionaries; where two entries are as long, this one's wins."""
        return Lexicon(self.entries + other.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def apply(self, text: str, language: str | None = None) -> str:
        """``text`` as the model will read it (the preview the views show)."""
        if language not in self._compiled:
            self._compiled[language] = self._compile(language)
        pattern, say = self._compiled[language]
        if pattern is None:
            return text
        pieces = _BRACKETED.split(text)  # odd indices are the bracketed parts
        return "".join(piece if n % 2 else pattern.sub(lambda m: say[m.lastgroup], piece)
                       for n, piece in enumerate(pieces))

    def _compile(self, language: str | None) -> tuple[re.Pattern | None, dict[str, str]]:
        chosen = [e for e in self.entries if e.language is None or e.language == language]
        # Longest first: an alternation takes the first branch that matches.
        chosen.sort(key=lambda e: len(e.word), reverse=True)
        branches, say = [], {}
        for n, entry in enumerate(chosen):
            body = re.escape(entry.word)
            if not _CJK.search(entry.word):
                body = rf"(?<!\w){body}(?!\w)"
            if not entry.case:
                body = f"(?i:{body})"
            branches.append(f"(?P<e{n}>{body})")
            say[f"e{n}"] = entry.say
        return (re.compile("|".join(branches)) if branches else None), say

    @classmethod
    def load(cls, path: Path) -> Lexicon:
        """A dictionary file; one sentence for what is wrong in it."""
        from studio.safe_read import read_json

        path = Path(path)
        data = read_json(path, MAX_FILE_BYTES, "pronunciation dictionary")
        return cls.from_data(data, str(path))

    @classmethod
    def from_data(cls, data, name: str = "") -> Lexicon:
        where = f"the pronunciation dictionary {name}".rstrip()
        if isinstance(data, dict):
            data = [{"word": k, "say": v} for k, v in data.items()]
        if not isinstance(data, list):
            raise UserError(f"The pronunciation dictionary {name} must be a JSON list of "
                            "entries or an object of words.")
        if len(data) > MAX_ENTRIES:
            raise UserError(f"The pronunciation dictionary {name} has {len(data):,} entries; "
                            f"keep it to {MAX_ENTRIES:,}.")
        entries = []
        for n, item in enumerate(data, 1):
            if not isinstance(item, dict) or set(item) - {"word", "say", "language", "case"}:
                raise UserError(f"Entry {n} of {where} must be an object with \"word\" and "
                                "\"say\" (and optionally \"language\" and \"case\").")
            word, say = item.get("word"), item.get("say")
            language, case = item.get("language"), item.get("case", False)
            if not (isinstance(word, str) and word.strip() and isinstance(say, str)):
                raise UserError(f"Entry {n} of {where} needs a \"word\" and a \"say\" as text.")
            if len(word) > MAX_FIELD_CHARS or len(say) > MAX_FIELD_CHARS:
                raise UserError(f"Entry {n} of {where} is longer than {MAX_FIELD_CHARS} "
                                "characters; a dictionary entry is a word or a short phrase.")
            if language is not None and not isinstance(language, str):
                raise UserError(f"The \"language\" of entry {n} of {where} must be text.")
            if not isinstance(case, bool):
                raise UserError(f"The \"case\" of entry {n} of {where} must be true or false.")
            for value in (word, say):
                check_code_points(value, f"entry {n} of the pronunciation dictionary")
            entries.append(Entry(word.strip(), say, language, case))
        return cls(entries)


def load_pronunciations(extra: Path | None = None, root: Path | None = None) -> Lexicon | None:
    """The dictionary a render uses: ``extra`` (a project's or ``--dictionary``), then the
    global one in the data folder (``root``, by default the app's: ``pronunciations.json``),
    if either exists."""
    from studio.paths import data_dir

    lexicon = Lexicon.load(extra) if extra is not None else Lexicon()
    common = (root if root is not None else data_dir()) / GLOBAL_FILE
    if common.is_file():
        lexicon = lexicon + Lexicon.load(common)
    return lexicon or None
