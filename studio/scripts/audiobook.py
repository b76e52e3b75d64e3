"""A project exported as an audiobook: one ``.m4b`` (AAC, chapter marks, title, author,
cover) and, if asked, one MP3 per chapter, each chapter checked against ACX's rules.

The mix is the project's MixPlan mixed as for any export, with room tone placed for
ACX: ``ROOM_TONE_S`` of silence before the first line, the same after the last, and
twice it between chapters, so that each chapter (which starts ``ROOM_TONE_S`` before its
first line) has room tone at its head and tail. Chapters are the script's Markdown ``#``
headings (or an EPUB's table of contents); lines before the first are an opening chapter.

Each chapter is normalised to the middle of ACX's RMS window (-20.5 dB RMS, less where
its peaks or noise floor would pass ACX's limits): LUFS is weighted and speech at -20 LUFS
can read under -23 dB RMS, so a LUFS target alone does not land inside the window.

One chapter is in memory at a time (for its check and its gain); the files are staged
and appear together, or none of them (failure, cancel).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from studio.errors import UserError
from studio.scripts.export import MixPlan, Progress, _step, mix_of_plan
from studio.scripts.parse import Script
from studio.scripts.render import Rendered

AUDIOBOOK_SUFFIX = ".m4b"
ROOM_TONE_S = 0.75  # within ACX's 0.5 to 1 s
AUDIOBOOK_LUFS = -20.0  # the mix's level; each chapter is then set to ACX's RMS target
OPENING = "Opening"


@dataclass
class AudiobookExport:
    written: list[Path]
    chapters: list[dict]  # title, start and end in seconds
    acx: list = field(default_factory=list)  # studio.sound.acx.AcxReport per chapter
    gains_applied: list[float] = field(default_factory=list)  # normalising + ACX fix, dB

    def sentences(self) -> list[str]:
        """One sentence per chapter that fails ACX (after any fix applied)."""
        return [report.sentence() for report in self.acx if not report.passed]


def with_room_tone(script: Script) -> Script:
    """``script`` with the pauses that give every chapter room tone at both ends."""
    lines = list(script.lines)
    for n in range(len(lines) - 1):
        if lines[n + 1].chapter:
            lines[n] = replace(lines[n], pause_after=2 * ROOM_TONE_S)
    if lines:
        lines[-1] = replace(lines[-1], pause_after=ROOM_TONE_S)
    return replace(script, lines=lines, lead=ROOM_TONE_S)


def chapter_marks(script: Script, rendered: Rendered, book: str = ""):
    """The chapters as :class:`studio.sound.m4b.Mark` in samples: each from room tone
    before its first line to the next one's start (the first from 0, the last to the end)."""
    from studio.sound.m4b import Mark

    room = round(ROOM_TONE_S * rendered.sample_rate)
    starts = [(line.chapter, max(0, span[0] - room))
              for line, span in zip(script.lines, rendered.spans) if line.chapter]
    if not starts or starts[0][1] > 0:
        starts.insert(0, (OPENING if starts else book or "Chapter 1", 0))
    ends = [start for _title, start in starts[1:]] + [rendered.length]
    return [Mark(title, start, end) for (title, start), end in zip(starts, ends)]


def chapter_audio(rendered: Rendered, marks):
    """Each chapter's audio (float32, the mix's gain applied), one at a time."""
    pending: list[np.ndarray] = []
    at, n = 0, 0
    for block in rendered.chunks():
        while block.size:
            take = min(block.size, marks[n].end - at)
            pending.append(block[:take])
            block, at = block[take:], at + take
            if at == marks[n].end:
                yield np.concatenate(pending) if pending else np.zeros(0, np.float32)
                pending, n = [], n + 1
                if n == len(marks):
                    return
    while n < len(marks):
        yield np.concatenate(pending) if pending else np.zeros(0, np.float32)
        pending, n = [], n + 1


def chapter_file_names(marks) -> list[str]:
    names = []
    for n, mark in enumerate(marks, 1):
        stem = re.sub(r"[^\w.-]+", "_", mark.title).strip("._")[:60] or "chapter"
        names.append(f"{n:02d} {stem}.mp3")
    return names


