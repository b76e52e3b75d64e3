"""From what a request names as its voice to the items the engine renders.

A voice is one of: a saved voice (its prompt was encoded when it was saved), a prompt
file, a reference clip (through the prompt cache or a fresh encode), or none (designed
from the instruct alone). Each front end used to spell this out itself, and the copies
drifted; here it is once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

SAVED, FILE, NONE = "disk", "file", "none"  # where a prompt came from (PromptSource adds its own)


@dataclass(frozen=True)
class VoiceChoice:
    """What a request names as its voice; at most one of the first three is set."""

    saved_prompt: Path | None = None  # a saved voice's prompt (VoiceLibrary.prompt_path)
    prompt_file: Path | None = None  # a voice prompt file the user gave
    reference: Path | None = None  # a clip to clone
    ref_text: str | None = None  # its transcript (None: transcribed)
    preprocess: bool = True


def prompt_source(engine, cache_folder: Path | None, asr_model: str | None, **cache_limits):
    """The prompt source for ``engine``: the cache (on disk in ``cache_folder``, or in
    memory only), transcription with ``asr_model`` (None: none is set up, so a clip
    without its transcript is refused), and saved voices' entries kept."""
    from studio.engine.prompt_cache import PromptCache
    from studio.engine.prompts import PromptSource
    from studio.library.voices import saved_voice_cache_keys

    return PromptSource(engine, PromptCache(cache_folder, **cache_limits),
                        asr_model=asr_model,
                        keep_keys=saved_voice_cache_keys)


def read_prompt(engine, path: Path):
    """A prompt file (a saved voice's or the user's), checked against ``engine``'s codec."""
    from studio.engine.prompt import VoicePrompt

    spec = engine.info.audio
    return VoicePrompt.load(path, spec.codebooks, spec.mask_id)


def resolve_voice(engine, prompts, choice: VoiceChoice,
                  warn: Callable[[str], None] | None = None) -> tuple[object | None, str]:
    """(the prompt to clone or None, where it came from) for ``choice``."""
    if choice.saved_prompt is not None:  # encoded when it was saved: read, no work
        return read_prompt(engine, choice.saved_prompt), SAVED
    if choice.prompt_file is not None:
        return read_prompt(engine, choice.prompt_file), FILE
    if choice.reference is not None:
        return prompts.obtain(choice.reference, choice.ref_text, preprocess=choice.preprocess,
                              warn=warn)
    return None, NONE


def synthesis_items(text: str, seeds: Sequence[int | None], *, language: str | None = None,
                    instruct: str | None = None, prompt=None, speed: float | None = None,
                    duration: float | None = None, lexicon=None, saved=None) -> list:
    """One SynthesisItem per seed. A saved voice (``saved``: anything with ``language``
    and ``seed``) fills in the language and the seed the request leaves out, the same
    way for every front end."""
    from studio.engine.engine import SynthesisItem

    if saved is not None:
        language = language if language is not None else saved.language
        seeds = [seed if seed is not None else saved.seed for seed in seeds]
    return [SynthesisItem(text=text, language=language, instruct=instruct, prompt=prompt,
                          speed=speed, duration=duration, seed=seed, lexicon=lexicon)
            for seed in seeds]
