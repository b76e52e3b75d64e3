"""The voice-design vocabulary and the normaliser for instruct strings.

An instruct is a comma-separated list of attributes ("female, low pitch,
british accent" or "女，低音调，四川话"). The model was trained on exactly these
words, so anything else is rejected with a suggestion rather than passed on.
Normalisation reproduces the reference implementation's output string.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from studio.errors import UserError

_CJK = re.compile(r"[\u4e00-\u9fff]")
# Users mix ASCII and full-width commas; both separate items.
_SPLIT = re.compile(r"\s*[,，]\s*")
_EN_SEP = ", "
_ZH_SEP = "，"


@dataclass(frozen=True)
class InstructItem:
    """One attribute; ``en``/``zh`` are the model's words, None where it has none."""

    en: str | None
    zh: str | None


@dataclass(frozen=True)
class Category:
    """Mutually exclusive attributes: an instruct holds at most one of them."""

    key: str
    en: str
    zh: str
    items: tuple[InstructItem, ...]


def _pairs(*pairs: tuple[str, str]) -> tuple[InstructItem, ...]:
    return tuple(InstructItem(en, zh) for en, zh in pairs)


# Order matters: the reference reports conflicts in this category order.
CATEGORIES: tuple[Category, ...] = (
    Category("gender", "Gender", "性别", _pairs(("male", "男"), ("female", "女"))),
    Category("age", "Age", "年龄", _pairs(
        ("child", "儿童"), ("teenager", "少年"), ("young adult", "青年"),
        ("middle-aged", "中年"), ("elderly", "老年"),
    )),
    Category("pitch", "Pitch", "音调", _pairs(
        ("very low pitch", "极低音调"), ("low pitch", "低音调"), ("moderate pitch", "中音调"),
        ("high pitch", "高音调"), ("very high pitch", "极高音调"),
    )),
    Category("style", "Style", "风格", _pairs(("whisper", "耳语"))),
    # Accents exist only in English and make the instruct English.
    Category("accent", "Accent", "口音", tuple(InstructItem(f"{a} accent", None) for a in (
        "american", "british", "australian", "chinese", "canadian",
        "indian", "korean", "portuguese", "russian", "japanese",
    ))),
    # Dialects exist only in Chinese and make the instruct Chinese.
    Category("dialect", "Dialect", "方言", tuple(InstructItem(None, f"{d}话") for d in (
        "河南", "陕西", "四川", "贵州", "云南", "桂林",
        "济南", "石家庄", "甘肃", "宁夏", "青岛", "东北",
    ))),
)

_EN_TO_ZH = {i.en: i.zh for c in CATEGORIES for i in c.items if i.en and i.zh}
_ZH_TO_EN = {zh: en for en, zh in _EN_TO_ZH.items()}
_CATEGORY_OF = {w: c for c in CATEGORIES for i in c.items for w in (i.en, i.zh) if w}
_VALID = frozenset(_CATEGORY_OF)
_ACCENT = next(c for c in CATEGORIES if c.key == "accent")
_DIALECT = next(c for c in CATEGORIES if c.key == "dialect")


def text_wants_chinese(text: str | None) -> bool:
    """Whether an instruct for ``text`` should be written in Chinese (any CJK ideograph)."""
    return bool(text and _CJK.search(text))


def normalize_instruct(instruct: str | None, use_zh: bool) -> str | None:
    """The canonical instruct string the model expects, or None for no instruct.

    Items are lower-cased and kept in the user's order, then written all in one
    language: Chinese if ``use_zh`` (see :func:`text_wants_chinese`), English
    otherwise, except that an accent forces English and a dialect forces Chinese.
    Chinese output is joined with "，", English with ", ".

    Raises :class:`UserError` for an unknown item (with the closest valid item
    as a suggestion), an accent together with a dialect, or two items of one
    category (including the same item twice, in either language).
    """
    if instruct is None or not instruct.strip():
        return None
    raw = [r.strip() for r in _SPLIT.split(instruct.strip()) if r]
    words = [r.lower() for r in raw]

    bad = [(r, w) for r, w in zip(raw, words) if w not in _VALID]
    if bad:
        raise UserError(_unknown_message(bad))

    accent = next((r for r, w in zip(raw, words) if _CATEGORY_OF[w] is _ACCENT), None)
    dialect = next((r for r, w in zip(raw, words) if _CATEGORY_OF[w] is _DIALECT), None)
    if accent and dialect:
        raise UserError(
            f"The accent '{accent}' cannot be combined with the dialect '{dialect}'; "
            "use an accent for English speech or a dialect for Chinese speech, not both."
        )
    has_accent, has_dialect = accent is not None, dialect is not None
    if has_dialect or has_accent:
        use_zh = has_dialect
    table = _EN_TO_ZH if use_zh else _ZH_TO_EN
    words = [table.get(w, w) for w in words]

    for cat in CATEGORIES:
        clash = [r for r, w in zip(raw, words) if _CATEGORY_OF[w] is cat]
        if len(clash) > 1:
            listed = " and ".join(f"'{r}'" for r in clash)
            raise UserError(
                f"The voice design sets the {cat.key} more than once ({listed}); keep one."
            )

    sep = _ZH_SEP if any(_CJK.search(w) for w in words) else _EN_SEP
    return sep.join(words)


def _unknown_message(bad: list[tuple[str, str]]) -> str:
    parts = []
    for raw, word in bad:
        # Same matcher and threshold as the reference, so suggestions agree.
        close = difflib.get_close_matches(word, _VALID, n=1, cutoff=0.6)
        parts.append(f"'{raw}' (did you mean '{close[0]}'?)" if close else f"'{raw}'")
    what = "item" if len(bad) == 1 else "items"
    return (
        f"Unknown voice-design {what} {', '.join(parts)}; use attributes such as "
        "'female, low pitch, british accent' or '女，低音调，四川话'."
    )
