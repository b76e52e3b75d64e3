"""Plain dataclasses that cross the thread boundary: requests in, results out.

Audio crosses as CPU numpy arrays, never as tensors, so nothing on the main
thread ever touches the worker's device.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from studio.engine.options import GenerationOptions
from studio.judges.scores import WEIGHTS

PASS_AT = 0.7  # the combined score a take needs to pass (with no judge saying bad)


@dataclass(frozen=True)
class JudgingSettings:
    """Settings → Judging as the worker reads it: judge each take after its render, how
    much each judge counts in the combined score, and the score a take needs to pass."""

    enabled: bool = True
    weights: tuple[tuple[str, float], ...] = tuple(WEIGHTS.items())
    pass_at: float = PASS_AT


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
    retention_days: float = 0.0  # prune unstarred takes older than this on start-up; 0 keeps all
    asr_check: bool = False  # transcribe every take and store its character error rate
    judging: JudgingSettings | None = None  # None: no judging (the studio passes Settings')


@dataclass(frozen=True)
class ModelInfo:
    source: str
    device: str
    precision: str
    sample_rate: int
    precision_reason: str = ""  # why this precision, e.g. "auto: CPU has native bf16 (avx512_bf16)"
    hop_length: int = 960  # samples per codec frame: a shorter clip cannot be encoded


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
    voice_id: str | None = None  # the saved voice the reference came from, if any
    stream: bool = False  # hand the first take's chunks over as they render (chunk_ready)
    project: str | None = None  # a script line's: its project file, filed with the take
    project_line: int | None = None  # ... and the line's number in the script
    until_pass: bool = False  # render the seeds one at a time, judged, until one passes


@dataclass(frozen=True)
class VoiceSaveRequest:
    """Save a reference clip as a named voice (Clone's Save as voice, a take's Save as voice…)."""

    name: str
    clip: Path
    transcript: str | None = None  # None or empty: transcribe, and keep what Whisper heard
    preprocess: bool = True
    tags: tuple[str, ...] = ()
    language: str | None = None
    replace: bool = False  # a voice already of that name is replaced, not refused
    instruct: str | None = None  # a designed take's attributes, kept with the voice


@dataclass(frozen=True)
class TakeAudio:
    audio: np.ndarray  # (T,) float32
    sample_rate: int
    seed: int
    take_id: str | None = None  # its row in the take library; None when saving failed
    judgement: dict | None = None  # studio.service.judging.TakeJudgement.to_dict(); None: not judged


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
    batch: str | None = None  # the take library's batch id of these takes
    first_audio_seconds: float | None = None  # from the job's start to its first chunk (stream)
    judging_note: str | None = None  # which take passed (render until one passes), for the status

    @property
    def audio_seconds(self) -> float:
        return sum(t.audio.shape[-1] / t.sample_rate for t in self.takes)


@dataclass(frozen=True)
class AccelState:
    requested: str
    active: str
    reason: str | None  # why the active path differs from the requested one


@dataclass(frozen=True)
class LinesRequest:
    """Render lines of a script: each a one-take RenderRequest (its text, voice and seed),
    batched on the worker by voice and settings, in the order given; ``keys`` name the
    lines for the view (a project's line ids), one per request."""

    lines: tuple[RenderRequest, ...]
    keys: tuple[int, ...]
    dictionary: object = None  # the project's Lexicon, before the data folder's own


@dataclass(frozen=True)
class LineDone:
    """One line rendered (``line_rendered``): the key it was asked under and its take."""

    key: int
    take: TakeAudio
    index: int  # 0-based position in the request
    total: int


@dataclass(frozen=True)
class LinesResult:
    """A lines job ended (``lines_finished``): how many lines, how long, what to say."""

    rendered: int
    seconds: float
    audio_seconds: float
    warnings: tuple[str, ...] = ()
