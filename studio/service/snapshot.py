"""A take's snapshot and the request that renders it again.

``settings_of`` freezes a :class:`RenderRequest` (one of its seeds) into the
:class:`TakeSettings` stored with the take; ``request_from_take`` turns that back
into a request. With the take's own seed the new render has identical samples
(same model, device and precision); with another seed it is a variation.
No torch and no Qt: views call ``request_from_take`` on the GUI thread.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path

from studio.engine.options import DecodeOptions, GenerationOptions
from studio.errors import UserError
from studio.library.take_record import Take, TakeSettings
from studio.service.cleanup import FOLDER as CLEANED_FOLDER
from studio.service.requests import RenderRequest, RenderResult, TakeAudio


def settings_of(
    request: RenderRequest, seed: int, reference_sha256: str | None, voice_id: str | None
) -> TakeSettings:
    reference = request.reference
    return TakeSettings(
        text=request.text,
        language=request.language,
        instruct=request.instruct,
        mode=request.mode,
        voice_id=voice_id,
        reference_path=str(Path(reference).absolute()) if reference is not None else None,
        reference_sha256=reference_sha256,
        ref_text=request.ref_text,
        preprocess=request.preprocess,
        speed=request.speed,
        duration=request.duration,
        seed=int(seed),
        options=asdict(request.options),
        project=request.project,
        project_line=request.project_line,
    )


def _only(cls, data: dict) -> dict:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def options_of(data: dict) -> GenerationOptions:
    """GenerationOptions from a stored dict; keys this version does not know are ignored
    and missing ones take today's defaults, except the chunking: a take stored before
    quick-start chunking existed was rendered with the reference's, and keeps it, so
    its re-render is still identical."""
    values = _only(GenerationOptions, data)
    values.setdefault("chunking", "reference")
    values["decode"] = DecodeOptions(**_only(DecodeOptions, data.get("decode") or {}))
    return GenerationOptions(**values)


def request_from_take(take: Take, seed: int | None = None) -> RenderRequest:
    """The request that renders ``take`` again: with its own seed (``seed=None``) the
    samples are identical; with another seed it is a variation."""
    s = take.settings
    reference = Path(s.reference_path) if s.reference_path else None
    if reference is not None and not reference.is_file():
        if reference.parent.name == CLEANED_FOLDER:
            # Cleaning the same clip with the same steps writes the same file again.
            raise UserError(
                "The cleaned copy of this take's reference clip is gone from the data "
                "folder; load the original clip in Clone, tick the same steps under Clean "
                "the clip (that makes the same copy) and render again, or choose another clip."
            )
        raise UserError(
            f"The reference clip {reference} of this take no longer exists; put it back or "
            "copy the settings into the editor and choose another clip."
        )
    return RenderRequest(
        text=s.text,
        language=s.language,
        instruct=s.instruct,
        reference=reference,
        ref_text=s.ref_text,
        preprocess=s.preprocess,
        speed=s.speed,
        duration=s.duration,
        seeds=(s.seed if seed is None else int(seed),),
        options=options_of(s.options),
        mode=s.mode,
        voice_id=s.voice_id,
        project=s.project,  # a script line's take again: filed with its project
        project_line=s.project_line,
    )


def unsaved_take(result: RenderResult, take: TakeAudio, index: int) -> Take:
    """A take the library could not keep, as the takes panel holds it for the session: the
    same snapshot a saved take has (``suspects`` from its audio), with an unsaved id."""
    from datetime import datetime, timedelta, timezone

    from studio import __version__
    from studio.library.fields import format_time
    from studio.library.session_takes import new_unsaved_id
    from studio.library.suspect import inspect
    from studio.library.take_record import TakeRun
    from studio.sound.loudness import loudness_lufs

    audio_seconds = take.audio.shape[-1] / take.sample_rate
    count = len(result.takes)
    run = TakeRun(
        model_source="", device=result.device, precision=result.precision,
        accel_requested=result.accel_requested, accel_active=result.accel_active,
        fallback_reason=result.fallback_reason, engine_version=__version__,
        seconds=result.seconds / count,
        rtf=result.seconds / result.audio_seconds if result.audio_seconds > 0 else 0.0,
    )
    # A batch lists in the order it was rendered, as a saved batch does.
    created = datetime.now(timezone.utc) + timedelta(microseconds=index)
    return Take(
        id=new_unsaved_id(), created=format_time(created), name="", notes="", starred=False,
        batch=result.batch or f"unsaved-batch-{id(result)}",
        settings=settings_of(result.request, take.seed, None, result.request.voice_id),
        run=run, sample_rate=take.sample_rate, audio_seconds=audio_seconds,
        loudness_lufs=loudness_lufs(take.audio, take.sample_rate),
        suspects=inspect(take.audio, take.sample_rate), asr_cer=None,
        audio_path=Path(), deleted=False,
    )
