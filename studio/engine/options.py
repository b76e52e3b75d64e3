"""Render settings and their limits: plain dataclasses with no torch, so the
studio's views can build requests without loading the inference stack."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

MAX_TEXT_CHARS = 20_000
MAX_SECONDS = 1800.0  # longest output one item may ask for (speed or duration)
SPEED_RANGE = (0.25, 4.0)
# The choices a user makes, declared once: the CLI's options, Settings' combos and
# `serve` offer exactly these (tests/test_choices.py holds them to it).
DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
# "padded" / "packed": see GenerationOptions.decode_mode.
DECODE_MODES = ("auto", "padded", "packed")
# studio.engine.accel.accelerator says what each does and when it falls back; "graph" is
# CUDA graphs on the standard padded path (studio.engine.accel.padded_graph); "auto" the
# fastest mode recorded GPU measurements show exact or as accurate as bf16
# (studio.engine.accel.evidence), the standard path until there are some.
ACCEL_MODES = ("off", "auto", "graph", "compile", "flashinfer", "flashinfer-graph")
# Every precision a user can ask for (studio.engine.precision says what each means);
# the CLI, Settings and serve all offer this list.
PRECISION_CHOICES = ("auto", "fp32", "bf16", "fp16", "int8")
# "quick-start": a short first chunk, each next one at most twice as long, joined so the
# audio can be handed over chunk by chunk (studio.engine.stream); "reference": the
# reference's chunks and its post-processing of the whole text (the conformance tests').
CHUNKINGS = ("quick-start", "reference")


@dataclass(frozen=True)
class DecodeOptions:
    num_step: int = 32
    guidance_scale: float = 2.0
    t_shift: float = 0.1
    layer_penalty: float = 5.0
    position_temperature: float = 5.0
    class_temperature: float = 0.0


# What the model can use, checked once for the CLI, the studio and every later caller
# (docs/troubleshooting.md lists them): past these, the schedule, the penalties or the
# sampling overflow or only waste time. A temperature is 0 (deterministic) or in range.
MAX_STEPS = 256  # the reference uses 32; 64 is already past audible gains
GUIDANCE_RANGE = (0.0, 20.0)
T_SHIFT_RANGE = (0.001, 10.0)
LAYER_PENALTY_RANGE = (0.0, 100.0)
TEMPERATURE_RANGE = (0.01, 100.0)
# One seed range for every front end (form, CLI, serve, projects, saved voices): the form's
# seed box is a 32-bit QSpinBox and every seed the studio draws is 31 bits, so a seed any
# front end accepts can be typed back into the form and re-rendered there. torch's generator
# and SQLite would take 64 bits, but a seed only one front end could reach is drift.
MAX_SEED = 2**31 - 1
# Named step counts (the forms' buttons, the Script view's combo): name -> decoding steps.
# 12 steps were indistinguishable from 32 in published paired-WER tests; 8 cost ~3 points.
# Kept as they are (docs/performance.md, "Quality presets in time"): on a 2-core Zen 4 in
# bf16 a step is ~2.5 s per 10 s of output, so Draft ~36 s, Standard ~46 s, Final ~86 s.
# Draft sits at the fewest steps with no measured loss; 8 would save ~10 s for a loss a
# preset name hides; Standard keeps margin for what WER does not measure (voice,
# prosody); Final is the reference's default.
PRESETS: Mapping[str, int] = MappingProxyType({"Draft": 12, "Standard": 16, "Final": 32})
DEFAULT_PRESET = "Standard"

DEFAULT_REPO = "k2-fsa/OmniVoice"  # the model used when nothing names another


def model_source(*choices) -> str:
    """The model a command uses: the first choice given (e.g. a subcommand's ``--model``,
    then the studio's), else the default repo id. Loading and recording both read this,
    so a take can never name another model than the one that rendered it."""
    for choice in choices:
        if choice:
            return str(choice)
    return DEFAULT_REPO


@dataclass(frozen=True)
class GenerationOptions:
    decode: DecodeOptions = field(default_factory=DecodeOptions)
    denoise: bool = True
    postprocess: bool = True
    chunk_duration: float = 15.0  # seconds of audio per chunk in long-form mode
    chunk_threshold: float = 30.0  # estimated seconds above which text is chunked (reference)
    chunking: str = "quick-start"
    first_chunk_duration: float = 4.0  # seconds of audio in the first quick-start chunk
    pad_duration: float = 0.1
    fade_duration: float = 0.1
    # "padded": the reference-equal batch layout; "packed": every document in one
    # row with per-document attention (studio.engine.packed), no padding compute;
    # "auto": whichever is faster on the device (resolve_decode_mode).
    decode_mode: str = "auto"


def resolve_decode_mode(mode: str, device) -> str:
    """The layout ``mode`` means on ``device`` (a torch.device or its type name).

    Auto is whichever measured faster there (docs/performance.md). On the CPU,
    packed: it does strictly less work (no padding columns, no S x S mask, heads on
    targets only) and ran 1.31x faster in fp32, 1.23x in bf16 at full size. On CUDA,
    padded: on an H200 in bf16 (benchmarks/gpu_check.sh) it matched packed at batch 1
    and ran 1.58x faster at batch 4 (why packed loses there is not measured yet),
    and it gave the reference's tokens. The FlashInfer runners always use packed.
    """
    if mode == "auto":
        kind = device.type if hasattr(device, "type") else str(device).split(":")[0]
        return "padded" if kind == "cuda" else "packed"
    return mode
