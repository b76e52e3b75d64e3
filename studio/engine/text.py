"""Text preparation: joining prompt and target text, tokenising, chunking.

Behaviour follows the reference implementation (omnivoice 0.2.1) so the model
sees the inputs it was trained on, with two deliberate fixes, each noted where
it applies: newlines become spaces instead of vanishing (:func:`combine_text`),
and numbers such as "3.5" or "21:30" are not cut in two (:func:`chunk_text`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_CJK = r"[\u4e00-\u9fff]"
_HAS_CJK = re.compile(_CJK)
_NEWLINES = re.compile(r"[\r\n]+")
_BLANKS = re.compile(r"[ \t]+")
# Chinese is written without spaces; any whitespace touching an ideograph goes.
_SPACE_BY_CJK = re.compile(rf"(?<={_CJK})\s+|\s+(?={_CJK})")

# Non-verbal sounds the model can produce, written inline as e.g. "[laughter]".
NONVERBAL_TAGS: tuple[str, ...] = (
    "[laughter]", "[sigh]", "[confirmation-en]", "[question-en]", "[question-ah]",
    "[question-oh]", "[question-ei]", "[question-yi]", "[surprise-ah]",
    "[surprise-oh]", "[surprise-wa]", "[surprise-yo]", "[dissatisfaction-hnn]",
)
_TAG = re.compile("|".join(re.escape(t) for t in NONVERBAL_TAGS))

# Characters after which a sentence may end, and closing marks that stay
# attached to the sentence they close.
_SPLIT_AT = frozenset(".,;:!?。，；：！？")
_CLOSERS = frozenset("\"'“”‘’）]》>」】")
# A text ending in one of these already has its final pause.
_FINAL = frozenset(";:,.!?…)]}\"'“”‘’；：，。！？、）】")
# Separators that, between two digits, are part of a number.
_NUMBER_SEPARATORS = frozenset(".,:")
# Words whose full stop does not end a sentence.
ABBREVIATIONS: frozenset[str] = frozenset({
    "Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Sr.", "Jr.", "Rev.", "Fr.", "Hon.",
    "Pres.", "Gov.", "Capt.", "Gen.", "Sen.", "Rep.", "Col.", "Maj.", "Lt.",
    "Cmdr.", "Sgt.", "Cpl.", "Co.", "Corp.", "Inc.", "Ltd.", "Est.", "Dept.",
    "St.", "Ave.", "Blvd.", "Rd.", "Mt.", "Ft.", "No.", "Jan.", "Feb.", "Mar.",
    "Apr.", "Aug.", "Sep.", "Sept.", "Oct.", "Nov.", "Dec.", "i.e.", "e.g.",
    "vs.", "Vs.", "Etc.", "approx.", "fig.", "def.",
})


# Our extension (the model has no pause token): "[pause 500ms]" or "[pause 1.5s]" splits
# the text there and puts exactly that much silence between the parts.
_PAUSE = re.compile(r"\[pause\s+(\d+(?:\.\d+)?)\s*(ms|s)\s*\]", re.IGNORECASE)
_PAUSE_LIKE = re.compile(r"\[\s*pause\b[^\]]*\]?", re.IGNORECASE)
MAX_PAUSE_S = 60.0
PAUSE_TAGS: tuple[str, ...] = ("[pause 500ms]", "[pause 1s]", "[pause 2s]")  # the menu's


def split_pauses(text: str) -> list[tuple[str, float]]:
    """``text`` cut at its pause tags: ``(part, seconds of silence after it)`` in order.
    A text opening with a pause starts with an empty part; pauses in a row add up.
    A tag that is not ``[pause N ms]`` or ``[pause N s]`` is one sentence."""
    from studio.errors import UserError

    parts: list[tuple[str, float]] = []
    pos, spoken, pause = 0, "", 0.0
    for m in _PAUSE_LIKE.finditer(text):
        tag = _PAUSE.fullmatch(m.group())
        if tag is None:
            raise UserError(f"The pause tag {m.group()[:40]!r} is not understood; write it as "
                            "[pause 500ms] or [pause 1.5s].")
        piece = text[pos:m.start()]
        if piece.strip() and (spoken or pause):
            parts.append((spoken, pause))
            spoken, pause = "", 0.0
        spoken += piece
        seconds = float(tag.group(1)) / (1000.0 if tag.group(2).lower() == "ms" else 1.0)
        pause += seconds
        if pause > MAX_PAUSE_S:
            raise UserError(f"A pause of {pause:g} s is longer than {MAX_PAUSE_S:g} s; use "
                            "shorter pauses (split the text instead).")
        pos = m.end()
    tail = text[pos:]
    if tail.strip() and (spoken.strip() or pause):
        parts.append((spoken, pause))
        spoken, pause = "", 0.0
    parts.append((spoken + tail, pause))
    return [(part.strip(), seconds) for part, seconds in parts]


def strip_pauses(text: str) -> str:
    """The words alone: pause tags replaced by a space."""
    return _PAUSE_LIKE.sub(" ", text)


def check_code_points(text: str, what: str) -> None:
    """Refuse text that is not valid Unicode (lone surrogates: undecodable bytes from a
    terminal or a file), which the tokenizer and every UTF-8 writer would choke on."""
    bad = next((i for i, ch in enumerate(text) if 0xD800 <= ord(ch) <= 0xDFFF), None)
    if bad is not None:
        from studio.errors import UserError

        raise UserError(f"The {what} holds bytes that are not valid text (at character "
                        f"{bad + 1}); save or paste it again as UTF-8.")


def is_blank(text: str) -> bool:
    """Nothing to say: only whitespace and invisible characters (zero-width spaces,
    joiners, direction marks: Unicode's format characters)."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text)


def combine_text(text: str, ref_text: str | None = None) -> str:
    """The text the model reads: reference transcript (if any), a space, target text.

    Chinese parentheses become ASCII ones, runs of spaces/tabs collapse to one
    space, and whitespace next to a CJK ideograph is removed.

    Deviation from the reference: it deletes line breaks, gluing "Hello\\nworld"
    into "Helloworld". Here each run of CR/LF becomes a space first, so lines
    stay separate words; next to an ideograph that space is removed as usual,
    so Chinese text with line breaks comes out exactly as in the reference.
    """
    full = f"{ref_text.strip()} {text.strip()}" if ref_text else text.strip()
    full = _NEWLINES.sub(" ", full)
    full = full.replace("\uff08", "(").replace("\uff09", ")")
    full = _BLANKS.sub(" ", full)
    return _SPACE_BY_CJK.sub("", full)


def tokenize_text(text: str, tokenizer: Any) -> list[int]:
    """Token ids for ``text``, with every non-verbal tag tokenised on its own.

    A tag's ids must not depend on its neighbours (a byte-level BPE would
    otherwise merge "[" with the previous character), so the text is cut at
    the tags and each piece is tokenised without special tokens. If nothing
    yields tokens (e.g. empty text) the whole text is tokenised normally,
    special tokens included, as the reference does.
    """
    ids: list[int] = []
    pos = 0
    for m in _TAG.finditer(text):
        for piece in (text[pos:m.start()], m.group()):
            if piece:
                ids.extend(tokenizer(piece, add_special_tokens=False).input_ids)
        pos = m.end()
    if pos < len(text):
        ids.extend(tokenizer(text[pos:], add_special_tokens=False).input_ids)
    if not ids:
        return list(tokenizer(text).input_ids)
    return ids


def add_punctuation(text: str) -> str:
    """Strip ``text`` and end it with "。" (if it has CJK) or "." unless it already ends in one."""
    text = text.strip()
    if text and text[-1] not in _FINAL:
        text += "。" if _HAS_CJK.search(text) else "."
    return text


def chunk_text(text: str, chunk_len: int, min_chunk_len: int | None = None) -> list[str]:
    """Split ``text`` at sentence punctuation into chunks of about ``chunk_len`` characters.

    Sentences are packed greedily while the chunk stays within ``chunk_len``
    (a longer single sentence becomes its own chunk). With ``min_chunk_len``,
    a chunk shorter than that joins the previous one (the first joins the
    second). Chunks are stripped; empty ones are dropped.

    Deviation from the reference: it ends a sentence at any ".", "," or ":",
    splitting "3.5", "21:30" or "1,000" across chunks. Here those characters
    never end a sentence when they stand between two digits.
    """
    sentences = _split_sentences(text)
    chunks: list[str] = []
    current = ""
    for sentence in sentences:
        if len(current) + len(sentence) <= chunk_len:
            current += sentence
        else:
            if current:
                chunks.append(current)
            current = sentence
    if current:
        chunks.append(current)
    if min_chunk_len is not None:
        chunks = _absorb_short(chunks, min_chunk_len)
    return [c.strip() for c in chunks if c.strip()]


def quick_start_chunks(text: str, first_len: int, chunk_len: int,
                       min_chunk_len: int | None = None) -> list[str]:
    """Split ``text`` so its audio can start early: a first chunk of at most ``first_len``
    characters (the first sentence, or the first clauses of a long one), then each
    chunk at most twice the limit of the one before, up to ``chunk_len``.

    Pieces are the clauses :func:`chunk_text` packs (a sentence splits at commas and
    colons too), packed greedily; a single piece over the limit stays whole. A text
    within ``first_len`` is one chunk, exactly as the reference would render it.
    """
    chunks: list[str] = []
    current = ""
    limit = max(1, min(first_len, chunk_len))
    for piece in _split_sentences(text):
        if current and len(current) + len(piece) > limit:
            chunks.append(current)
            current = piece
            limit = min(limit * 2, chunk_len)
        else:
            current += piece
    if current:
        chunks.append(current)
    if min_chunk_len is not None:
        chunks = _absorb_short(chunks, min_chunk_len)
    return [c.strip() for c in chunks if c.strip()]


def _split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    current: list[str] = []
    for i, ch in enumerate(text):
        if not current and sentences and (ch in _SPLIT_AT or ch in _CLOSERS):
            # Punctuation right after a break belongs to the sentence it closes.
            sentences[-1] += ch
            continue
        current.append(ch)
        if ch in _SPLIT_AT and not _is_abbreviation(ch, current) and not _in_number(text, i):
            sentences.append("".join(current))
            current = []
    if current:
        sentences.append("".join(current))
    return sentences


def _is_abbreviation(ch: str, current: list[str]) -> bool:
    if ch != ".":
        return False
    words = "".join(current).split()
    return bool(words) and words[-1] in ABBREVIATIONS


def _in_number(text: str, i: int) -> bool:
    return (
        text[i] in _NUMBER_SEPARATORS
        and 0 < i < len(text) - 1
        and text[i - 1].isdecimal()
        and text[i + 1].isdecimal()
    )


def _absorb_short(chunks: list[str], min_len: int) -> list[str]:
    # Mirrors the reference: a short first chunk always absorbs the second;
    # after that, a short chunk joins the one before it.
    first_short = bool(chunks) and len(chunks[0]) < min_len
    out: list[str] = []
    for i, chunk in enumerate(chunks):
        if (i == 1 and first_short) or (out and len(chunk) < min_len):
            out[-1] += chunk
        else:
            out.append(chunk)
    return out
