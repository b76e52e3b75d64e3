"""A project's mix from its lines' chosen takes, and its export: the mixed track, one stem
per speaker, an SRT of what was rendered and the chapters as a cue sheet.

Audio is streamed to disk in blocks (never a whole timeline per speaker in memory). Every
file is written under a temporary name and renamed into place only when all of them are
complete (:class:`studio.staged.Staged`); a failure removes the temporary files and the
folders the export created, so a failed (or cancelled) export leaves no new file.

A project is a SQLite connection owned by the thread that opened it, so a front end reads
its :class:`MixPlan` there (a few rows) and may then mix and write on another thread (the
window's export task) with its own take-library reader; the command line calls the same
functions in one go.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from studio.errors import UserError
from studio.scripts.parse import Script
from studio.scripts.render import DEFAULT_LUFS, Rendered, chapters, mix_lines, srt_text
from studio.service.lines import check_spoken

MIX_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")
WRITE_BLOCK = 1 << 18  # samples per write (1 MB of float32, 11 s at 24 kHz)

Progress = Callable[[str, float], None]  # what is being done, the fraction of it done


class ExportCancelled(Exception):
    """The export was cancelled between two blocks; nothing it wrote is kept."""


@dataclass(frozen=True)
class MixPlan:
    """A project's mix as its lines choose it: the script (its lines in order, their
    pauses) and each line's chosen take (None: none yet)."""

    script: Script
    takes: tuple[str | None, ...]
    project: Path


def plan_mix(project, takes=None) -> MixPlan:
    """Read on the project's own thread: cheap (its rows), no audio. ``takes``, the take
    library, says which chosen takes are still there (a deleted one is no line's take)."""
    from studio.scripts.line_takes import LineTakes

    script, _voices = project.to_script()
    chosen = LineTakes(project, takes).all_chosen(project.lines())
    return MixPlan(script, chosen, Path(project.path))


def _step(cancel, on_progress: Progress | None, what: str, fraction: float) -> None:
    if cancel is not None and cancel.is_set():
        raise ExportCancelled
    if on_progress is not None:
        on_progress(what, fraction)


def stems_folder(mix: Path) -> Path:
    """Where the stems of ``mix`` go: "<mix name>_stems" beside it (no space: a folder name
    with one needs quoting in every shell and script a person hands it to)."""
    return Path(mix).with_name(f"{Path(mix).stem}_stems")


def stem_files(folder: Path, speakers: list[str], suffix: str) -> dict[str, Path]:
    """One file per speaker in ``folder``, named after the speaker (unique ignoring case)."""
    paths, seen = {}, set()
    for speaker in speakers:
        stem = re.sub(r"[^\w.-]+", "_", speaker).strip("._") or "speaker"
        while stem.lower() in seen:
            stem += "_"
        seen.add(stem.lower())
        paths[speaker] = Path(folder) / f"{stem}{suffix.lower()}"
    return paths


def project_mix(project, takes, lufs: float = DEFAULT_LUFS, *, missing: str = "refuse"):
    """(script, Rendered, sample rate) of ``project`` from its chosen takes, read from the
    take library ``takes`` (see :func:`mix_of_plan`)."""
    return mix_of_plan(plan_mix(project, takes), takes, lufs, missing=missing)


def mix_of_plan(plan: MixPlan, takes, lufs: float = DEFAULT_LUFS, *, missing: str = "refuse",
                on_progress: Progress | None = None, cancel=None):
    """(script, Rendered, sample rate) of ``plan``, its takes read from the take library
    ``takes``. A line without a take is refused (``missing="refuse"``: one sentence) or
    left out (``"skip"``, for playing what there is). ``cancel`` (a threading.Event) is
    checked between takes."""
    script = replace(plan.script, lines=list(plan.script.lines))  # the plan stays as it is
    audio, seeds, kept, rate = [], [], [], None
    for n, (line, take_id) in enumerate(zip(script.lines, plan.takes)):
        _step(cancel, on_progress, "Reading the takes", n / max(1, len(plan.takes)))
        clip = None
        if take_id is not None and takes is not None:
            try:
                clip, clip_rate = takes.read_audio(take_id)
                seed = takes.get(take_id).settings.seed
            except UserError:
                clip = None
        if clip is None:
            if missing == "refuse":
                check_spoken(line.text, n + 1)  # no take because it has no words yet
                raise UserError(f"Line {n + 1} has no take yet; render it before exporting.")
            continue
        if rate is not None and clip_rate != rate:
            raise UserError(f"Line {n + 1}'s take is at {clip_rate} Hz and the others at "
                            f"{rate} Hz; render it again.")
        rate = clip_rate
        audio.append(np.asarray(clip, np.float32).reshape(-1))
        seeds.append(seed)
        kept.append(line)
    if not kept:
        raise UserError("No line of this project has a take yet; render it first.")
    script.lines = kept
    _step(cancel, on_progress, "Measuring the loudness", 1.0)
    return script, mix_lines(script, audio, seeds, rate, lufs), rate


