"""Reading a script: plain text (``Name: line``), Markdown with ``#`` chapters, and SRT
or VTT subtitles (each cue a line, its span the line's target duration)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from studio.engine.options import MAX_SECONDS
from studio.errors import UserError
from studio.safe_read import MB, read_text

SCRIPT_SUFFIXES = (".txt", ".md", ".srt", ".vtt")
LINE_PAUSE_S = 0.3  # between two lines
PARAGRAPH_PAUSE_S = 0.8  # a blank line in a text script
CHAPTER_PAUSE_S = 1.5  # before a Markdown chapter
DEFAULT_SPEAKER = "Narrator"  # lines before any "Name:" (text) or without one (subtitles)
MAX_LINES = 5_000
MAX_TIMELINE_S = 24 * 3600  # the latest a cue may end, the longest a project may span
MAX_SCRIPT_BYTES = 16 * MB  # 5,000 long lines with their cue timings fit many times over

_SPEAKER = re.compile(r"^\s*([^\W\d_][\w .'\-]{0,39}?)\s*:\s+(\S.*)$")
_VTT_BLOCKS = ("WEBVTT", "NOTE", "STYLE", "REGION")
_CUE_TIME = re.compile(
    r"^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})")


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str
    pause_after: float = LINE_PAUSE_S  # seconds of silence after the line in the mix
    chapter: str | None = None  # the chapter this line opens (Markdown)
    duration: float | None = None  # seconds the line must fill (a subtitle cue)


@dataclass
class Script:
    lines: list[Line]
    lead: float = 0.0  # silence before the first line (a subtitle's first cue start)
    warnings: list[str] = field(default_factory=list)

    @property
    def speakers(self) -> list[str]:
        """The speakers in order of their first line."""
        return list(dict.fromkeys(line.speaker for line in self.lines))


def speaker_prefix(text: str) -> tuple[str, str] | None:
    """``(name, words)`` of a line that starts with a speaker's name (``Alice: Hello.``),
    else None: the one rule, for an imported script and a line typed in the studio."""
    match = _SPEAKER.match(text)
    return (match.group(1).strip(), match.group(2).strip()) if match else None


def read_script(path: Path) -> Script:
    """The script in ``path``, by its extension; one sentence for what cannot be read."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SCRIPT_SUFFIXES:
        raise UserError(f"The script {path} must end in {', '.join(SCRIPT_SUFFIXES)}.")
    text = read_text(path, MAX_SCRIPT_BYTES, "script")
    if suffix in (".srt", ".vtt"):
        script = parse_subtitles(text, str(path))
    else:
        script = parse_text(text, markdown=suffix == ".md")
    if not script.lines:
        raise UserError(f"The script {path} has no lines to speak.")
    if len(script.lines) > MAX_LINES:
        raise UserError(f"The script {path} has {len(script.lines):,} lines; split it into "
                        f"scripts of at most {MAX_LINES:,}.")
    return script


def parse_text(text: str, markdown: bool = False) -> Script:
    """``Name: words`` starts a speaker's line; a line without a name is the same speaker's
    next line; a blank line is a longer pause; with ``markdown``, ``# Title`` opens a
    chapter (any level) and other Markdown marks are read as text."""
    lines: list[Line] = []
    speaker, chapter = DEFAULT_SPEAKER, None
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            _lengthen_pause(lines, PARAGRAPH_PAUSE_S)
            continue
        if markdown and stripped.startswith("#"):
            chapter = stripped.lstrip("#").strip() or None
            _lengthen_pause(lines, CHAPTER_PAUSE_S)
            continue
        named = speaker_prefix(stripped)
        if named:
            speaker, words = named
        else:
            words = stripped
        lines.append(Line(speaker, words, chapter=chapter))
        chapter = None
    if lines:
        lines[-1] = _with(lines[-1], pause_after=0.0)
    return Script(lines)


def parse_subtitles(text: str, name: str = "the subtitles") -> Script:
    """Each cue a line: its text (``Name: words`` names the speaker), its span the line's
    duration and the gap to the next cue its pause; the first cue's start is the lead."""
    cues: list[tuple[float, float, str]] = []
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    row = 1  # the file's line number where the piece starts, for the sentences
    for n, block in enumerate(re.split(r"(\n\s*\n)", text)):
        at_row = row + block[: len(block) - len(block.lstrip())].count("\n")
        row += block.count("\n")
        if n % 2 or not block.strip():  # odd pieces are the blank lines between blocks
            continue
        rows = [r for r in block.strip().split("\n") if r.strip()]
        at = next((i for i, r in enumerate(rows) if _CUE_TIME.match(r)), None)
        if at is None:
            if re.split(r"\s", rows[0].strip())[0] in _VTT_BLOCKS:
                continue  # a WEBVTT header, a NOTE, a STYLE or REGION block
            raise UserError(f"The cue at line {at_row} of {name} has no timing line such as "
                            f"00:00:01,000 --> 00:00:02,500 (it reads {_shown(rows)}); fix "
                            "its timing or remove it.")
        match = _CUE_TIME.match(rows[at])
        start, end = _seconds(match.group(1)), _seconds(match.group(2))
        words = " ".join(re.sub(r"<[^>]+>", "", r).strip() for r in rows[at + 1:]).strip()
        if words:
            times = f"{match.group(1)} --> {match.group(2)}"
            if end <= start:
                raise UserError(f"The cue at line {at_row} of {name} ends before it starts "
                                f"({times}); fix its times.")
            if end > MAX_TIMELINE_S:
                raise UserError(f"The cue at line {at_row} of {name} ends after "
                                f"{MAX_TIMELINE_S // 3600} hours ({times}); a script's "
                                "timeline is at most a day.")
            if end - start > MAX_SECONDS:
                raise UserError(f"The cue at line {at_row} of {name} lasts {end - start:,.0f} "
                                f"seconds ({times}); a cue is at most {MAX_SECONDS:,.0f} "
                                "seconds, so split it.")
            cues.append((start, end, words))
    cues.sort(key=lambda cue: cue[0])
    lines: list[Line] = []
    warnings: list[str] = []
    for n, (start, end, words) in enumerate(cues):
        following = cues[n + 1][0] if n + 1 < len(cues) else end
        if following < end:
            warnings.append(f"Cue {n + 1} overlaps the next one; the next one starts after it.")
        speaker, words = speaker_prefix(words) or (DEFAULT_SPEAKER, words)
        lines.append(Line(speaker, words, pause_after=max(0.0, following - end),
                          duration=end - start))
    lead = cues[0][0] if cues else 0.0
    # Overlapping cues are played one after the other, so the mix can outgrow the file's
    # own timeline: bound what it will span.
    total = lead + sum(line.duration + line.pause_after for line in lines)
    if total > MAX_TIMELINE_S:
        raise UserError(f"The cues of {name} overlap so much that, one after another, they "
                        f"span {total / 3600:,.0f} hours; a script's timeline is at most a "
                        "day.")
    return Script(lines, lead=lead, warnings=warnings)


def _shown(rows: list[str]) -> str:
    text = " / ".join(r.strip() for r in rows[:2])
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _seconds(stamp: str) -> float:
    parts = stamp.replace(",", ".").split(":")
    hours = float(parts[0]) if len(parts) == 3 else 0.0
    return hours * 3600 + float(parts[-2]) * 60 + float(parts[-1])


def _lengthen_pause(lines: list[Line], seconds: float) -> None:
    if lines and lines[-1].pause_after < seconds:
        lines[-1] = _with(lines[-1], pause_after=seconds)


def _with(line: Line, **changes) -> Line:
    from dataclasses import replace

    return replace(line, **changes)
