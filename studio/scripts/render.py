"""Rendering a script: its lines batched by voice, then placed one after another with
their pauses into a mix, per-speaker stems of the mix's length, and the spans that an
SRT of what was rendered needs.

Lines never overlap, so before loudness normalisation the stems sum to the mix exactly;
the mix's one gain (to the loudness target, or less where that would clip) is applied to
the stems too, so they still sum to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from studio.engine.errors import UserError
from studio.scripts.parse import Script

BATCH = 8  # lines of one voice per engine call
DEFAULT_LUFS = -16.0
PEAK_LIMIT = 10 ** (-0.1 / 20)  # -0.1 dBFS: the normalised mix never clips
CUE_FRAME_S = 0.04  # one codec frame: a cue's line is rendered to within this
CUE_RUSHED, CUE_DRAGGED = 1.6, 0.6  # natural-pace ratios past which a cue is warned about


@dataclass(frozen=True)
class VoiceSpec:
    """How one speaker sounds: a prompt (a saved voice or a clip, already encoded) and/or
    an instruct, and a seed locked for every line (None: each line its own)."""

    prompt: object = None  # studio.engine.prompt.VoicePrompt
    instruct: str | None = None
    seed: int | None = None
    language: str | None = None


@dataclass
class Rendered:
    mix: np.ndarray  # (T,) float32
    stems: dict[str, np.ndarray]  # speaker -> (T,) float32
    spans: list[tuple[int, int]]  # each line's [start, end) in samples
    seeds: list[int]
    sample_rate: int
    gain_db: float
    lufs: float | None  # the mix's loudness after normalisation
    warnings: list[str]
    fresh: dict[int, object] = field(default_factory=dict)  # line -> Rendering made now

    @property
    def seconds(self) -> float:
        return self.mix.size / self.sample_rate


def render_script(engine, script: Script, voices: dict[str, VoiceSpec], options, *,
                  seed: int | None = None, lufs: float = DEFAULT_LUFS, lexicon=None,
                  reuse: dict[int, tuple[np.ndarray, int]] | None = None,
                  on_line=None, cancel=None) -> Rendered:
    """Render every line of ``script`` in the voice of its speaker and mix them.

    ``seed`` gives line ``n`` the seed ``seed + n`` (a voice's locked seed wins);
    ``reuse`` maps a line's index to (audio, seed) rendered before (a project's chosen
    take), which is mixed as it is; ``on_line(done, total)`` reports each batch.
    """
    reuse = reuse or {}
    from studio.engine.engine import SynthesisItem

    missing = [s for s in script.speakers if s not in voices]
    if missing:
        raise UserError(f"The voice map has no voice for {', '.join(missing)}; add "
                        f"{'them' if len(missing) > 1 else 'it'} to the map.")
    warnings = list(script.warnings)
    # Script lines get their pauses from the mix, not the engine's padding; a line that
    # must fill a subtitle cue is one chunk rendered to the frame, untrimmed.
    base = replace(options, pad_duration=0.0)
    timed = replace(base, postprocess=False, first_chunk_duration=base.chunk_duration)
    items, groups = [], {}
    for n, line in enumerate(script.lines):
        voice = voices[line.speaker]
        line_seed = voice.seed if voice.seed is not None else (
            seed + n if seed is not None else None)
        items.append(SynthesisItem(line.text, language=voice.language, instruct=voice.instruct,
                                   prompt=voice.prompt, duration=line.duration, seed=line_seed,
                                   lexicon=lexicon))
        if n in reuse:
            continue
        groups.setdefault((line.speaker, line.duration is not None), []).append(n)
        if line.duration is not None:
            warnings += _cue_fit(engine, n, line, voice, base.chunk_duration)
    audio: list[np.ndarray | None] = [reuse[n][0] if n in reuse else None
                                      for n in range(len(items))]
    seeds: list[int] = [reuse[n][1] if n in reuse else 0 for n in range(len(items))]
    fresh = {}
    done = 0
    for (_speaker, is_timed), members in groups.items():
        for start in range(0, len(members), BATCH):
            batch = members[start:start + BATCH]
            renders = engine.synthesize([items[i] for i in batch], timed if is_timed else base,
                                        cancel=cancel)
            for i, render in zip(batch, renders):
                audio[i], seeds[i], fresh[i] = render.audio, render.seed, render
            done += len(batch)
            if on_line is not None:
                on_line(done, len(items))
    rendered = mix_lines(script, audio, seeds, engine.sample_rate, lufs, warnings)
    rendered.fresh = fresh
    return rendered


def _cue_fit(engine, n: int, line, voice: VoiceSpec, limit: float) -> list[str]:
    prompt = voice.prompt
    natural = (engine.durations.target_frames(line.text, None, None, 1.0) if prompt is None
               else engine.durations.target_frames(line.text, prompt.text,
                                                   prompt.tokens.shape[-1], 1.0))
    pace = natural / (line.duration * engine.info.frame_rate)
    out = []
    if pace > CUE_RUSHED or pace < CUE_DRAGGED:
        feel = "rushed" if pace > 1 else "drawn out"
        out.append(f"Line {n + 1} takes about {natural / engine.info.frame_rate:.1f} s at a "
                   f"natural pace but its cue is {line.duration:.1f} s; it will sound {feel}.")
    if line.duration > limit:
        out.append(f"Line {n + 1}'s cue is longer than {limit:g} s; it renders in chunks and "
                   "its length may miss the cue by more than a frame.")
    return out


def mix_lines(script: Script, audio, seeds, sr: int, lufs: float = DEFAULT_LUFS,
              warnings: list | None = None) -> Rendered:
    """The lines (one clip each, in order) placed with their pauses, the stems, the spans."""
    warnings = [] if warnings is None else warnings
    from studio.audio.loudness import loudness_lufs

    spans, pos = [], round(script.lead * sr)
    for line, clip in zip(script.lines, audio):
        spans.append((pos, pos + clip.size))
        pos += clip.size + round(line.pause_after * sr)
    total = max(pos, spans[-1][1])
    mix = np.zeros(total, np.float32)
    stems = {speaker: np.zeros(total, np.float32) for speaker in script.speakers}
    for line, clip, (start, end) in zip(script.lines, audio, spans):
        mix[start:end] += clip
        stems[line.speaker][start:end] += clip
    measured = loudness_lufs(mix, sr)
    gain = 1.0 if measured is None else 10 ** ((lufs - measured) / 20)
    peak = float(np.abs(mix).max()) if mix.size else 0.0
    if peak * gain > PEAK_LIMIT:
        gain = PEAK_LIMIT / peak
        warnings.append(f"The mix was made {_db(gain):+.1f} dB louder, short of {lufs:g} LUFS, "
                        "so that its peaks do not clip.")
    mix *= np.float32(gain)
    for stem in stems.values():
        stem *= np.float32(gain)
    return Rendered(mix, stems, spans, seeds, sr, round(_db(gain), 2),
                    loudness_lufs(mix, sr), warnings)


def _db(gain: float) -> float:
    return 20 * np.log10(gain) if gain > 0 else float("-inf")


def srt_text(script: Script, rendered: Rendered) -> str:
    """An SRT of what was rendered: each line's text at its span in the mix."""
    sr = rendered.sample_rate
    blocks = []
    for n, (line, (start, end)) in enumerate(zip(script.lines, rendered.spans), 1):
        speaker = f"{line.speaker}: " if len(script.speakers) > 1 else ""
        blocks.append(f"{n}\n{_stamp(start / sr)} --> {_stamp(end / sr)}\n{speaker}{line.text}\n")
    return "\n".join(blocks)


def chapters(script: Script, rendered: Rendered) -> list[dict]:
    """Where each Markdown chapter starts in the mix, in seconds."""
    sr = rendered.sample_rate
    return [{"title": line.chapter, "start": round(start / sr, 3)}
            for line, (start, _end) in zip(script.lines, rendered.spans) if line.chapter]


def _stamp(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"
