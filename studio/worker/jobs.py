"""Plain dataclasses that cross the thread boundary: requests in, results out.

Audio crosses as CPU numpy arrays, never as tensors, so nothing on the main
thread ever touches the worker's device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from studio.engine.options import GenerationOptions


@dataclass(frozen=True)
class LoadRequest:
    source: str
    device: str = "auto"
    precision: str = "auto"
    accel: str = "off"
    disk_cache: bool = True
    disk_items: int = 32
    memory_items: int = 8
    asr_model: str = "openai/whisper-large-v3-turbo"


@dataclass(frozen=True)
class ModelInfo:
    source: str
    device: str
    precision: str
    sample_rate: int


@dataclass(frozen=True)
class RenderRequest:
    """One Generate click: N takes of one text, in one batched engine call."""

    text: str
    language: str | None = None
    instruct: str | None = None
    reference: Path | None = None  # a clip to clone (a file, or a saved recording)
    ref_text: str | None = None  # None or empty: auto-transcribe
    preprocess: bool = True
    speed: float | None = None
    duration: float | None = None
    seeds: tuple[int | None, ...] = (None,)
    options: GenerationOptions = field(default_factory=GenerationOptions)
    mode: str = "clone"  # which view asked: "clone" or "design"


@dataclass(frozen=True)
class TakeAudio:
    audio: np.ndarray  # (T,) float32
    sample_rate: int
    seed: int


@dataclass(frozen=True)
class RenderResult:
    request: RenderRequest
    takes: tuple[TakeAudio, ...]
    seconds: float
    prompt_source: str
    device: str
    precision: str
    accel_requested: str
    accel_active: str
    fallback_reason: str | None
    warnings: tuple[str, ...] = ()

    @property
    def audio_seconds(self) -> float:
        return sum(t.audio.shape[-1] / t.sample_rate for t in self.takes)


@dataclass(frozen=True)
class AccelState:
    requested: str
    active: str
    reason: str | None  # why the active path differs from the requested one
