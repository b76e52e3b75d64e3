"""One speech request, read from its JSON body and checked before it waits in the queue.

The body is OpenAI's ``/v1/audio/speech`` shape (``model``, ``input``, ``voice``,
``response_format``, ``speed``, ``stream_format``; ``stream``) with OmniVoice's extras: ``seed``,
``steps``, ``guidance``, the two temperatures, ``language``, ``instructions`` and a
clip to clone, ``ref_audio`` (a data URI or bare base64) with its ``ref_text``, and
``clean``, the cleanup steps to run on that clip first (a list, or a comma-separated string).
vLLM-Omni's spelling of the decoding extras (``extra_params`` with
``num_inference_steps`` and ``guidance_scale``) is read too, so one client speaks to
either server. Everything a client can get wrong becomes a :class:`RequestError`:
a status and one sentence, never a traceback. Of ``ref_audio`` only the header is
read here (rate, channels, length, against :data:`CLIP_LIMITS`); the renderer
decodes it after the queue has admitted the request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

from studio.engine.options import (
    GUIDANCE_RANGE,
    MAX_SEED,
    MAX_STEPS,
    MAX_TEXT_CHARS,
    SPEED_RANGE,
    TEMPERATURE_RANGE,
    DecodeOptions,
    GenerationOptions,
)
from studio.errors import UserError
from studio.sound.clip_bounds import ClipLimits, ClipTooLong, probe_clip, read_clip

FORMATS = ("wav", "flac", "mp3", "opus", "pcm")
STREAM_FORMATS = ("wav", "pcm")
STREAM_KINDS = ("audio", "sse")  # OpenAI's stream_format: raw audio, or server-sent events
MAX_REF_AUDIO_BYTES = 16 * 1024 * 1024  # a minute of 24 kHz float WAV is under 6 MB
MAX_BODY_BYTES = MAX_REF_AUDIO_BYTES * 4 // 3 + 256 * 1024  # base64 of that, plus the text
CLIP_LIMITS = ClipLimits()  # duration, rates, channels and samples a ref_audio may have
MAX_FIELD_CHARS = 1_000  # voice, instructions, language, model, ref_text
MAX_CLEAN_CHARS = 100  # "noise,trim,loudness" is 19
# Voices that mean "no design": the model picks one (a seed makes it repeatable).
_DESIGN_AUTO = ("auto", "default", "")


class RequestError(UserError):
    """A request the server refuses: one sentence, answered with ``status``."""

    status = 400


class BadRequest(RequestError):
    status = 400


class Unauthorized(RequestError):
    status = 401


class NotFound(RequestError):
    status = 404


class TooLarge(RequestError):
    status = 413


class Unreadable(RequestError):
    """Well-formed, but its content cannot be used (a clip that is not audio)."""

    status = 422


@dataclass
class SpeechRequest:
    text: str
    voice: str | None  # a saved voice's name or a design instruct; None: the model's choice
    instruct: str | None
    language: str | None
    speed: float | None
    seed: int | None
    response_format: str
    stream: bool  # send the audio as it renders
    options: GenerationOptions
    sse: bool = False  # as speech.audio.* events (stream_format "sse"), not raw audio
    ref_audio: bytes | None = None  # the clip's file: only its header is read before the queue
    ref_key: str | None = None  # a digest of the clip's bytes (the prompt memo's key)
    ref_text: str | None = None
    model: str | None = None
    extras: dict = field(default_factory=dict)
    judge: bool = False  # score the take (response headers, or the SSE done event)
    clean: tuple[str, ...] = ()  # cleanup steps for ref_audio, in run order


def _string(body: dict, key: str, limit: int = MAX_FIELD_CHARS) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadRequest(f"The field '{key}' must be a string.")
    if len(value) > limit:
        raise TooLarge(f"The field '{key}' is {len(value):,} characters long; the "
                                f"limit is {limit:,}.")
    return value


def _number(body: dict, key: str, low: float, high: float, whole: bool = False,
            allow_zero: bool = False):
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            whole and not isinstance(value, int)):
        kind = "a whole number" if whole else "a number"
        raise BadRequest(f"The field '{key}' must be {kind}.")
    if not (math.isfinite(value) and (low <= value <= high or (allow_zero and value == 0))):
        zero = "0 or " if allow_zero else ""
        raise BadRequest(f"The field '{key}' must be {zero}from {low:g} to {high:g}.")
    return value


def _flag(body: dict, key: str) -> bool:
    value = body.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise BadRequest(f"The field '{key}' must be true or false.")
    return value


def _clean(body: dict, voice: str | None, has_clip: bool) -> tuple[str, ...]:
    """The cleanup steps ``clean`` names: a list of names or one comma-separated string."""
    from studio.judges.cleanup import parse_steps

    value = body.get("clean")
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = ",".join(value)
    if not isinstance(value, str):
        raise BadRequest("The field 'clean' must be a list of cleanup steps or a "
                         "comma-separated string, such as \"noise,trim\".")
    if len(value) > MAX_CLEAN_CHARS:
        raise TooLarge(f"The field 'clean' is {len(value):,} characters long; the limit is "
                       f"{MAX_CLEAN_CHARS}.")
    try:
        steps = parse_steps(value)
    except UserError as exc:
        raise BadRequest(str(exc)) from None
    if steps and not has_clip and voice is not None:
        raise BadRequest(f"The voice '{voice[:60]}' is used as it was saved or designed and "
                         "clean cleans only a ref_audio sent with the request; leave clean "
                         "out, or send the clip as ref_audio.")
    if steps and not has_clip:
        raise BadRequest("The field 'clean' cleans the ref_audio sent with the request; send "
                         "the clip too, or leave clean out.")
    return steps


def _clip_bytes(value: str) -> bytes:
    """A data URI (``data:audio/wav;base64,...``) or bare base64 -> the clip's file."""
    payload = value.split(",", 1)[1] if value.startswith("data:") and "," in value else value
    if value.startswith("data:") and ";base64" not in value.split(",", 1)[0]:
        raise BadRequest("The ref_audio data URI must be base64 encoded.")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest("The ref_audio is not base64; send the clip as a data URI "
                                "(data:audio/wav;base64,...).") from None
    if len(data) > MAX_REF_AUDIO_BYTES:
        raise TooLarge(f"The ref_audio is {len(data) / 2**20:.1f} MB; the limit is "
                                f"{MAX_REF_AUDIO_BYTES / 2**20:.0f} MB (3 to 10 s of speech "
                                "clones best).")
    return data


