"""Render settings and their limits: plain dataclasses with no torch, so the
studio's views can build requests without loading the inference stack."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_TEXT_CHARS = 20_000
MAX_SECONDS = 1800.0  # longest output one item may ask for (speed or duration)
SPEED_RANGE = (0.25, 4.0)
DECODE_MODES = ("padded", "packed")


@dataclass(frozen=True)
class DecodeOptions:
    num_step: int = 32
    guidance_scale: float = 2.0
    t_shift: float = 0.1
    layer_penalty: float = 5.0
    position_temperature: float = 5.0
    class_temperature: float = 0.0


@dataclass(frozen=True)
class GenerationOptions:
    decode: DecodeOptions = field(default_factory=DecodeOptions)
    denoise: bool = True
    postprocess: bool = True
    chunk_duration: float = 15.0  # seconds of audio per chunk in long-form mode
    chunk_threshold: float = 30.0  # estimated seconds above which text is chunked
    pad_duration: float = 0.1
    fade_duration: float = 0.1
    # "padded": the reference-equal batch layout; "packed": every document in one
    # row with per-document attention (studio.engine.packed), no padding compute.
    decode_mode: str = "padded"
