"""A project's mix from its lines' chosen takes, and its export: the mixed track, one stem
per speaker, an SRT of what was rendered and the chapters as a cue sheet.

Every file is written under a temporary name and renamed; a failure removes what this
export wrote, so a failed export leaves no new file.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from studio.engine.errors import UserError
from studio.scripts.render import DEFAULT_LUFS, Rendered, chapters, mix_lines, srt_text

MIX_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")


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
    take library ``takes``. A line without a take is refused (``missing="refuse"``: one
    sentence) or left out (``"skip"``, for playing what there is)."""
    script, _voices = project.to_script()
    lines = project.lines()
    audio, seeds, kept, rate = [], [], [], None
    for n, (line, row) in enumerate(zip(script.lines, lines)):
        clip = None
        if row.take is not None and takes is not None:
            try:
                clip, clip_rate = takes.read_audio(row.take)
                seed = takes.get(row.take).settings.seed
            except UserError:
                clip = None
        if clip is None:
            if missing == "refuse":
                raise UserError(f"Line {n + 1} has no take yet; render it (Render new and "
                                "changed lines) before exporting.")
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


def export_project(project, takes, mix: Path, *, stems: bool = True, srt: bool = True,
                   lufs: float = DEFAULT_LUFS) -> list[Path]:
    """Write the mix (and stems in "<mix name> stems/", an SRT and a cue sheet beside it)."""
    from studio.atomic import atomic_write
    from studio.engine.audio import write_audio_atomic

    mix = Path(mix)
    if mix.suffix.lower() not in MIX_SUFFIXES:
        raise UserError(f"The mix must end in {', '.join(MIX_SUFFIXES)}; got {mix.name}.")
    if not mix.parent.is_dir():
        raise UserError(f"The folder {mix.parent} does not exist; choose another place.")
    script, rendered, rate = project_mix(project, takes, lufs)
    written: list[Path] = []
    folder = mix.with_name(f"{mix.stem} stems")
    made = stems and not folder.exists()
    try:
        if stems:
            folder.mkdir(exist_ok=True)
            for speaker, path in stem_files(folder, script.speakers, mix.suffix).items():
                write_audio_atomic(path, rendered.stems[speaker], rate)
                written.append(path)
        if srt:
            for path, text in ((mix.with_suffix(".srt"), srt_text(script, rendered)),
                               (mix.with_suffix(".cue"), cue_sheet(script, rendered, mix.name))):
                with atomic_write(path) as handle:
                    handle.write(text.encode("utf-8"))
                written.append(path)
        write_audio_atomic(mix, rendered.mix, rate)
        written.append(mix)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        if made:
            folder.rmdir()
        raise
    return written