def _refusal(exc: UserError) -> RequestError:
    return (TooLarge if isinstance(exc, ClipTooLong) else Unreadable)(str(exc))


def probe_ref_audio(data: bytes) -> None:
    """The cheap check, before the queue: the clip's header (rate, channels, length)."""
    try:
        probe_clip(data, CLIP_LIMITS, name="The ref_audio")
    except UserError as exc:
        raise _refusal(exc) from None


def read_ref_audio(data: bytes) -> tuple[np.ndarray, int]:
    """The clip as ((C, T) float32, rate): decoded once the queue has admitted it, and
    within :data:`CLIP_LIMITS` whatever its header said."""
    try:
        return read_clip(data, CLIP_LIMITS, name="The ref_audio")
    except UserError as exc:
        raise _refusal(exc) from None


def parse_speech(body: object) -> SpeechRequest:
    """The request in ``body`` (already JSON-decoded), checked as far as it can be
    without the model."""
    if not isinstance(body, dict):
        raise BadRequest("The request body must be a JSON object.")
    text = body.get("input")
    if not isinstance(text, str):
        raise BadRequest("The field 'input' (the text to speak) is missing or not a "
                                "string.")
    if len(text) > MAX_TEXT_CHARS:
        raise TooLarge(f"The input is {len(text):,} characters long; split it into "
                                f"parts of at most {MAX_TEXT_CHARS:,} characters.")
    fmt = body.get("response_format", "wav")
    fmt = "wav" if fmt is None else fmt
    if fmt not in FORMATS:
        raise BadRequest(f"The response_format must be one of {', '.join(FORMATS)}.")
    stream = _flag(body, "stream")
    if stream and fmt not in STREAM_FORMATS:
        raise BadRequest("A streamed response is wav or pcm; ask for one of those, or "
                                "leave stream out.")
    kind = _string(body, "stream_format")
    if kind is not None and kind not in STREAM_KINDS:
        raise BadRequest("The stream_format must be audio or sse, or left out for the "
                         "whole file.")
    # OpenAI's stream_format streams what can be streamed; another format comes whole
    # (for sse, as one event). A bare stream: true stays raw audio, as before.
    stream = stream or (kind is not None and fmt in STREAM_FORMATS)
    judge = _flag(body, "judge")
    if judge and stream and kind != "sse":
        raise BadRequest(JUDGE_NOT_STREAMED)
    extra = body.get("extra_params")
    if extra is not None and not isinstance(extra, dict):
        raise BadRequest("The field 'extra_params' must be a JSON object.")
    extra = extra or {}
    steps = _number(body, "steps", 1, MAX_STEPS, whole=True)
    if steps is None:
        steps = _number(extra, "num_inference_steps", 1, MAX_STEPS, whole=True)
    guidance = _number(body, "guidance", *GUIDANCE_RANGE)
    if guidance is None:
        guidance = _number(extra, "guidance_scale", *GUIDANCE_RANGE)
    low, high = TEMPERATURE_RANGE
    position = _number(body, "position_temperature", low, high, allow_zero=True)
    klass = _number(body, "class_temperature", low, high, allow_zero=True)
    defaults = DecodeOptions()
    options = GenerationOptions(decode=DecodeOptions(
        num_step=steps if steps is not None else defaults.num_step,
        guidance_scale=float(guidance) if guidance is not None else defaults.guidance_scale,
        position_temperature=float(position) if position is not None
        else defaults.position_temperature,
        class_temperature=float(klass) if klass is not None else defaults.class_temperature,
    ))
    speed = _number(body, "speed", *SPEED_RANGE)
    seed = _number(body, "seed", 0, MAX_SEED, whole=True)
    named = body.get("voice")
    if isinstance(named, dict):  # OpenAI's voice object, {"id": "..."}
        if not isinstance(named.get("id"), str):
            raise BadRequest("A voice object must carry the voice's name as a string 'id'.")
        body = {**body, "voice": named["id"]}
    voice = _string(body, "voice")
    voice = None if voice is None or voice.strip().lower() in _DESIGN_AUTO else voice.strip()
    ref_audio = _string(body, "ref_audio", limit=MAX_BODY_BYTES)
    ref_text = _string(body, "ref_text")
    if ref_text is not None and ref_audio is None:
        raise BadRequest("The ref_text is the transcript of ref_audio; send the clip "
                                "too, or leave ref_text out.")
    clean = _clean(body, voice, ref_audio is not None)
    clip, key = None, None
    if ref_audio is not None:
        if not ref_text or not ref_text.strip():
            raise Unreadable("A ref_audio needs its transcript in ref_text; this server "
                                    "does not transcribe.")
        clip = _clip_bytes(ref_audio)
        probe_ref_audio(clip)
        key = hashlib.sha256(clip).hexdigest()
    return SpeechRequest(
        text=text,
        voice=voice,
        instruct=_string(body, "instructions"),
        language=_string(body, "language"),
        speed=float(speed) if speed is not None and speed != 1 else None,
        seed=seed,
        response_format=fmt,
        stream=stream,
        options=options,
        sse=kind == "sse",
        ref_audio=clip,
        ref_key=key,
        ref_text=ref_text,
        model=_string(body, "model"),
        judge=judge,
        clean=clean,
    )