def cue_sheet(script, rendered: Rendered, audio_name: str) -> str:
    """A CUE sheet with one track per chapter (or one for the whole mix)."""
    marks = chapters(script, rendered) or [{"title": "Script", "start": 0.0}]
    out = [f'FILE "{audio_name}" WAVE']
    for n, mark in enumerate(marks, 1):
        frames = round(mark["start"] * 75)  # CUE time is minutes:seconds:frames of 1/75 s
        title = mark["title"].replace('"', "'")
        out += [f"  TRACK {n:02d} AUDIO", f'    TITLE "{title}"',
                f"    INDEX 01 {frames // 4500:02d}:{frames // 75 % 60:02d}:{frames % 75:02d}"]
    return "\n".join(out) + "\n"


def stage_outputs(staged, script, rendered: Rendered, mix: Path, stems: dict[str, Path],
                  srt: Path | None = None, cue: Path | None = None, *,
                  on_progress: Progress | None = None, cancel=None) -> list[Path]:
    """Write the stems, the subtitles, the cue sheet and the mix under ``staged``'s
    temporary names (missing folders made); they appear when it commits. Returns the
    paths they will have. ``on_progress`` hears each block; ``cancel`` is checked
    between blocks (:class:`ExportCancelled`)."""
    from studio.atomic import atomic_write

    blocks = -(-max(rendered.length, 1) // WRITE_BLOCK)
    total, done = (len(stems) + 1) * blocks, 0

    def tick(what: str) -> None:
        nonlocal done
        _step(cancel, on_progress, what, done / total)
        done += 1

    written: list[Path] = []
    for speaker, path in stems.items():
        staged.folder(Path(path).parent)
        write_stream(staged.path(path), rendered, speaker, lambda s=speaker: tick(
            f"Writing {s}'s stem"))
        written.append(Path(path))
    texts = [(srt, lambda: srt_text(script, rendered)),
             (cue, lambda: cue_sheet(script, rendered, Path(mix).name))]
    for path, text in texts:
        if path is not None:
            with atomic_write(staged.path(path)) as handle:
                handle.write(text().encode("utf-8"))
            written.append(Path(path))
    write_stream(staged.path(mix), rendered, None, lambda: tick("Writing the mix"))
    written.append(Path(mix))
    return written


def write_stream(path: Path, rendered: Rendered, speaker: str | None = None,
                 before_block: Callable[[], None] | None = None) -> None:
    """The mix (or ``speaker``'s stem) written to ``path`` block by block."""
    from studio.sound.files import AudioFileWriter

    with AudioFileWriter(path, rendered.sample_rate, sync=False) as writer:
        for block in rendered.chunks(speaker, WRITE_BLOCK):
            if before_block is not None:
                before_block()
            writer.write(block)


def check_mix_path(mix: Path) -> Path:
    """One sentence for a mix that cannot be: a suffix we cannot write, a missing folder."""
    mix = Path(mix)
    if mix.suffix.lower() not in MIX_SUFFIXES:
        raise UserError(f"The mix must end in {', '.join(MIX_SUFFIXES)}; got {mix.name}.")
    if not mix.parent.is_dir():
        raise UserError(f"The folder {mix.parent} does not exist; choose another place.")
    return mix


def export_project(project, takes, mix: Path, *, stems: bool = True, srt: bool = True,
                   lufs: float = DEFAULT_LUFS) -> list[Path]:
    """Write the mix (and stems in "<mix name>_stems/", an SRT and a cue sheet beside it)."""
    return export_plan(plan_mix(project, takes), takes, mix, stems=stems, srt=srt, lufs=lufs)


def export_plan(plan: MixPlan, takes, mix: Path, *, stems: bool = True, srt: bool = True,
                lufs: float = DEFAULT_LUFS, on_progress: Progress | None = None,
                cancel=None) -> list[Path]:
    """:func:`export_project` from a :class:`MixPlan`, on any thread that has its own
    take-library reader ``takes``; all the files appear, or none (also when cancelled)."""
    from studio.outputs import check_distinct
    from studio.staged import Staged

    mix = check_mix_path(mix)
    script, rendered, _rate = mix_of_plan(plan, takes, lufs, on_progress=on_progress,
                                          cancel=cancel)
    folder = stems_folder(mix)
    stem_paths = stem_files(folder, script.speakers, mix.suffix) if stems else {}
    srt_path = mix.with_suffix(".srt") if srt else None
    cue_path = mix.with_suffix(".cue") if srt else None
    takes_used = [(takes.audio_path(take), "take of a line") for take in plan.takes
                  if take is not None and takes is not None]
    check_distinct([(plan.project, "project"), *takes_used],
                   [(mix, "mix"), *((p, f"stem of {s}") for s, p in stem_paths.items()),
                    (srt_path, "subtitle file"), (cue_path, "cue sheet")])
    with Staged() as staged:
        written = stage_outputs(staged, script, rendered, mix, stem_paths, srt_path, cue_path,
                                on_progress=on_progress, cancel=cancel)
        staged.commit()
    return written
