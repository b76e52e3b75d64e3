"""The line under Design's description, in words: what was understood, what was not,
what conflicts, which pick replaces the words, and which picks are kept beside them."""

from __future__ import annotations

from html import escape

from studio.engine.describe import CATEGORY_KEYS, DIALECT_NAMES, DescriptionMatch, item_key
from studio.engine.instruct import CATEGORIES

UNKNOWN_HEX = "#fdecc8"  # a word not understood, in the box and in this line
_BY_KEY = {c.key: c for c in CATEGORIES}


def shown_item(category: str, key: str) -> str:
    """An attribute's words as the feedback shows them (escaped)."""
    item = next(i for i in _BY_KEY[category].items if item_key(i) == key)
    if item.en:
        return escape(item.en)
    return escape(f"{DIALECT_NAMES.get(item.zh, item.zh)} ({item.zh})")


def feedback_html(match: DescriptionMatch, selection: dict[str, str | None]) -> str:
    parts = []
    understood, replaced = [], []
    for category in CATEGORY_KEYS:
        if category in match.values:
            words = shown_item(category, match.values[category])
            if selection[category] == match.values[category]:
                understood.append(words)
            else:  # a pick made after the words: the instruct says the pick
                picked = selection[category]
                replaced.append(f"<b>{words}</b> → <b>"
                                f"{shown_item(category, picked) if picked else '—'}</b>")
    if understood:
        parts.append("<span style='color:#2e7d32'>✓</span> Understood: <b>"
                     + "</b> · <b>".join(understood) + "</b>")
    if match.unknown:
        words = " ".join(f"<span style='background:{UNKNOWN_HEX};color:#8a1c1c'>&nbsp;"
                         f"{escape(w)}&nbsp;</span>" for w in dict.fromkeys(match.unknown))
        parts.append(f"Not understood: {words}")
    if match.conflicts:
        words = ", ".join(f"'{escape(s.text)}'" for s in match.conflicts)
        parts.append(f"<span style='color:#c62828'>Ignored as conflicting: {words}</span>")
    if replaced:  # a review found "Understood: male" shown under a Female pick
        parts.append(("Your picks replace: " if len(replaced) > 1 else "Your pick replaces: ")
                     + " · ".join(replaced))
    return "&nbsp;&nbsp;&nbsp;".join(parts)


def kept_picks(description: str, match: DescriptionMatch,
               selection: dict[str, str | None]) -> list[str]:
    """The pickers' values that a description in the box did not set: they stay in the
    instruct, so the feedback names them."""
    if not description.strip():
        return []
    return [shown_item(category, value) for category, value in selection.items()
            if value is not None and category not in match.values]


def kept_html(kept: list[str]) -> str:
    return ("Also kept from your picks: <b>" + "</b> · <b>".join(kept)
            + "</b> (set a picker to — to drop it)") if kept else ""
