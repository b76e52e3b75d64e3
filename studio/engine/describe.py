"""A free-text voice description read into an instruct ("an old man with a deep
voice" -> "male, elderly, low pitch").

The mapper is plain data (phrases -> instruct items) and a greedy longest-phrase
scan; it never guesses. Every front end reads descriptions here: the Design view
highlights what it did not understand, while ``synth --describe`` and ``serve``
refuse such a description with :attr:`DescriptionMatch.problem`, one sentence.
Qt-free, beside the instruct rules it builds on (:mod:`studio.engine.instruct`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from studio.engine.instruct import CATEGORIES, InstructItem, normalize_instruct
from studio.errors import UserError

CATEGORY_KEYS = tuple(c.key for c in CATEGORIES)

# English names of the dialects (the model only has Chinese words for them).
DIALECT_NAMES: dict[str, str] = {
    "河南话": "Henan", "陕西话": "Shaanxi", "四川话": "Sichuan", "贵州话": "Guizhou",
    "云南话": "Yunnan", "桂林话": "Guilin", "济南话": "Jinan", "石家庄话": "Shijiazhuang",
    "甘肃话": "Gansu", "宁夏话": "Ningxia", "青岛话": "Qingdao", "东北话": "Northeastern",
}
EXAMPLE = "'a young woman, low pitch, british accent'"
MAX_LISTED = 3  # unknown words a refusal quotes
MAX_QUOTED = 24  # characters of each


def item_key(item: InstructItem) -> str:
    """The identity of an item: its English word, or its Chinese one where it has none."""
    return item.en or item.zh


def build_instruct(selection: dict[str, str | None]) -> str | None:
    """The raw instruct for a selection, in the engine's category order (not normalised)."""
    words = [selection[key] for key in CATEGORY_KEYS if selection.get(key)]
    return ", ".join(words) if words else None


def selection_from_instruct(instruct: str | None) -> dict[str, str | None] | None:
    """The selection (category -> item key) an instruct stands for; None if a word in
    it is no attribute the engine knows."""
    selection: dict[str, str | None] = dict.fromkeys(CATEGORY_KEYS)
    for word in re.split(r"\s*[,，]\s*", (instruct or "").strip()):
        if not word:
            continue
        word = word.lower()
        found = next(((c.key, item_key(i)) for c in CATEGORIES for i in c.items
                      if word in (i.en, i.zh)), None)
        if found is None:
            return None
        selection[found[0]] = found[1]
    return selection


def accepted(selection: dict[str, str | None]) -> bool:
    """Whether the engine accepts this selection (in either output language)."""
    try:
        normalize_instruct(build_instruct(selection), use_zh=False)
    except UserError:
        return False
    return True


def _phrases() -> dict[tuple[str, ...], tuple[str, ...]]:
    """Phrase (lower-case words) -> item keys. Built from the engine's own words plus
    synonyms; every key here is checked against CATEGORIES by the tests."""
    synonyms: dict[str, tuple[str, ...]] = {
        "male": ("male", "man", "men", "boy", "guy", "gentleman", "masculine", "he", "him",
                 "his", "father", "dad", "husband", "son", "brother", "uncle", "king"),
        "female": ("female", "woman", "women", "girl", "lady", "feminine", "she", "her",
                   "mother", "mom", "mum", "wife", "daughter", "sister", "aunt", "queen"),
        "child": ("child", "children", "kid", "kids", "toddler", "childlike", "young child"),
        "teenager": ("teenager", "teen", "teens", "teenage", "adolescent"),
        "young adult": ("young adult", "young", "youthful", "twenties"),
        "middle-aged": ("middle-aged", "middle aged", "mature", "midlife", "forties", "fifties"),
        "elderly": ("elderly", "old", "older", "senior", "aged", "elder", "ageing", "aging"),
        "very low pitch": ("very low pitch", "very low", "very deep", "extremely low",
                           "extremely deep", "bass", "very low-pitched"),
        "low pitch": ("low pitch", "low", "deep", "low-pitched", "baritone"),
        "moderate pitch": ("moderate pitch", "moderate", "medium", "medium-pitched",
                           "average pitch", "normal pitch", "mid-pitched"),
        "high pitch": ("high pitch", "high", "high-pitched", "shrill"),
        "very high pitch": ("very high pitch", "very high", "extremely high", "squeaky",
                            "very high-pitched"),
        "whisper": ("whisper", "whispers", "whispering", "whispered", "whispery", "hushed"),
    }
    # Words that also name a language ("english", "chinese") count only before "accent".
    accents = {
        "american": ("american", "america", "usa"),
        "british": ("british", "uk", "england", "london", "english accent"),
        "australian": ("australian", "australia", "aussie"),
        "chinese": ("china", "chinese accent"),
        "canadian": ("canadian", "canada"),
        "indian": ("indian", "india"),
        "korean": ("korean", "korea"),
        "portuguese": ("portuguese", "portugal"),
        "russian": ("russian", "russia"),
        "japanese": ("japanese", "japan"),
    }
    dialects = {
        "河南话": ("henan",), "陕西话": ("shaanxi", "shaanxinese"), "四川话": ("sichuan", "sichuanese"),
        "贵州话": ("guizhou",), "云南话": ("yunnan",), "桂林话": ("guilin",), "济南话": ("jinan",),
        "石家庄话": ("shijiazhuang",), "甘肃话": ("gansu",), "宁夏话": ("ningxia",),
        "青岛话": ("qingdao",), "东北话": ("northeastern", "northeast", "dongbei"),
    }
    table: dict[tuple[str, ...], tuple[str, ...]] = {}
    for key, words in synonyms.items():
        for phrase in words:
            table[tuple(phrase.split())] = (key,)
    for name, words in accents.items():
        for word in words:
            table[tuple(word.split())] = (f"{name} accent",)
            if " " not in word:
                table[(word, "accent")] = (f"{name} accent",)
                table[(word, "accented")] = (f"{name} accent",)
    for zh, words in dialects.items():
        for word in words:
            table[(word,)] = (zh,)
            table[(word, "dialect")] = (zh,)
    # Words that imply two attributes at once.
    for word, keys in {
        "grandpa": ("male", "elderly"), "grandfather": ("male", "elderly"),
        "grandma": ("female", "elderly"), "grandmother": ("female", "elderly"),
        "granny": ("female", "elderly"), "schoolboy": ("male", "child"),
        "schoolgirl": ("female", "child"),
        "little boy": ("male", "child"), "little girl": ("female", "child"),
    }.items():
        table[tuple(word.split())] = keys
    # A young boy or girl is a child, not a "young adult".
    table[("young", "boy")] = ("male", "child")
    table[("young", "girl")] = ("female", "child")
    return table


