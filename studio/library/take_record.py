"""What a take is: the snapshot of how it was made (:class:`TakeSettings`,
:class:`TakeRun`), the :class:`Take` a reader gets, the voice it is filed under, and the
checks on the fields a person edits (its name and notes). No files, no database: the
library (:mod:`studio.library.takes`) stores these.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from studio.errors import UserError
from studio.library.fields import MAX_NOTES_CHARS, one_line

MAX_TAKE_NAME_CHARS = 100
DESIGN_KEY = "design"  # the voice filter's group for designed takes


@dataclass(frozen=True)
class TakeSettings:
    text: str
    language: str | None
    instruct: str | None
    mode: str  # "clone" | "design"
    voice_id: str | None
    reference_path: str | None
    reference_sha256: str | None
    ref_text: str | None
    preprocess: bool
    speed: float | None
    duration: float | None
    seed: int
    options: dict  # dataclasses.asdict(GenerationOptions)
    # A script line's take: its project file and the line's number when it was rendered;
    # None for a Clone or Design take (and every take kept before projects were filed).
    project: str | None = None
    project_line: int | None = None


@dataclass(frozen=True)
class TakeRun:
    model_source: str
    device: str
    precision: str
    accel_requested: str
    accel_active: str
    fallback_reason: str | None
    engine_version: str
    seconds: float
    rtf: float
    # A remote take's: the server's address, its model id and what it reported
    # (response headers); None for a take rendered here.
    backend: str | None = None
    server_model: str | None = None
    reported: dict | None = None


@dataclass(frozen=True)
class Take:
    id: str
    created: str
    name: str
    notes: str
    starred: bool
    batch: str
    settings: TakeSettings
    run: TakeRun
    sample_rate: int
    audio_seconds: float
    loudness_lufs: float | None
    suspects: tuple[str, ...]
    asr_cer: float | None
    audio_path: Path
    deleted: bool
    voice_name: str | None = None  # the saved voice it was rendered in: its name now, or then
    # The judges' verdicts as stored (studio.service.judging.TakeJudgement.to_dict());
    # None until the take is judged.
    judgements: dict | None = None
    # A take rendered from a cleaned clip: the clip it was cleaned from, "noisy.wav,
    # cleaned" (studio.library.clip_source); None for any other take.
    clip_label: str | None = None


def known_fields(cls, data: dict) -> dict:
    """The keys of ``data`` that ``cls`` has (rows written by a newer version may have more)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def voice_key(settings: TakeSettings) -> str:
    """What the voice filter groups by: a saved voice, a reference clip, or voice design."""
    if settings.voice_id:
        return settings.voice_id
    if settings.reference_sha256:
        return f"ref:{settings.reference_sha256}"
    if settings.reference_path:
        return f"ref:{settings.reference_path}"
    return DESIGN_KEY


def clean_take_name(name: object) -> str:
    if not isinstance(name, str):
        raise UserError("The take name is not text; type a name for the take.")
    name = one_line(name)
    if not name:
        raise UserError("The take name is empty; type a name for the take.")
    if len(name) > MAX_TAKE_NAME_CHARS:
        raise UserError(
            f"The take name is {len(name)} characters long, more than the "
            f"{MAX_TAKE_NAME_CHARS} allowed; shorten it."
        )
    return name


def clean_notes(notes: object) -> str:
    if not isinstance(notes, str):
        raise UserError("The take notes are not text; type the notes again.")
    notes = notes.strip()
    if len(notes) > MAX_NOTES_CHARS:
        raise UserError(
            f"The take notes are longer than {MAX_NOTES_CHARS:,} characters; shorten them."
        )
    return notes
