"""What a request's ``voice`` names: a saved voice of the data folder, or a design.

A name is looked up in the library's database by its case-folded key, and the
prompt's path is built from the voice's id (a uuid the library made), never from
the name: ``../../x`` is just a name no voice has. A value that names no saved
voice may be one of OpenAI's stock names (a fixed design with its locked seed,
:mod:`studio.serve.stock_voices`); anything else, and the ``instructions`` field, must
be a design: an instruct as the engine takes it, or a description read by the Design
view's parser ("a young woman with a deep voice"); a bad description is refused with
the sentence the window shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.errors import UserError
from studio.serve.request import BadRequest, NotFound, SpeechRequest
from studio.serve.stock_voices import STOCK_VOICES, stock_voice


@dataclass(frozen=True)
class ResolvedVoice:
    prompt_path: Path | None  # a saved voice's encoded prompt
    instruct: str | None  # the design (a saved voice's own, or the request's)
    language: str | None  # a saved voice's language, when the request names none
    seed: int | None  # a saved voice's locked seed, when the request sets none
    name: str | None  # the saved voice's name, for the response headers
    clip_path: Path | None = None  # a saved voice's reference clip (the voice judge's)


def saved_voices(root: Path) -> list[dict]:
    """The saved voices, then the stock names no saved voice hides, as ``GET /v1/voices``
    lists them."""
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary(root, read_only=True) as library:
        saved = [{"id": v.name, "name": v.name, "type": "saved", "language": v.language,
                  "tags": list(v.tags)} for v in library.list()]
    taken = {v["name"].casefold() for v in saved}
    return saved + [{"id": name, "name": name, "type": "stock", "description": v.instruct}
                    for name, v in STOCK_VOICES.items() if name not in taken]


def resolve_voice(request: SpeechRequest, root: Path) -> ResolvedVoice:
    from studio.engine.describe import instruct_or_description, map_description
    from studio.library.voices import VoiceLibrary, VoiceNotFound

    if request.voice is not None and request.ref_audio is None:
        with VoiceLibrary(root, read_only=True) as library:
            try:
                voice = library.find(request.voice)
            except VoiceNotFound:
                voice = None
            if voice is not None:
                return ResolvedVoice(library.prompt_path(voice.id), voice.instruct,
                                     voice.language, voice.seed, voice.name,
                                     library.clip_path(voice.id))
    try:
        design = instruct_or_description(request.instruct)
    except UserError as exc:
        raise BadRequest(str(exc)) from None
    stock = stock_voice(request.voice) if request.ref_audio is None else None
    if stock is not None:
        design = stock.instruct if design is None else f"{stock.instruct}, {design}"
        return ResolvedVoice(None, design, None, stock.seed, None)
    if request.voice is not None and request.ref_audio is None:
        try:
            voice_design = instruct_or_description(request.voice)
        except UserError as exc:
            if map_description(request.voice).values:  # a description, not a mistyped name
                raise BadRequest(str(exc)) from None
            raise NotFound(f"No saved voice is named '{request.voice[:60]}' and it is not a voice "
                                    "design; GET /v1/voices lists the voices.") from None
        design = voice_design if design is None else f"{voice_design}, {design}"
    return ResolvedVoice(None, design, None, None, None)