def _zh_phrases() -> dict[str, tuple[str, ...]]:
    """Chinese phrases -> item keys: the model's words, dialect names, common synonyms."""
    table = {item.zh: (item_key(item),) for c in CATEGORIES for item in c.items if item.zh}
    for zh in DIALECT_NAMES:
        table[zh.removesuffix("话")] = (zh,)
        table[zh.removesuffix("话") + "方言"] = (zh,)
    table.update({
        "男性": ("male",), "男人": ("male",), "男声": ("male",), "男生": ("male",),
        "女性": ("female",), "女人": ("female",), "女声": ("female",), "女生": ("female",),
        "老人": ("elderly",), "老": ("elderly",), "年迈": ("elderly",), "年轻": ("young adult",),
        "小孩": ("child",), "孩子": ("child",), "儿童": ("child",),
        "小男孩": ("male", "child"), "小女孩": ("female", "child"), "少女": ("female", "teenager"),
        "大叔": ("male", "middle-aged"), "爷爷": ("male", "elderly"), "老爷爷": ("male", "elderly"),
        "奶奶": ("female", "elderly"), "老奶奶": ("female", "elderly"),
        "低沉": ("low pitch",), "低音": ("low pitch",), "高音": ("high pitch",),
        "悄悄话": ("whisper",), "轻声": ("whisper",),
    })
    return table


PHRASES = _phrases()
ZH_PHRASES = _zh_phrases()
_LONGEST = max(len(p) for p in PHRASES)
_ZH_LONGEST = max(len(p) for p in ZH_PHRASES)
# Glue words that carry no attribute: skipped, never flagged.
STOPWORDS = frozenset(
    "a an the with and or of in on to from at for by as is are who that has having speaking speaks "
    "speaker talking "
    "voice voices voiced sounding sounds sound person someone tone very quite really rather "
    "like kind sort".split()
)
ZH_STOPWORDS = ("一个", "一位", "的", "声音", "说话", "带", "有", "和", "口音", "很", "非常", "有点", "一点",
                "稍微", "比较", "，", "、")
_TOKEN = re.compile(r"[a-z]+(?:[-'][a-z]+)*|[\u4e00-\u9fff]+|\d+", re.IGNORECASE)
# Single words the parser knows, for suggestions.
_WORDS = sorted({p[0] for p in PHRASES if len(p) == 1} - STOPWORDS)
_KEY_CATEGORY = {item_key(i): c.key for c in CATEGORIES for i in c.items}


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str
    kind: str  # "known", "unknown", "conflict" or "ignored"
    keys: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class DescriptionMatch:
    """What a description says: one item per category, and how each word was read."""

    values: dict[str, str] = field(default_factory=dict)  # category -> item key
    spans: tuple[Span, ...] = ()

    @property
    def unknown(self) -> list[str]:
        return [s.text for s in self.spans if s.kind == "unknown"]

    @property
    def conflicts(self) -> list[Span]:
        return [s for s in self.spans if s.kind == "conflict"]

    @property
    def instruct(self) -> str | None:
        """The raw instruct of what was understood (None if nothing was)."""
        return build_instruct(self.values)

    @property
    def problem(self) -> str | None:
        """Why this description cannot be used as it stands, in one sentence; None
        when every word was understood and they agree."""
        unknown = list(dict.fromkeys(self.unknown))
        if unknown:
            listed = ", ".join(_with_suggestion(w[:MAX_QUOTED]) for w in unknown[:MAX_LISTED])
            if len(unknown) > MAX_LISTED:  # a pasted paragraph: the first few say enough
                listed += f" and {len(unknown) - MAX_LISTED} more"
            what = "is no voice attribute" if len(unknown) == 1 else "are no voice attributes"
            return (f"In the voice description, {listed} {what} the model knows; describe "
                    f"gender, age, pitch, whispering, an accent or a Chinese dialect, e.g. "
                    f"{EXAMPLE}.")
        if self.conflicts:
            first = self.conflicts[0]
            note = first.note.rstrip(".")
            words = " ".join(first.text.split())  # a phrase may span a line break
            return (f"The voice description contradicts itself at '{words}': "
                    f"{note[0].lower()}{note[1:]}.")
        if not self.values:
            return (f"The voice description names no voice attribute; describe gender, age, "
                    f"pitch, whispering, an accent or a Chinese dialect, e.g. {EXAMPLE}.")
        return None


