"""Judging a served take, and the scores as response headers.

A request that asks (``judge: true`` in the body, or ``X-OmniVoice-Judge: 1``) has its
take judged on the model's thread once it is rendered, by studio.service.judging's
judges, which that thread loads once and keeps. The answer carries the combined score in
``X-OmniVoice-Score`` and a compact JSON of every judge's score, verdict and line in
``X-OmniVoice-Judgement`` (ASCII, at most :data:`MAX_JUDGEMENT_CHARS`: the lines are left
out before the JSON would be cut); ``stream_format: "sse"`` gets the whole judgement in
its ``speech.audio.done`` event instead.
"""

from __future__ import annotations

import json
import logging

log = logging.getLogger(__name__)

MAX_JUDGEMENT_CHARS = 900  # under the header cap (studio.serve.headers), one line
JUDGES_FAILED = "The judges failed on this take; the details are in the server's log file."


def judge_take(judges, request, voice, audio, sample_rate: int) -> dict:
    """The take's judgement as a dict (TakeJudgement.to_dict); a failure of the judges
    never costs the take: it becomes a judgement that says so."""
    from studio.engine.languages import resolve_language

    try:
        language, _ = resolve_language(request.language or voice.language)
        reference = _reference(request, voice)
        [result] = judges.judge_takes([(audio, sample_rate)], request.text, language,
                                      reference)
        return result.to_dict()
    except Exception:
        log.exception("judging a served take failed")
        return {"combined": None, "judgements": [], "error": JUDGES_FAILED}


def _reference(request, voice):
    """The clip the take should sound like: the request's ref_audio, or the saved voice's
    clip; None for a design."""
    if request.ref_audio is not None:
        from studio.serve.request import read_ref_audio

        clip, rate = read_ref_audio(request.ref_audio)
        return clip.mean(axis=0), rate
    if getattr(voice, "clip_path", None) is not None and voice.clip_path.is_file():
        from studio.sound.files import read_audio

        clip, rate = read_audio(voice.clip_path)
        return clip.mean(axis=0), rate
    return None


def score_headers(judgement: dict) -> dict[str, str]:
    """X-OmniVoice-Score (the combined score, or "none") and X-OmniVoice-Judgement."""
    combined = judgement.get("combined")
    return {"X-OmniVoice-Score": "none" if combined is None else f"{combined:.3f}",
            "X-OmniVoice-Judgement": compact(judgement)}


def compact(judgement: dict, limit: int = MAX_JUDGEMENT_CHARS) -> str:
    """{"combined": .., "voice": {"score", "verdict", "why"}, ...} as ASCII JSON within
    ``limit``: without the lines ("why") when they do not fit, the verdicts alone last."""
    judges = judgement.get("judgements", [])
    full = {"combined": judgement.get("combined"),
            **({"error": judgement["error"]} if "error" in judgement else {}),
            **{j["judge"]: {"score": None if j["score"] is None else round(j["score"], 3),
                            "verdict": j["verdict"], "why": j["explanation"]}
               for j in judges}}
    text = _json(full)
    if len(text) <= limit:
        return text
    for j in judges:
        full[j["judge"]].pop("why")
    return _json(full)[:limit]  # a score and a verdict per judge: far under the limit


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))