def check_audiobook_path(out: Path) -> Path:
    out = Path(out)
    if out.suffix.lower() != AUDIOBOOK_SUFFIX:
        raise UserError(f"An audiobook must end in {AUDIOBOOK_SUFFIX}; got {out.name}.")
    if not out.parent.is_dir():
        raise UserError(f"The folder {out.parent} does not exist; choose another place.")
    return out


def export_audiobook(plan: MixPlan, takes, out: Path, *, title: str = "", author: str = "",
                     cover: Path | None = None, mp3s: bool = False,
                     lufs: float = AUDIOBOOK_LUFS, on_progress: Progress | None = None,
                     cancel=None) -> AudiobookExport:
    """Mix ``plan`` with room tone and write ``out`` (.m4b) and, with ``mp3s``, one MP3
    per chapter in "<out name> chapters/". On any thread with its own take reader."""
    from studio.outputs import check_distinct
    from studio.staged import Staged

    out = check_audiobook_path(out)
    if cover is not None:
        from studio.sound.m4b import cover_size

        cover_size(cover)
    plan = replace(plan, script=with_room_tone(plan.script))
    script, rendered, rate = mix_of_plan(plan, takes, lufs, on_progress=on_progress,
                                         cancel=cancel)
    mp3_paths = chapter_mp3_paths(out, script, rendered, title) if mp3s else []
    takes_used = [(takes.audio_path(t), "take of a line") for t in plan.takes
                  if t is not None and takes is not None]
    check_distinct([(plan.project, "project"), (cover, "cover"), *takes_used],
                   [(out, "audiobook"), *((p, "chapter file") for p in mp3_paths)])
    with Staged() as staged:
        result = stage_audiobook(staged, script, rendered, out, title=title, author=author,
                                 cover=cover, mp3_paths=mp3_paths,
                                 on_progress=on_progress, cancel=cancel)
        staged.commit()
    return result


def chapter_mp3_paths(out: Path, script: Script, rendered: Rendered, title: str = ""
                      ) -> list[Path]:
    """Where the per-chapter MP3s of the audiobook ``out`` go: "<out name> chapters/"."""
    folder = Path(out).with_name(f"{Path(out).stem} chapters")
    return [folder / name for name in chapter_file_names(chapter_marks(script, rendered,
                                                                       title))]


def stage_audiobook(staged, script: Script, rendered: Rendered, out: Path, *, title: str = "",
                    author: str = "", cover: Path | None = None,
                    mp3_paths: list[Path] = (),
                    on_progress: Progress | None = None, cancel=None) -> AudiobookExport:
    """Write the audiobook (and the chapter MP3s) of a mix made with
    :func:`with_room_tone` under ``staged``'s temporary names; they appear when it commits.
    Each chapter is normalised into ACX's RMS window (as far as its peaks and noise floor
    allow: past that no gain fixes it) and then checked against ACX."""
    from studio.sound.acx import apply_gain, check_chapter, normalising_gain
    from studio.sound.files import AudioFileWriter
    from studio.sound.m4b import M4bWriter

    rate = rendered.sample_rate
    marks = chapter_marks(script, rendered, title)
    reports, gains = [], []
    with M4bWriter(staged.path(out), rate, marks, title=title, author=author,
                   cover=cover) as book:
        for n, (mark, audio) in enumerate(zip(marks, chapter_audio(rendered, marks))):
            _step(cancel, on_progress, f"Writing {mark.title}", n / len(marks))
            gain = normalising_gain(audio, rate)
            audio = apply_gain(audio, gain)
            report = check_chapter(audio, rate, mark.title)
            reports.append(report)
            gains.append(gain)
            book.write(audio)
            if mp3_paths:
                staged.folder(mp3_paths[n].parent)
                with AudioFileWriter(staged.path(mp3_paths[n]), rate, sync=False) as mp3:
                    mp3.write(audio)
    _step(cancel, on_progress, "Finishing", 1.0)
    spans = [{"title": m.title, "start": round(m.start / rate, 3),
              "end": round(m.end / rate, 3)} for m in marks]
    return AudiobookExport([Path(out), *mp3_paths], spans, reports, gains)