def _with_suggestion(word: str) -> str:
    """'femal' (did you mean 'female'?): typos are the commonest unknown words."""
    close = difflib.get_close_matches(word.lower(), _WORDS, n=1, cutoff=0.75)
    return f"'{word}' (did you mean '{close[0]}'?)" if close else f"'{word}'"


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, word) with CJK runs cut into known phrases, stop words and leftovers."""
    out: list[tuple[int, int, str]] = []
    for m in _TOKEN.finditer(text):
        word = m.group()
        if not ("\u4e00" <= word[0] <= "\u9fff"):
            out.append((m.start(), m.end(), word.lower()))
            continue
        i, pending = 0, m.start()  # leftovers between known pieces stay one token
        while i < len(word):
            for n in range(min(_ZH_LONGEST, len(word) - i), 0, -1):
                piece = word[i:i + n]
                if piece in ZH_PHRASES or piece in ZH_STOPWORDS:
                    if pending < m.start() + i:
                        out.append((pending, m.start() + i, text[pending:m.start() + i]))
                    out.append((m.start() + i, m.start() + i + n, piece))
                    i += n
                    pending = m.start() + i
                    break
            else:
                i += 1
        if pending < m.end():
            out.append((pending, m.end(), text[pending:m.end()]))
    return out


def map_description(text: str) -> DescriptionMatch:
    """Map a free-text description onto design attributes.

    Phrases are matched longest first ("very deep" before "deep"); the first
    phrase to set a category wins, and a later one that disagrees, or that the
    engine would refuse alongside it (an accent with a dialect), is a conflict.
    """
    tokens = _tokens(text)
    values: dict[str, str] = {}
    spans: list[Span] = []
    i = 0
    while i < len(tokens):
        start, end, word = tokens[i]
        keys, width = ZH_PHRASES.get(word), 1
        if keys is None:
            for n in range(min(_LONGEST, len(tokens) - i), 0, -1):
                phrase = tuple(t[2] for t in tokens[i:i + n])
                if phrase in PHRASES:
                    keys, width = PHRASES[phrase], n
                    break
        end = tokens[i + width - 1][1]
        raw = text[start:end]
        if keys is None:
            kind = "ignored" if word in STOPWORDS or word in ZH_STOPWORDS else "unknown"
            spans.append(Span(start, end, raw, kind))
        else:
            spans.append(_settle(values, raw, start, end, keys))
        i += width
    return DescriptionMatch(values, tuple(spans))


def _settle(values: dict[str, str], raw: str, start: int, end: int,
            keys: tuple[str, ...]) -> Span:
    """Add a phrase's items to ``values`` unless they clash with what is there."""
    candidate = dict(values)
    for key in keys:
        category = _KEY_CATEGORY[key]
        if candidate.get(category, key) != key:
            return Span(start, end, raw, "conflict", keys,
                        f"The {category} is already described; keep one")
        candidate[category] = key
    try:
        normalize_instruct(build_instruct(candidate), use_zh=False)
    except UserError as exc:
        return Span(start, end, raw, "conflict", keys, str(exc))
    values.update(candidate)
    return Span(start, end, raw, "known", keys)


def describe(text: str | None) -> str | None:
    """The instruct a description stands for (raw, in category order; the engine
    normalises it for the text), None for an empty description.

    Raises :class:`UserError` with :attr:`DescriptionMatch.problem` when a word is
    not understood, two words contradict each other or nothing names an attribute.
    """
    if text is None or not text.strip():
        return None
    match = map_description(text)
    if match.problem:
        raise UserError(match.problem)
    return match.instruct


def instruct_or_description(text: str | None) -> str | None:
    """An instruct exactly as written when the engine accepts it (so its order and
    language stay the user's), else the instruct read from it as a description."""
    if text is None or not text.strip():
        return None
    try:
        normalize_instruct(text, use_zh=False)
    except UserError:
        return describe(text)
    return text
