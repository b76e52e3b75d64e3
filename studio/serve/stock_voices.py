"""OpenAI's stock voice names as fixed designs, so apps written against OpenAI's speech
API (whose own examples say ``voice="alloy"``) work unchanged.

Each name is a design instruct with a locked seed: the same name speaks with the same
voice on every request and every server. A saved voice of the same name wins (the
operator's choice); a request's own ``seed`` overrides the locked one. The table is the
one place these are declared; docs/scale-out.md lists it for users.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StockVoice:
    instruct: str
    seed: int


# Names as the OpenAI SDK's Voice literal spells them (tests check the two agree).
STOCK_VOICES: dict[str, StockVoice] = {
    "alloy": StockVoice("female, young adult, moderate pitch", 1101),
    "ash": StockVoice("male, young adult, low pitch", 1102),
    "ballad": StockVoice("male, middle-aged, moderate pitch, british accent", 1103),
    "cedar": StockVoice("male, middle-aged, low pitch", 1104),
    "coral": StockVoice("female, young adult, high pitch", 1105),
    "echo": StockVoice("male, young adult, moderate pitch", 1106),
    "fable": StockVoice("male, elderly, moderate pitch, british accent", 1107),
    "marin": StockVoice("female, middle-aged, moderate pitch", 1108),
    "nova": StockVoice("female, teenager, high pitch", 1109),
    "onyx": StockVoice("male, middle-aged, very low pitch", 1110),
    "sage": StockVoice("female, elderly, low pitch", 1111),
    "shimmer": StockVoice("female, middle-aged, high pitch, british accent", 1112),
    "verse": StockVoice("male, teenager, moderate pitch", 1113),
}


def stock_voice(name: str | None) -> StockVoice | None:
    """The stock voice ``name`` names (any case), or None."""
    return STOCK_VOICES.get(name.strip().lower()) if name else None
