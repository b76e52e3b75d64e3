"""The Engine facade: one loaded checkpoint, and the calls the CLI and the worker make.

An Engine holds no per-render state: every render gets its own generators and
buffers, so a cancelled or failed render leaves it ready for the next one. It is
not thread-safe by design; one thread (the worker's) owns it.

Long because the facade is the one owner of a loaded checkpoint and every call on it;
the decode loops, text front end, prompts and audio steps are modules of their own.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from studio.engine import audio as audio_ops
from studio.engine.checkpoint import (
    CheckpointInfo,
    build_network,
    inspect_checkpoint,
    load_codec,
    load_text_tokenizer,
    resolve_checkpoint,
)
from studio.engine.cpu_layers import PrepackedLayers, prepack_supported
from studio.engine.decode import DecodeItem, decode
from studio.engine.duration import DurationEstimator
from studio.engine.inputs import build_item
from studio.engine.int8 import activation_levels, default_kernel, projection_converter
from studio.engine.items import SynthesisItem, Warn, check_item
from studio.engine.model import OmniVoiceNet
from studio.engine.options import (
    CHUNKINGS,
    DECODE_MODES,
    DEVICE_CHOICES,
    GUIDANCE_RANGE,
    LAYER_PENALTY_RANGE,
    MAX_STEPS,
    T_SHIFT_RANGE,
    TEMPERATURE_RANGE,
    DecodeOptions,
    GenerationOptions,
    model_source,
    resolve_decode_mode,
)
from studio.engine.packed import decode_packed
from studio.engine.precision import choose_precision, precision_name
from studio.engine.prompt import VoicePrompt
from studio.engine.reference import prepared_reference
from studio.engine.stream import Joiner, StreamChunk
from studio.engine.text import (
    add_punctuation,
    check_code_points,
    chunk_text,
    is_blank,
    quick_start_chunks,
    split_pauses,
    strip_pauses,
)
from studio.errors import UserError

log = logging.getLogger(__name__)

LONG_REFERENCE_S = 20.0





@dataclass
class Rendering:
    audio: np.ndarray  # (T,) float32 at ``sample_rate``
    sample_rate: int
    tokens: list[torch.Tensor]  # one (C, T) int64 CPU tensor per chunk
    seed: int


@dataclass(frozen=True)
class Progress:
    step: int
    steps: int
    chunk: int
    chunks: int


ProgressCallback = Callable[[Progress], None]
ChunkCallback = Callable[[StreamChunk], None]


@dataclass
class _Job:
    """One item after validation, as the decode loop needs it."""

    text: str
    language: str | None
    instruct: str | None
    prompt: VoicePrompt | None
    target_len: int
    speed: float | None
    generator: torch.Generator
    seed: int




def long_reference_note(seconds: float) -> str | None:
    """The warning for a reference clip of ``seconds`` (after trimming), if it is too long."""
    if seconds <= LONG_REFERENCE_S:
        return None
    return (
        f"The reference clip is {seconds:.1f} s long; clips over {LONG_REFERENCE_S:.0f} s "
        "render slower and clone worse, so trim it to 3-10 s."
    )


def pick_device(device: str = "auto") -> torch.device:
    if device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise UserError("CUDA was requested but no CUDA GPU is available; choose the device cpu or auto.")
    if device == "mps" and not torch.backends.mps.is_available():
        raise UserError("MPS was requested but this machine has no Apple GPU; choose the device cpu or auto.")
    if device not in ("cpu", "mps") and not device.startswith("cuda"):
        raise UserError(f"Unknown device {device!r}; use {', '.join(DEVICE_CHOICES[:-1])} or "
                        f"{DEVICE_CHOICES[-1]}.")
    return torch.device(device)


def pick_precision(precision: str, device: torch.device) -> torch.dtype:
    return choose_precision(precision, device).dtype




def check_options(options: GenerationOptions) -> None:
    """Refuse settings that would only fail deep inside the decode loop."""
    if options.chunking not in CHUNKINGS:
        raise UserError(f"Unknown chunking {options.chunking!r}; use {', '.join(CHUNKINGS)}.")
    if not (math.isfinite(options.first_chunk_duration) and 1.0 <= options.first_chunk_duration
            <= options.chunk_duration):
        raise UserError(f"The first chunk must be from 1 to {options.chunk_duration:g} seconds "
                        f"long; got {options.first_chunk_duration:g}.")
    if options.decode_mode not in DECODE_MODES:
        raise UserError(
            f"Unknown decode mode {options.decode_mode!r}; use {', '.join(DECODE_MODES)}."
        )
    d = options.decode
    if isinstance(d.num_step, bool) or not isinstance(d.num_step, int) \
            or not 1 <= d.num_step <= MAX_STEPS:
        raise UserError(f"The number of steps must be a whole number from 1 to {MAX_STEPS} "
                        f"(32 is the default); got {d.num_step}.")
    for name, value, (low, high) in (
        ("guidance", d.guidance_scale, GUIDANCE_RANGE),
        ("t-shift", d.t_shift, T_SHIFT_RANGE),
        ("layer penalty", d.layer_penalty, LAYER_PENALTY_RANGE),
    ):
        if not (math.isfinite(value) and low <= value <= high):
            raise UserError(f"The {name} must be from {low:g} to {high:g}; got {value:g}.")
    for name, value in (("position temperature", d.position_temperature),
                        ("class temperature", d.class_temperature)):
        low, high = TEMPERATURE_RANGE
        if not (math.isfinite(value) and (value == 0 or low <= value <= high)):
            raise UserError(f"The {name} must be 0 (deterministic) or from {low:g} to {high:g}; "
                            f"got {value:g}.")


class Engine:
    def __init__(self, net: OmniVoiceNet, tokenizer, codec, info: CheckpointInfo, device, dtype):
        self.net = net
        self.tokenizer = tokenizer
        self.codec = codec
        self.info = info
        self.device = torch.device(device)
        self.dtype = dtype
        self.durations = DurationEstimator()
        # An accelerated packed layer stack, or the padded graph runner (its
        # ``layout`` is "padded"; studio.engine.accel), set and cleared only by an
        # Accelerator; None is the standard path.
        self.layers = None
        self.precision = precision_name(dtype)  # "int8" where the projections are int8
        self.precision_reason = "requested"  # why this precision (Engine.load fills it in)
        self.source = str(info.root)  # Engine.load sets the source as it was asked for
        # bf16 on a CPU with oneDNN bf16: the packed path runs on prepacked
        # weights (studio.engine.cpu_layers), built on first use in place of the plain
        # ones (one copy); False before that first use keeps the plain weights.
        self.cpu_prepack = True
        self._prepacked = None

    @classmethod
    def load(
        cls, source: str | Path | None = None, device: str = "auto", precision: str = "auto"
    ) -> Engine:
        """Load a checkpoint folder or a cached repo id (see ``checkpoint``)."""
        info = inspect_checkpoint(resolve_checkpoint(source))
        dev = pick_device(device)
        choice = choose_precision(precision, dev)
        dtype = choice.dtype
        tokenizer = load_text_tokenizer(info)
        # int8: each projection is quantised as it is read (its fp32 weight freed at once).
        convert = None
        if choice.name == "int8":
            levels = activation_levels(default_kernel())
            convert = projection_converter(plan=dict(choice.plan), levels=levels)
            if levels < 127:
                choice = replace(choice, reason=f"{choice.reason}; 7-bit activations: this CPU "
                                                f"adds int8 products in 16 bits (no VNNI)")
        net = build_network(info, dev, dtype, convert)
        # The codec's convolutions exceed MPS limits, so it stays on the CPU there.
        codec = load_codec(info, torch.device("cpu") if dev.type == "mps" else dev)
        engine = cls(net, tokenizer, codec, info, dev, dtype)
        engine.precision, engine.precision_reason = choice.name, choice.reason
        engine.source = model_source(source)  # what it was loaded from, as takes record it
        return engine

    @property
    def sample_rate(self) -> int:
        return self.info.sample_rate

    # ------------------------------------------------------------------ prompts

    def create_prompt(
        self,
        reference: str | Path | tuple[np.ndarray, int],
        ref_text: str | None = None,
        preprocess: bool = True,
        transcribe: Callable[[np.ndarray, int], str] | None = None,
        warn: Warn | None = None,
    ) -> VoicePrompt:
        """Encode a reference clip (a path or ``(waveform, sample_rate)``).

        With no ``ref_text`` the clip is transcribed by ``transcribe``; without one
        that is a UserError, never a silent download of an ASR model.
        """
        sr = self.sample_rate
        if isinstance(reference, (str, Path)):
            wave = audio_ops.load_reference(reference, sr)
            name = str(reference)
        else:
            waveform, rate = reference
            wave = audio_ops.resample(audio_ops.to_mono(np.asarray(waveform, np.float32)), rate, sr)
            name = "the reference audio"
        if ref_text is not None:
            check_code_points(ref_text, "transcript")
            if is_blank(ref_text):
                ref_text = None
        hop = self.info.hop_length
        wave, rms = prepared_reference(wave, sr, name, transcribed=ref_text is None,
                                       preprocess=preprocess, hop=hop)
        seconds = wave.shape[-1] / sr
        note = long_reference_note(seconds)
        if note and warn is not None:
            warn(note)
        if ref_text is None:
            if transcribe is None:
                raise UserError(
                    "No transcript was given for the reference clip; type it (--ref-text) or "
                    "enable auto-transcription."
                )
            ref_text = transcribe(wave, sr)
        usable = wave.shape[-1] - wave.shape[-1] % hop
        with torch.inference_mode():
            batch = torch.from_numpy(np.ascontiguousarray(wave[:, :usable])).to(self.codec.device)
            tokens = self.codec.encode(batch.unsqueeze(0)).audio_codes.squeeze(0)
        if preprocess:
            ref_text = add_punctuation(ref_text)
        return VoicePrompt(tokens=tokens.to("cpu", torch.long), text=ref_text, rms=rms)

    # ---------------------------------------------------------------- synthesis

    def _estimate(self, text: str, prompt: VoicePrompt | None, speed: float) -> int:
        text = strip_pauses(text)  # a pause tag is silence, not speech
        if prompt is None:
            return self.durations.target_frames(text, None, None, speed)
        return self.durations.target_frames(text, prompt.text, prompt.tokens.shape[-1], speed)

    def _prepare(self, item: SynthesisItem, warn: Warn | None) -> _Job:
        language, instruct = check_item(item, warn)
        text = item.lexicon.apply(item.text, language) if item.lexicon else item.text
        if item.prompt is not None and item.prompt.tokens.shape[0] != self.info.audio.codebooks:
            raise UserError("The voice prompt was made for another codec; create it again with this model.")
        # 31 bits: a fresh seed fits the studio's seed field (a 32-bit spin box), so any
        # take's seed can be typed back in to render it again.
        seed = item.seed if item.seed is not None else secrets.randbits(31)
        generator = torch.Generator(device=self.device).manual_seed(seed)
        if item.duration is not None:
            estimate = self._estimate(text, item.prompt, 1.0)
            target = max(1, int(item.duration * self.info.frame_rate))
            speed = estimate / target  # so long-form chunks scale the same way
        else:
            target = self._estimate(text, item.prompt, item.speed or 1.0)
            speed = item.speed
        return _Job(text, language, instruct, item.prompt, target, speed, generator, seed)

    def _item(self, job: _Job, text: str, target: int, ref: VoicePrompt | None, ref_text=None,
              ref_tokens=None, options: GenerationOptions | None = None) -> DecodeItem:
        return build_item(
            self.tokenizer,
            text,
            target,
            self.info.audio.codebooks,
            self.info.audio.mask_id,
            ref_text=ref.text if ref is not None else ref_text,
            ref_tokens=ref.tokens if ref is not None else ref_tokens,
            language=job.language,
            instruct=job.instruct,
            denoise=options.denoise,
            generator=job.generator,
        )

    def synthesize(
        self,
        items: Sequence[SynthesisItem],
        options: GenerationOptions | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        warn: Warn | None = None,
        on_chunk: ChunkCallback | None = None,
    ) -> list[Rendering]:
        """Render a batch of items.

        Quick-start chunking (the default) hands each chunk's finished audio to
        ``on_chunk`` as soon as it is decoded; the renderings returned are those
        chunks joined. Reference chunking renders in as few network passes as the
        reference would and post-processes each text whole, so it cannot stream.
        """
        if not items:
            return []
        options = options if options is not None else GenerationOptions()
        check_options(options)
        if on_chunk is not None and options.chunking != "quick-start":
            raise UserError("Streaming needs quick-start chunking; the reference's chunking "
                            "post-processes the whole text at once.")
        jobs = [self._prepare(item, warn) for item in items]
        if options.chunking != "quick-start" and any(strip_pauses(j.text) != j.text
                                                     for j in jobs):
            raise UserError("Pause tags need quick-start chunking; the reference's chunking "
                            "reads the text whole.")
        if options.chunking == "quick-start":
            return self._quick_start(jobs, options, on_progress, cancel, on_chunk)
        threshold = int(options.chunk_threshold * self.info.frame_rate)
        short = [i for i, job in enumerate(jobs) if job.target_len <= threshold]
        long = [i for i, job in enumerate(jobs) if job.target_len > threshold]
        # Long items are planned up front so progress can say "chunk j of m".
        plans = {i: self._chunks(jobs[i], options) for i in long}
        groups = [[i for i in long if (jobs[i].prompt is None) == none] for none in (False, True)]
        passes = (1 if short else 0) + sum(
            max((len(plans[i]) for i in group), default=0) for group in groups
        )
        counter = _PassCounter(passes, options.decode.num_step, on_progress)
        results: dict[int, list[torch.Tensor]] = {}

        if short:
            batch = [self._item(jobs[i], jobs[i].text, jobs[i].target_len, jobs[i].prompt,
                                options=options) for i in short]
            tokens = self._run(batch, options, counter, cancel)
            for i, t in zip(short, tokens):
                results[i] = [t]
        for group in groups:
            if group:
                results.update(self._long_form(group, jobs, plans, options, counter, cancel))

        return [self._finish(results[i], jobs[i], options) for i in range(len(jobs))]

    def _chars(self, job: _Job, seconds: float) -> int:
        """How many of the job's characters take about ``seconds`` to say."""
        frames_per_char = job.target_len / max(1, len(strip_pauses(job.text).strip()))
        return int(seconds * self.info.frame_rate / frames_per_char)

    def _chunks(self, job: _Job, options: GenerationOptions) -> list[str]:
        return chunk_text(job.text, self._chars(job, options.chunk_duration), min_chunk_len=3)

    def _quick_start(self, jobs, options, on_progress, cancel, on_chunk) -> list[Rendering]:
        """Every item chunk by chunk, the same chunk index of all items in one pass; each
        chunk is decoded to audio and joined (studio.engine.stream) right after its pass."""
        planned = [self._plan(job, options) for job in jobs]
        plans = [plan for _lead, plan, _pauses in planned]
        passes = max(len(plan) for plan in plans)
        counter = _PassCounter(passes, options.decode.num_step, on_progress)
        sr = self.sample_rate
        joiners = [
            Joiner(sr, len(plan), job.prompt.rms if job.prompt is not None else None,
                   postprocess=options.postprocess, pad_s=options.pad_duration,
                   fade_s=options.fade_duration, lead_s=lead)
            for job, (lead, plan, _pauses) in zip(jobs, planned)
        ]
        tokens: list[list[torch.Tensor]] = [[] for _ in jobs]
        for index in range(passes):
            members = [i for i, plan in enumerate(plans) if index < len(plan)]
            batch = [self._chunk_item(jobs[i], plans[i], index, tokens[i], options)
                     for i in members]
            for i, t in zip(members, self._run(batch, options, counter, cancel)):
                tokens[i].append(t)
                start = joiners[i].emitted
                audio = joiners[i].add(self._decode_audio(t), planned[i][2][index])
                if on_chunk is not None:
                    on_chunk(StreamChunk(i, index, len(plans[i]), audio, start, sr))
        return [Rendering(joiner.audio(), sr, chunks, job.seed)
                for joiner, chunks, job in zip(joiners, tokens, jobs)]

    def _plan(self, job: _Job, options: GenerationOptions) -> tuple[float, list[str], list[float]]:
        """The job's chunks: (silence before them, their texts, the silence after each).

        The first part before a pause tag starts with a short chunk; parts after a
        pause are chunked as usual (the pause gives the render time to catch up)."""
        parts = split_pauses(job.text)
        lead = 0.0
        if not parts[0][0]:  # the text opens with a pause
            lead, parts = parts[0][1], parts[1:]
        first = self._chars(job, options.first_chunk_duration)
        size = self._chars(job, options.chunk_duration)
        texts: list[str] = []
        pauses: list[float] = []
        for n, (part, pause) in enumerate(parts):
            pieces = (quick_start_chunks(part, first, size, min_chunk_len=3) if n == 0
                      else chunk_text(part, size, min_chunk_len=3)) or [part]
            texts += pieces
            pauses += [0.0] * (len(pieces) - 1) + [pause]
        return lead, texts, pauses

    def _chunk_item(self, job: _Job, plan: list[str], index: int, done: list[torch.Tensor],
                    options: GenerationOptions) -> DecodeItem:
        """Chunk ``index`` of a job: cloned from its prompt, or, for a design voice, from
        its own first chunk (which keeps the voice the same across the text)."""
        text = plan[index]
        if len(plan) == 1 and plan[0] == job.text.strip():  # as the reference renders a short text
            return self._item(job, job.text, job.target_len, job.prompt, options=options)
        speed = job.speed or 1.0
        if job.prompt is not None:
            return self._item(job, text, self._estimate(text, job.prompt, speed), job.prompt,
                              options=options)
        if index == 0:
            target = self.durations.target_frames(text, None, None, speed)
            return self._item(job, text, target, None, options=options)
        frames = done[0].shape[-1]
        target = self.durations.target_frames(text, plan[0], frames, speed)
        return self._item(job, text, target, None, plan[0], done[0], options)

    def _decode_audio(self, tokens: torch.Tensor) -> np.ndarray:
        with torch.inference_mode():
            return (self.codec.decode(tokens.to(self.codec.device).unsqueeze(0)).audio_values[0]
                    .float().cpu().numpy())

    def _long_form(self, group, jobs, plans, options, counter, cancel):
        """Chunk by chunk, batching the same chunk index across items.

        With a reference every chunk is cloned from it; without one, chunk 0 is
        rendered first and then serves as the reference for the rest, which keeps
        the voice consistent across a long text.
        """
        out: dict[int, list[torch.Tensor]] = {i: [] for i in group}
        longest = max(len(plans[i]) for i in group)
        for index in range(longest):
            members = [i for i in group if index < len(plans[i])]
            batch = []
            for i in members:
                job, text = jobs[i], plans[i][index]
                if job.prompt is not None:
                    ref, ref_text, ref_tokens = job.prompt, None, None
                elif index == 0:
                    ref, ref_text, ref_tokens = None, None, None
                else:
                    ref, ref_text, ref_tokens = None, plans[i][0], out[i][0]
                frames = ref_tokens.shape[-1] if ref_tokens is not None else None
                if ref is not None:
                    target = self._estimate(text, ref, job.speed or 1.0)
                else:
                    target = self.durations.target_frames(text, ref_text, frames, job.speed or 1.0)
                batch.append(self._item(job, text, target, ref, ref_text, ref_tokens, options))
            for i, t in zip(members, self._run(batch, options, counter, cancel)):
                out[i].append(t)
        return out

    def _run(self, batch, options, counter, cancel) -> list[torch.Tensor]:
        counter.next_pass()
        if getattr(self.layers, "layout", None) == "padded":  # CUDA graphs on the exact path
            tokens = decode(self.net, batch, options.decode, counter.on_step, cancel,
                            forward=self.layers)
        elif self.layers is not None:  # the other accelerated runners work on the packed layout
            tokens = decode_packed(self.net, batch, options.decode, counter.on_step, cancel,
                                   layers=self.layers)
        else:
            if resolve_decode_mode(options.decode_mode, self.device) == "packed":
                tokens = decode_packed(self.net, batch, options.decode, counter.on_step, cancel,
                                       layers=self._cpu_layers())
            else:
                tokens = decode(self.net, batch, options.decode, counter.on_step, cancel)
        return [t.to("cpu") for t in tokens]

    def _cpu_layers(self):
        """The prepacked bf16 layer stack where it applies, else None (the standard stack)."""
        if not self.cpu_prepack:
            return None
        if self._prepacked is None and prepack_supported(self.net):
            self._prepacked = PrepackedLayers(self.net)
        return self._prepacked

    def _finish(self, chunks: list[torch.Tensor], job: _Job, options: GenerationOptions) -> Rendering:
        sr = self.sample_rate
        pieces = [self._decode_audio(t) for t in chunks]
        wave = audio_ops.cross_fade_chunks(pieces, sr)
        if options.postprocess:
            trimmed = audio_ops.remove_silence(wave, sr, 500, 100, 100)
            # An all-silent render keeps its length instead of becoming an empty
            # clip (the reference crashes on it); take checks flag it as silent.
            wave = trimmed if trimmed.size else wave
        rms = job.prompt.rms if job.prompt is not None else None
        if rms is not None and rms < 0.1:
            wave = wave * (rms / 0.1)  # give back the quiet reference its own level
        elif rms is None and wave.size:
            peak = float(np.abs(wave).max())
            if peak > 1e-6:
                wave = wave / peak * 0.5
        wave = audio_ops.fade_and_pad(wave, sr, options.pad_duration, options.fade_duration)
        return Rendering(
            audio=np.ascontiguousarray(wave.reshape(-1), dtype=np.float32),
            sample_rate=sr,
            tokens=chunks,
            seed=job.seed,
        )


class _PassCounter:
    """Turns per-pass step callbacks into (step, steps, chunk, chunks) progress."""

    def __init__(self, passes: int, steps: int, on_progress: ProgressCallback | None):
        self.passes, self.steps, self.on_progress, self.current = passes, steps, on_progress, 0

    def next_pass(self) -> None:
        self.current += 1

    def on_step(self, step: int, steps: int) -> None:
        if self.on_progress is not None:
            self.on_progress(Progress(step, steps, self.current, self.passes))


__all__ = [
    "DecodeOptions",
    "Engine",
    "GenerationOptions",
    "Progress",
    "Rendering",
    "StreamChunk",
    "SynthesisItem",
    "long_reference_note",
    "pick_device",
    "pick_precision",
    "precision_name",
]
