"""A render request's own checks, the ones that need no model and no download.

The studio runs them when Generate is pressed, before it asks to download the speech
recogniser for an empty transcript: a text over the limit, a silent, empty or
unreadable clip is said first, in the engine's words, and the download is offered only
when the transcript is the one thing missing. The engine runs the same checks again
(``check_item`` and ``prepared_reference``), so nothing here can drift from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.engine import audio as audio_ops
from studio.engine.items import SynthesisItem, check_item
from studio.engine.reference import prepared_reference
from studio.errors import UserError
from studio.service.requests import RenderRequest


@dataclass(frozen=True)
class Refusal:
    sentence: str
    clip: Path | None = None  # the clip the sentence is about (None: the text or a setting)


def render_problem(request: RenderRequest, sample_rate: int, hop: int) -> Refusal | None:
    """Why ``request`` is refused before any work, or None when it may go on.

    A saved voice's clip is not checked: its prompt was encoded when it was saved."""
    try:
        for seed in request.seeds:
            check_item(SynthesisItem(text=request.text, language=request.language,
                                     instruct=request.instruct, speed=request.speed,
                                     duration=request.duration, seed=seed))
    except UserError as exc:
        return Refusal(str(exc))
    if request.reference is None or request.voice_id is not None:
        return None
    try:
        wave = audio_ops.load_reference(request.reference, sample_rate)
        prepared_reference(wave, sample_rate, str(request.reference),
                           transcribed=not (request.ref_text or "").strip(),
                           preprocess=request.preprocess, hop=hop)
    except UserError as exc:
        return Refusal(str(exc), request.reference)
    return None
