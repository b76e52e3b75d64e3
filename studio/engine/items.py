"""What one render asks for (a SynthesisItem) and its checks that need no model.

Kept apart from the Engine facade, which imports torch: the studio's Generate runs
these checks on the GUI thread before it offers any download (a text over the limit
is said before the speech recogniser is asked for).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studio.engine.instruct import normalize_instruct, text_wants_chinese
from studio.engine.languages import resolve_language
from studio.engine.options import (
    MAX_SECONDS,
    MAX_SEED,
    MAX_TEXT_CHARS,
    SPEED_RANGE,
)
from studio.engine.text import check_code_points, is_blank, split_pauses, strip_pauses
from studio.errors import UserError

if TYPE_CHECKING:
    from studio.engine.lexicon import Lexicon
    from studio.engine.prompt import VoicePrompt

Warn = Callable[[str], None]
MAX_INSTRUCT_CHARS = 1_000  # as a saved voice's; an instruct is a few attributes


@dataclass
class SynthesisItem:
    text: str
    language: str | None = None
    instruct: str | None = None
    prompt: VoicePrompt | None = None
    speed: float | None = None
    duration: float | None = None  # seconds; overrides speed
    seed: int | None = None  # None: a fresh random seed, reported in the result
    lexicon: Lexicon | None = None  # pronunciations, applied before the text is chunked


def check_item(item: SynthesisItem, warn: Warn | None = None) -> tuple[str | None, str | None]:
    """Validate one request without a model; returns its (language id, normalised instruct)."""
    text = item.text if isinstance(item.text, str) else ""
    check_code_points(text, "text")
    split_pauses(text)  # a malformed pause tag is one sentence, before any work
    if is_blank(strip_pauses(text)):
        raise UserError("The text is empty; type what the voice should say.")
    if len(text) > MAX_TEXT_CHARS:
        raise UserError(
            f"The text is {len(text):,} characters long; split it into parts of at most "
            f"{MAX_TEXT_CHARS:,} characters."
        )
    if item.speed is not None and not (
        math.isfinite(item.speed) and SPEED_RANGE[0] <= item.speed <= SPEED_RANGE[1]
    ):
        raise UserError(
            f"The speed must be between {SPEED_RANGE[0]} and {SPEED_RANGE[1]}; got {item.speed}."
        )
    if item.duration is not None and not (
        math.isfinite(item.duration) and 0 < item.duration <= MAX_SECONDS
    ):
        raise UserError(
            f"The duration must be more than 0 and at most {MAX_SECONDS:.0f} seconds; "
            f"got {item.duration}."
        )
    if item.seed is not None and (isinstance(item.seed, bool) or not isinstance(item.seed, int)
                                  or not 0 <= item.seed <= MAX_SEED):
        raise UserError(f"The seed must be a whole number from 0 to {MAX_SEED}; got "
                        f"{str(item.seed)[:30]}.")
    for what, value in (("voice design", item.instruct), ("language", item.language)):
        if isinstance(value, str):
            check_code_points(value, what)
    if isinstance(item.instruct, str) and len(item.instruct) > MAX_INSTRUCT_CHARS:
        raise UserError(f"The voice design is {len(item.instruct):,} characters long; describe "
                        f"the voice in at most {MAX_INSTRUCT_CHARS:,} (a few attributes).")
    language, note = resolve_language(item.language)
    if note and warn is not None:
        warn(note)
    return language, normalize_instruct(item.instruct, use_zh=text_wants_chinese(text))
