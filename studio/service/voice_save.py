"""Saving a reference clip as a named voice: the checks that need no model, then the
encode and the library entry. The command line's ``voices save``, MCP's clone_voice and
the studio's worker (Clone's Save as voice, a take's Save as voice…) all save this way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from studio.errors import UserError


@dataclass(frozen=True)
class NewVoice:
    """A voice to save, checked before any model work: a clash or a bad clip costs nothing."""

    name: str
    clip: Path
    tags: tuple[str, ...]
    language: str | None
    seconds: float  # the clip's length
    replaces: str | None = None  # the id of the voice of that name it takes the place of
    instruct: str | None = None  # a designed voice's attributes, kept with it


@contextmanager
def _opened(root: Path | None, library) -> Iterator:
    """``library`` when the caller holds one (the worker's writer), else one opened at ``root``."""
    if library is not None:
        yield library
        return
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary(root) as opened:
        yield opened


def check_new_voice(name: str, clip: Path, tags=(), language: str | None = None,
                    root: Path | None = None, *, library=None, replace: bool = False,
                    instruct: str | None = None) -> NewVoice:
    """``replace``: a voice already of that name is replaced (once the new one is encoded)
    instead of refused."""
    from studio.engine.languages import resolve_language
    from studio.library import fields
    from studio.library.clips import check_voice_clip

    try:
        name = fields.clean_name(name)
        tags = tuple(fields.clean_tags([tag for tag in tags if tag.strip()]))
    except fields.InvalidField as exc:
        raise UserError(exc.sentence()) from None
    resolved, unknown = resolve_language(language)
    if unknown:
        raise UserError(f"Language '{language}' is not recognised; pick a language id such as "
                        "'en' or a name such as 'English'.")
    replaces = None
    with _opened(root, library) as voices:
        if voices.name_taken(name):
            if not replace:
                raise UserError(f"A voice named '{name}' already exists; choose another name.")
            replaces = voices.find(name).id
    return NewVoice(name, Path(clip), tags, resolved, check_voice_clip(clip), replaces,
                    instruct or None)


def save_voice(prompts, new: NewVoice, transcript: str | None, preprocess: bool = True,
               root: Path | None = None, *, library=None):
    """Encode ``new``'s clip through ``prompts`` (a PromptSource: the cache, and
    transcription when ``transcript`` is None) and save it; returns (Voice, source).

    A voice it replaces is deleted only once the new one is encoded, and comes back if
    the new one cannot be written: a failed save loses nothing."""
    prompt, source = prompts.obtain(new.clip, transcript, preprocess=preprocess)
    key = prompts.key_for(new.clip, transcript, preprocess)
    with _opened(root, library) as voices:
        if new.replaces is not None:
            voices.delete(new.replaces, undoable=True)  # frees the name; the files stay
        try:
            voice = voices.create(new.name, new.clip, prompt, tags=new.tags,
                                  language=new.language, cache_key=key, instruct=new.instruct)
        except BaseException:
            if new.replaces is not None:
                voices.undelete(new.replaces)
            raise
    return voice, source
