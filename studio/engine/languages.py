"""The languages the model knows, read from ``resources/languages.tsv``.

The model takes a language *id* (``"en"``, ``"yue"``, ``"qxu"``); users may
type either an id or a display name. Resolution follows the reference
implementation: exact id first, then a case-insensitive name, then nothing
(the model's language-agnostic mode) with a warning for the user.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType

_TSV = "languages.tsv"


@dataclass(frozen=True)
class Language:
    id: str
    name: str


@dataclass(frozen=True)
class Languages:
    """An immutable language table; build one with :func:`load_languages`."""

    entries: tuple[Language, ...]
    _by_id: Mapping[str, str] = field(init=False, repr=False, compare=False)
    _by_name: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Frozen dataclass: the lookup maps are derived once, read-only after.
        object.__setattr__(
            self, "_by_id", MappingProxyType({e.id: e.name for e in self.entries})
        )
        object.__setattr__(
            self, "_by_name", MappingProxyType({e.name.lower(): e.id for e in self.entries})
        )

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self._by_id)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries)

    def display_name(self, lang_id: str) -> str | None:
        """The display name of ``lang_id``, or None for an unknown id."""
        return self._by_id.get(lang_id)

    def resolve(self, value: str | None) -> str | None:
        """The language id for an id or name; None for "no language"."""
        return self.resolve_with_warning(value)[0]

    def resolve_with_warning(self, value: str | None) -> tuple[str | None, str | None]:
        """Resolve like :meth:`resolve`, plus a sentence when ``value`` was not understood.

        Ids match exactly (case-sensitive); names match case-insensitively;
        ``None`` or ``"none"`` in any case mean language-agnostic without a warning.
        An unknown value also falls back to language-agnostic mode, but says so.
        """
        if value is None or value.lower() == "none":
            return None, None
        if value in self._by_id:
            return value, None
        code = self._by_name.get(value.lower())
        if code is not None:
            return code, None
        return None, (
            f"Language '{value}' is not recognised, so the text is spoken without a "
            "language hint; pick a language id such as 'en' or a name such as 'English'."
        )

    def search(self, query: str, limit: int | None = None) -> list[Language]:
        """Languages whose id or name contains ``query``, best matches first.

        Ranking for a picker: exact id, exact name, name prefix, then any other
        substring of id or name; ties keep table order. An empty query lists all.
        """
        q = query.strip().lower()
        ranked: list[tuple[int, int, Language]] = []
        for pos, lang in enumerate(self.entries):
            name = lang.name.lower()
            if lang.id == q:
                rank = 0
            elif name == q:
                rank = 1
            elif name.startswith(q):
                rank = 2
            elif q in name or q in lang.id:
                rank = 3
            else:
                continue
            ranked.append((rank, pos, lang))
        ranked.sort(key=lambda r: (r[0], r[1]))
        hits = [r[2] for r in ranked]
        return hits if limit is None else hits[:limit]


def parse_languages(text: str) -> Languages:
    """Parse the TSV format: ``#`` comment lines, then ``id<TAB>name`` rows."""
    entries = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang_id, name = line.split("\t")
        entries.append(Language(lang_id, name))
    return Languages(tuple(entries))


def _read_table() -> str:
    try:
        return resources.files("studio.resources").joinpath(_TSV).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        # Source checkout: the top-level resources/ folder is only mapped onto
        # studio.resources when the package is installed.
        path = Path(__file__).resolve().parents[2] / "resources" / _TSV
        return path.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def load_languages() -> Languages:
    """The shipped language table (read once)."""
    return parse_languages(_read_table())


def resolve_language(value: str | None) -> tuple[str | None, str | None]:
    """``(language id or None, warning sentence or None)`` for a user's value."""
    return load_languages().resolve_with_warning(value)
