"""Filing an MCP take in the take library, as the window files its takes (through the
one take keeper of service/takes.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from studio.service.requests import RenderRequest
from studio.service.takes import TakeKeeper, take_run

NO_ACCEL = SimpleNamespace(requested="off", active="off", reason=None)  # the renderer's path


def keeper(root: Path) -> TakeKeeper:
    return TakeKeeper(root)


def keep_take(keeper: TakeKeeper, engine, *, text: str, language: str | None,
              instruct: str | None, clip: Path | None, ref_text: str | None,
              voice_id: str | None, speed: float | None, options, rendered,
              warn) -> tuple[str | None, Path | None]:
    """Save ``rendered`` (audio, sample_rate, seed, seconds) as a take: (its id, its
    file), or Nones when it could not be saved (``warn`` says why). Runs on the model's
    thread, the keeper's one thread."""
    request = RenderRequest(text=text, language=language, instruct=instruct, reference=clip,
                            ref_text=ref_text, speed=speed, seeds=(rendered.seed,),
                            options=options, mode="clone" if clip or voice_id else "design",
                            voice_id=voice_id)
    audio_seconds = rendered.audio.shape[-1] / rendered.sample_rate
    run = take_run(engine.source, str(engine.device), engine.precision, NO_ACCEL,
                   rendered.seconds, audio_seconds)
    cers = keeper.check_asr(text, [rendered], None, lambda _sentence: None)
    _batch, [take_id] = keeper.save(request, [rendered], run, None, cers, warn)
    if take_id is not None and getattr(rendered, "judgement", None) is not None:
        keeper.library().set_judgements(take_id, rendered.judgement)  # kept with the take
    return take_id, keeper.library().audio_path(take_id) if take_id else None
