"""The rules for a saved voice's fields, and the size limits, in one place.

Each ``clean_*`` function returns the value as stored or raises
:class:`InvalidField`, which names the problem and the fix separately so that
creating a voice and importing a bundle can each phrase one sentence of their own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime, timezone

from studio.engine.options import MAX_SEED

MAX_NAME_CHARS = 100
MAX_TRANSCRIPT_CHARS = 10_000
MAX_INSTRUCT_CHARS = 1_000
MAX_NOTES_CHARS = 10_000
MAX_TAGS = 32
MAX_TAG_CHARS = 50
MAX_LANGUAGE_CHARS = 64
MAX_CACHE_KEY_CHARS = 256

MB = 1024 * 1024
MAX_CLIP_BYTES = 50 * MB  # a reference clip is seconds long; 50 MB is minutes of WAV

_CLIP_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")
_VOICE_ID = re.compile(r"[0-9a-f]{32}")


class InvalidField(ValueError):
    """A field value that breaks a rule: ``problem`` and ``fix`` are sentence parts."""

    def __init__(self, problem: str, fix: str):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix

    def sentence(self) -> str:
        return f"{self.problem[0].upper()}{self.problem[1:]}; {self.fix}."


def _check_text(value: str, what: str) -> None:
    """Lone surrogates (undecodable bytes) cannot be stored as UTF-8: refuse them here."""
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise InvalidField(f"the {what} holds bytes that are not valid text",
                           "type or paste it again")


# Zero-width (non-)joiners are format characters that spell words (Persian, Indic
# scripts, emoji sequences); every other one only hides or reorders what is shown.
_JOINERS = ("\u200c", "\u200d")


def one_line(text: str) -> str:
    """``text`` as it may reach a terminal, a file name prompt or a list: control
    characters (NUL, escape, DEL, C1) become spaces, invisible format characters
    (bidi overrides, zero-width spaces, BOMs) go, and whitespace runs (tabs, line
    breaks) become one space, stripped. The one cleaning of every name, tag and
    language, wherever it is set or looked up."""
    kept = []
    for ch in text:
        kind = unicodedata.category(ch)
        if kind == "Cc":
            kept.append(" ")
        elif kind != "Cf" or ch in _JOINERS:
            kept.append(ch)
    return " ".join("".join(kept).split())


def clean_name(name: object) -> str:
    if not isinstance(name, str):
        raise InvalidField("the voice name is not text", "type a name for the voice")
    _check_text(name, "voice name")
    name = one_line(name)
    if not name:
        raise InvalidField("the voice name is empty", "type a name for the voice")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidField(
            f"the voice name is {len(name)} characters long, more than the {MAX_NAME_CHARS} allowed",
            "shorten it",
        )
    return name


def name_key(name: str) -> str:
    """What makes two names the same: compatibility forms and case folded away."""
    return unicodedata.normalize("NFKC", name).casefold()


def clean_transcript(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidField("the transcript is not text", "type the words spoken in the clip")
    _check_text(text, "transcript")
    if len(text) > MAX_TRANSCRIPT_CHARS:
        raise InvalidField(
            f"the transcript is longer than {MAX_TRANSCRIPT_CHARS} characters",
            "use a shorter reference clip",
        )
    return text


def _optional_text(value: object, what: str, limit: int, fix: str,
                   single_line: bool = False) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidField(f"the {what} is not text", fix)
    _check_text(value, what)
    value = one_line(value) if single_line else value.strip()
    if len(value) > limit:
        raise InvalidField(f"the {what} is longer than {limit} characters", fix)
    return value or None


def clean_notes(value: object) -> str:
    """A voice's notes: free text, stripped (None clears them)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidField("the voice notes are not text", "type the notes again")
    _check_text(value, "voice notes")
    value = value.strip()
    if len(value) > MAX_NOTES_CHARS:
        raise InvalidField(f"the voice notes are longer than {MAX_NOTES_CHARS:,} characters",
                           "shorten them")
    return value


def clean_instruct(value: object) -> str | None:
    return _optional_text(value, "voice design", MAX_INSTRUCT_CHARS, "shorten the voice design")


def clean_language(value: object) -> str | None:
    return _optional_text(value, "language", MAX_LANGUAGE_CHARS, "pick a language from the list",
                          single_line=True)


def clean_cache_key(value: object) -> str | None:
    return _optional_text(value, "cache key", MAX_CACHE_KEY_CHARS, "leave the cache key empty")


def clean_seed(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise InvalidField(
            f"the locked seed {repr(value)[:24]} is not a whole number from 0 to {MAX_SEED}",
            "pick another seed or unlock it",
        )
    return value


def clean_tags(value: object) -> tuple[str, ...]:
    """Tags: stripped, inner whitespace collapsed, empty ones dropped, case-insensitive
    duplicates dropped (the first spelling stays), order kept."""
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidField("the tags are not a list of words", "enter the tags one by one")
    tags: list[str] = []
    seen: set[str] = set()
    for tag in value:
        if not isinstance(tag, str):
            raise InvalidField(f"the tag {tag!r} is not text", "enter the tags one by one")
        _check_text(tag, "tag")
        tag = one_line(tag)
        if len(tag) > MAX_TAG_CHARS:
            raise InvalidField(
                f"a tag is longer than {MAX_TAG_CHARS} characters", "shorten the tag"
            )
        if tag and name_key(tag) not in seen:
            seen.add(name_key(tag))
            tags.append(tag)
    if len(tags) > MAX_TAGS:
        raise InvalidField(f"a voice can have at most {MAX_TAGS} tags", "remove some tags")
    return tuple(tags)


def clip_file_name(suffix: str) -> str:
    """The stored name of a voice's clip: ``clip`` plus the original extension."""
    suffix = suffix.lower()
    if suffix == "":
        return "clip"
    if not _CLIP_SUFFIX.fullmatch(suffix):
        raise InvalidField(
            f"the reference clip's extension {suffix!r} is not a plain audio extension",
            "save the clip as .wav, .flac or .ogg",
        )
    return "clip" + suffix


def is_clip_file_name(name: object) -> bool:
    return isinstance(name, str) and (
        name == "clip" or (name.startswith("clip.") and bool(_CLIP_SUFFIX.fullmatch(name[4:])))
    )


def is_voice_id(value: object) -> bool:
    return isinstance(value, str) and bool(_VOICE_ID.fullmatch(value))


def now() -> datetime:
    return datetime.now(timezone.utc)


def format_time(moment: datetime) -> str:
    """UTC, fixed width, so stored times sort as text."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def parse_time(text: object) -> datetime:
    if not isinstance(text, str):
        raise InvalidField("the creation time is not text", "export the voice again")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidField(
            f"the creation time {text[:40]!r} is not an ISO 8601 time", "export the voice again"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:  # 0001-01-01 east of UTC, or 9999-12-31 west of it
        raise InvalidField(f"the creation time {text[:40]!r} is outside the years 1-9999 in UTC",
                           "export the voice again") from None
