"""Saving a reference clip as a named voice: the checks that need no model, then the
encode and the library entry. The command line's ``voices save`` and MCP's clone_voice
both save this way.
"""

from __future__ import annotations

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


def check_new_voice(name: str, clip: Path, tags=(), language: str | None = None,
                    root: Path | None = None) -> NewVoice:
    from studio.engine.languages import resolve_language
    from studio.library import fields
    from studio.library.clips import check_voice_clip
    from studio.library.voices import VoiceLibrary

    try:
        name = fields.clean_name(name)
        tags = tuple(fields.clean_tags([tag for tag in tags if tag.strip()]))
    except fields.InvalidField as exc:
        raise UserError(exc.sentence()) from None
    resolved, unknown = resolve_language(language)
    if unknown:
        raise UserError(f"Language '{language}' is not recognised; pick a language id such as "
                        "'en' or a name such as 'English'.")
    with VoiceLibrary(root) as library:
        if library.name_taken(name):
            raise UserError(f"A voice named '{name}' already exists; choose another name.")
    return NewVoice(name, Path(clip), tags, resolved, check_voice_clip(clip))


def save_voice(prompts, new: NewVoice, transcript: str | None, preprocess: bool = True,
               root: Path | None = None):
    """Encode ``new``'s clip through ``prompts`` (a PromptSource: the cache, and
    transcription when ``transcript`` is None) and save it; returns (Voice, source)."""
    from studio.library.voices import VoiceLibrary

    prompt, source = prompts.obtain(new.clip, transcript, preprocess=preprocess)
    key = prompts.key_for(new.clip, transcript, preprocess)
    with VoiceLibrary(root) as library:
        voice = library.create(new.name, new.clip, prompt, tags=new.tags,
                               language=new.language, cache_key=key)
    return voice, source