JUDGE_NOT_STREAMED = (
    "A streamed response's headers go out before the take is whole, so they cannot carry "
    "its scores; ask for stream_format \"sse\" (the scores come in the speech.audio.done "
    "event) or leave stream out.")
JUDGE_HEADER = "x-omnivoice-judge"


def apply_judge_header(parsed: SpeechRequest, value: str | None) -> None:
    """The X-OmniVoice-Judge header (1/true/yes or 0/false/no) asks for judging as the
    body's ``judge`` field does; either one turns it on."""
    if value is None:
        return
    word = value.strip().lower()
    if word not in ("1", "true", "yes", "0", "false", "no"):
        raise BadRequest("The header X-OmniVoice-Judge must be 1 (score the take) or 0.")
    if word in ("1", "true", "yes"):
        if parsed.stream and not parsed.sse:
            raise BadRequest(JUDGE_NOT_STREAMED)
        parsed.judge = True


def check_request(parsed, voice) -> list[str]:
    """The engine's own checks, before the request waits in the queue; returns its notes
    (an unknown language is spoken without a hint, and said so)."""
    from studio.engine.engine import SynthesisItem, check_item

    notes: list[str] = []
    check_item(SynthesisItem(text=parsed.text, language=parsed.language or voice.language,
                             instruct=voice.instruct, speed=parsed.speed, seed=parsed.seed),
               warn=notes.append)
    return notes
