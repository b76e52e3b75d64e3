"""A take kept as a voice: the name it is offered under and the save it asks for.

A designed take is named from its attributes as a person would say them
("Elderly British woman, low pitch"), not by its raw instruct; any other take by
the take it is ("Voice from take 2/3"). The save itself is the one use case in
:mod:`studio.service.voice_save`.
"""

from __future__ import annotations

from studio.engine.describe import DIALECT_NAMES, selection_from_instruct
from studio.service.requests import VoiceSaveRequest

# Who speaks: an age's word before the accent ("Elderly British woman"), then the noun.
_AGE_WORDS = {"teenager": "teenage", "young adult": "young", "middle-aged": "middle-aged",
              "elderly": "elderly"}
_NOUNS = {"female": "woman", "male": "man", None: "voice"}
_YOUNG = {"female": "girl", "male": "boy"}


def designed_voice_name(instruct: str | None) -> str | None:
    """A short, readable name for a designed voice; None when the instruct holds no
    attribute the engine knows (the caller names it another way)."""
    chosen = selection_from_instruct(instruct)
    if not chosen or not any(chosen.values()):
        return None
    age, gender = chosen.get("age"), chosen.get("gender")
    noun = _NOUNS[gender]
    if age in ("child", "teenager"):
        noun = _YOUNG.get(gender, "child" if age == "child" else noun)
    accent = (chosen.get("accent") or "").removesuffix(" accent")
    words = [w for w in ("whispering" if chosen.get("style") else "", _AGE_WORDS.get(age, ""),
                         accent.capitalize(), noun) if w]
    name = " ".join(words)
    extras = [chosen["pitch"] if chosen.get("pitch") else "",
              f"{DIALECT_NAMES.get(chosen['dialect'], chosen['dialect'])} dialect"
              if chosen.get("dialect") else ""]
    name = ", ".join([name, *(e for e in extras if e)])
    return name[0].upper() + name[1:]


def take_voice_name(take, position: str) -> str:
    """The name a take is offered under: the one the user gave it, a designed voice's
    attributes, else the take it is; ``position``: "Take 2/3" or "Take 14"."""
    if take.name:
        return take.name
    designed = designed_voice_name(take.settings.instruct) if take.settings.mode == "design" \
        else None
    return designed or f"Voice from {position[0].lower()}{position[1:]}"


def take_voice_request(take, name: str, replace: bool = False) -> VoiceSaveRequest:
    """Save ``take`` as a voice called ``name``: its audio is the clip and its own text
    the transcript (what it says, so nothing is transcribed); a designed take keeps its
    attributes."""
    settings = take.settings
    return VoiceSaveRequest(
        name=name, clip=take.audio_path, transcript=settings.text, preprocess=True,
        language=settings.language, replace=replace,
        instruct=settings.instruct if settings.mode == "design" else None)
