"""Rendering a script: its lines batched by voice, then placed one after another with
their pauses into a mix, per-speaker stems, and the spans that an SRT of what was rendered
needs.

The mix is never held whole: a :class:`Rendered` keeps each line's audio and its place,
and streams the mix (or one speaker's stem) in blocks with the silence between lines
made as it goes, so memory follows the speech, not speakers x timeline (a two-hour
subtitle file of a few short lines costs what its lines cost). Loudness is measured by
streaming the mix through a :class:`~studio.sound.loudness.LoudnessMeter`.

Lines never overlap, so before loudness normalisation the stems sum to the mix exactly;
the mix's one gain (to the loudness target, or less where that would clip) is applied to
the stems too, so they still sum to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from studio.errors import UserError
from studio.scripts.parse import Script

BATCH = 8  # lines of one voice per engine call
DEFAULT_LUFS = -16.0
PEAK_LIMIT = 10 ** (-0.1 / 20)  # -0.1 dBFS: the normalised mix never clips
CUE_FRAME_S = 0.04  # one codec frame: a cue's line is rendered to within this
CUE_RUSHED, CUE_DRAGGED = 1.6, 0.6  # natural-pace ratios past which a cue is warned about
CHUNK = 1 << 16  # samples per streamed block of the mix (2.7 s at 24 kHz, 256 KB)
MAX_MIX_HOURS = 24  # a longer timeline is a mistake in its times, and would fill a disk


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
    clips: list[np.ndarray]  # each line's audio (T,) float32, before the gain
    speakers: list[str]  # each line's speaker
    spans: list[tuple[int, int]]  # each line's [start, end) in samples
    length: int  # the mix's length in samples
    seeds: list[int]
    sample_rate: int
    gain: float  # linear, applied to every line
    lufs: float | None  # the mix's loudness after normalisation
    warnings: list[str]
    fresh: dict[int, object] = field(default_factory=dict)  # line -> Rendering made now
    # line -> every Rendering made now for it (best of N); fresh[line] is the one picked
    takes: dict[int, list] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return self.length / self.sample_rate

    @property
    def gain_db(self) -> float:
        return round(_db(self.gain), 2)

    def chunks(self, speaker: str | None = None, size: int = CHUNK):
        """The mix (or ``speaker``'s stem), gain applied, as float32 blocks of at most
        ``size`` samples that together are its whole length."""
        silence = np.zeros(min(size, max(self.length, 1)), np.float32)
        for piece in _pieces(self, speaker, size, self.gain):
            if isinstance(piece, int):
                for start in range(0, piece, size):
                    yield silence[:min(size, piece - start)]
            else:
                yield piece

    @property
    def mix(self) -> np.ndarray:
        """The whole mix in memory: for playing a project and for tests; files stream
        :meth:`chunks` instead."""
        return self._whole(None)

    def stem(self, speaker: str) -> np.ndarray:
        """One speaker's whole stem in memory (see :attr:`mix`)."""
        return self._whole(speaker)

    def _whole(self, speaker: str | None) -> np.ndarray:
        blocks = list(self.chunks(speaker))
        return np.concatenate(blocks) if blocks else np.zeros(0, np.float32)


def _pieces(rendered: Rendered, speaker: str | None, size: int, gain: float):
    """The timeline in windows of ``size``: an array where a line sounds (lines placed
    by adding, so even overlapping ones mix), the number of samples of a silent run."""
    chosen = [n for n, who in enumerate(rendered.speakers) if speaker in (None, who)]
    starts = np.array([rendered.spans[n][0] for n in chosen], np.int64)
    ends = np.array([rendered.spans[n][1] for n in chosen], np.int64)
    scale = np.float32(gain)
    quiet = 0
    for a in range(0, rendered.length, size):
        b = min(a + size, rendered.length)
        here = np.nonzero((starts < b) & (ends > a))[0]
        if here.size == 0:
            quiet += b - a
            continue
        if quiet:
            yield quiet
            quiet = 0
        window = np.zeros(b - a, np.float32)
        for i in here.tolist():
            clip, start = rendered.clips[chosen[i]], int(starts[i])
            lo, hi = max(a, start), min(b, start + clip.size)
            window[lo - a:hi - a] += clip[lo - start:hi - start]
        if gain != 1.0:
            window *= scale
        yield window
    if quiet:
        yield quiet


def render_script(engine, script: Script, voices: dict[str, VoiceSpec], options, *,
                  seed: int | None = None, lufs: float = DEFAULT_LUFS, lexicon=None,
                  reuse: dict[int, tuple[np.ndarray, int]] | None = None,
                  on_line=None, cancel=None, takes: int = 1, choose=None) -> Rendered:
    """Render every line of ``script`` in the voice of its speaker and mix them.

    ``seed`` gives line ``n`` the seed ``seed + n`` (a voice's locked seed wins);
    ``reuse`` maps a line's index to (audio, seed) rendered before (a project's chosen
    take), which is mixed as it is; ``on_line(done, total)`` reports each batch.
    ``takes``: each line rendered that many times (seeds base, base+1, ...), and
    ``choose(line_index, renderings)`` gives the index of the one mixed (default: the
    first); all of them are kept in :attr:`Rendered.takes`.
    """
    reuse = reuse or {}
    from studio.service.judging import take_seeds
    from studio.service.lines import check_spoken
    from studio.service.voices import synthesis_items

    for n, line in enumerate(script.lines, 1):
        check_spoken(line.text, n)  # before any line renders, not after minutes of them
    missing = [s for s in script.speakers if s not in voices]
    if missing:
        raise UserError(f"The voice map has no voice for {', '.join(missing)}; add "
                        f"{'them' if len(missing) > 1 else 'it'} to the map.")
    check_timeline(script)
    warnings = list(script.warnings)
    # Script lines get their pauses from the mix, not the engine's padding; a line that
    # must fill a subtitle cue is one chunk rendered to the frame, untrimmed.
    base = replace(options, pad_duration=0.0)
    timed = replace(base, postprocess=False, first_chunk_duration=base.chunk_duration)
    items, groups = [], {}  # items[n][k]: line n's take k
    for n, line in enumerate(script.lines):
        voice = voices[line.speaker]
        line_seed = voice.seed if voice.seed is not None else (
            seed + n if seed is not None else None)
        items.append(synthesis_items(line.text, take_seeds(line_seed, takes),
                                     language=voice.language, instruct=voice.instruct,
                                     prompt=voice.prompt, duration=line.duration,
                                     lexicon=lexicon))
        if n in reuse:
            continue
        groups.setdefault((line.speaker, line.duration is not None), []).extend(
            (n, k) for k in range(takes))
        if line.duration is not None:
            warnings += _cue_fit(engine, n, line, voice, base.chunk_duration)
    made: dict[int, list] = {n: [None] * takes for n in range(len(items)) if n not in reuse}
    for (_speaker, is_timed), members in groups.items():
        for start in range(0, len(members), BATCH):
            batch = members[start:start + BATCH]
            renders = engine.synthesize([items[n][k] for n, k in batch],
                                        timed if is_timed else base, cancel=cancel)
            for (n, k), render in zip(batch, renders):
                made[n][k] = render
            if on_line is not None:  # a line is done once all its takes are in
                done = sum(None not in renders for renders in made.values())
                on_line(done, len(items))
    audio: list[np.ndarray | None] = [reuse[n][0] if n in reuse else None
                                      for n in range(len(items))]
    seeds: list[int] = [reuse[n][1] if n in reuse else 0 for n in range(len(items))]
    fresh = {}
    for n, renders in made.items():
        pick = choose(n, renders) if choose is not None and takes > 1 else 0
        audio[n], seeds[n], fresh[n] = renders[pick].audio, renders[pick].seed, renders[pick]
    rendered = mix_lines(script, audio, seeds, engine.sample_rate, lufs, warnings)
    rendered.fresh = fresh
    rendered.takes = made
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


def check_timeline(script: Script, seconds: float | None = None) -> None:
    """One sentence when the mix would be longer than a mix may be: ``seconds`` when known,
    else the silence and cue spans the script asks for (its speech comes on top). The
    audio is streamed, so the bound is for the disk and the time, not memory."""
    if seconds is None:
        seconds = script.lead + sum(line.pause_after + (line.duration or 0.0)
                                    for line in script.lines)
    if not seconds <= MAX_MIX_HOURS * 3600:  # NaN too
        raise UserError(f"The script's timeline would be {seconds / 3600:,.0f} hours long; a "
                        f"mix is at most {MAX_MIX_HOURS} hours, so check its times and pauses.")


def mix_lines(script: Script, audio, seeds, sr: int, lufs: float = DEFAULT_LUFS,
              warnings: list | None = None) -> Rendered:
    """The lines (one clip each, in order) placed with their pauses, and the one gain that
    brings the mix to ``lufs`` without clipping; the mix itself is streamed when asked."""
    warnings = [] if warnings is None else warnings
    clips = [np.asarray(clip, np.float32).reshape(-1) for clip in audio]
    spans, pos = [], round(script.lead * sr)
    for line, clip in zip(script.lines, clips):
        spans.append((pos, pos + clip.size))
        pos += clip.size + round(line.pause_after * sr)
    length = max(pos, spans[-1][1]) if spans else max(pos, 0)
    check_timeline(script, length / sr)
    rendered = Rendered(clips, [line.speaker for line in script.lines], spans, length,
                        list(seeds), sr, 1.0, None, warnings)
    measured, peak = _measure(rendered, 1.0)
    gain = 1.0 if measured is None else 10 ** ((lufs - measured) / 20)
    if peak * gain > PEAK_LIMIT:
        gain = PEAK_LIMIT / peak
        warnings.append(f"The mix was made {_db(gain):+.1f} dB louder, short of {lufs:g} LUFS, "
                        "so that its peaks do not clip.")
    rendered.gain = gain
    rendered.lufs = _measure(rendered, gain)[0] if gain != 1.0 else measured
    return rendered


def _measure(rendered: Rendered, gain: float) -> tuple[float | None, float]:
    """The mix's loudness and peak at ``gain``, streamed."""
    from studio.sound.loudness import LoudnessMeter

    meter, peak = LoudnessMeter(rendered.sample_rate), 0.0
    for piece in _pieces(rendered, None, CHUNK, gain):
        if isinstance(piece, int):
            meter.add_silence(piece)
        else:
            meter.add(piece)
            peak = max(peak, float(np.abs(piece).max()))
    return meter.lufs(), peak


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
