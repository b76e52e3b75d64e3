"""The values in a project's rows, checked as they are read.

SQLite keeps any value in any column, so a project written by another program (or by
hand) can hold text where a speed belongs, a speed of 10^300, or a line whose speaker
does not exist. Each is one sentence naming the line (in script order) or the speaker
and the field, said when the project is read -- before a render, never after it.
"""

from __future__ import annotations

import math
from pathlib import Path

from studio.engine.options import MAX_SECONDS, MAX_SEED, MAX_STEPS, MAX_TEXT_CHARS, SPEED_RANGE
from studio.errors import UserError
from studio.scripts.parse import MAX_TIMELINE_S

VOICE_KINDS = ("voice", "design", "clip")
MAX_NAME_CHARS = 200
MAX_FIELD_CHARS = MAX_TEXT_CHARS  # an instruct, a transcript, a path, a fingerprint
_FIX = "fix it in the studio or import the script again"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _text(value, most: int = MAX_FIELD_CHARS, empty: bool = True) -> bool:
    return isinstance(value, str) and len(value) <= most and (empty or bool(value.strip()))


def _seed(value) -> bool:
    return isinstance(value, int) and 0 <= value <= MAX_SEED


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_speaker(row: tuple, path: Path) -> tuple:
    """A speakers row (id, name, kind, voice, instruct, seed, clip, ref_text, language,
    colour), returned as it is when every value fits its column."""
    sid, name, kind, voice, instruct, seed, clip, ref_text, language, colour = row
    if not isinstance(sid, int) or not _text(name, MAX_NAME_CHARS, empty=False):
        raise UserError(f"A speaker in the project {path} has the name {_shown(name)}; a name "
                        f"is text of 1 to {MAX_NAME_CHARS} characters ({_FIX}).")
    problems = [
        ("kind", kind, kind in VOICE_KINDS, f"one of {', '.join(VOICE_KINDS)}"),
        ("seed", seed, seed is None or _seed(seed), f"a whole number from 0 to {MAX_SEED}"),
        ("colour", colour, _text(colour, 40), "text"),
        *((key, value, value is None or _text(value), "text")
          for key, value in (("voice", voice), ("instruct", instruct), ("clip", clip),
                             ("ref_text", ref_text), ("language", language))),
    ]
    for key, value, fits, should in problems:
        if not fits:
            raise UserError(f'The "{key}" of the speaker {name} in the project {path} is '
                            f"{_shown(value)}; it must be {should} ({_FIX}).")
    return row


def check_line(row: tuple, n: int, speakers: set[int], path: Path) -> tuple:
    """A lines row (id, position, speaker, text, pause_after, language, speed, steps, seed,
    duration, chapter, take, rendered) as line ``n`` of the script."""
    (lid, position, speaker, text, pause, language, speed, steps, seed, duration, chapter,
     take, rendered) = row
    optional_text = "text or nothing"
    problems = [
        ("id", lid, isinstance(lid, int), "a whole number"),
        ("position", position, _number(position), "a number"),
        ("speaker", speaker, isinstance(speaker, int) and speaker in speakers,
         "one of the project's speakers"),
        # Empty: a line added in the studio and not typed yet (a render refuses it).
        ("text", text, _text(text, MAX_TEXT_CHARS), f"text of up to {MAX_TEXT_CHARS:,} characters"),
        ("pause_after", pause, _number(pause) and 0 <= pause <= MAX_TIMELINE_S,
         f"seconds from 0 to {MAX_TIMELINE_S:,}"),
        ("speed", speed, speed is None or (_number(speed)
                                           and SPEED_RANGE[0] <= speed <= SPEED_RANGE[1]),
         f"a number from {SPEED_RANGE[0]} to {SPEED_RANGE[1]} or nothing"),
        ("steps", steps, steps is None or (isinstance(steps, int) and 1 <= steps <= MAX_STEPS),
         f"a whole number from 1 to {MAX_STEPS} or nothing"),
        ("seed", seed, seed is None or _seed(seed), f"a whole number from 0 to {MAX_SEED}"),
        ("duration", duration, duration is None or (_number(duration)
                                                    and 0 < duration <= MAX_SECONDS),
         f"seconds from 0 to {MAX_SECONDS:g} or nothing"),
        *((key, value, value is None or _text(value), optional_text)
          for key, value in (("language", language), ("chapter", chapter), ("take", take),
                             ("rendered", rendered))),
    ]
    for key, value, fits, should in problems:
        if not fits:
            raise UserError(f'Line {n} of the project {path} has a "{key}" of {_shown(value)}; '
                            f"it must be {should} ({_FIX}).")
    return row


def check_lead(value: str | None, lines: list, path: Path) -> float:
    """The silence before the first line, and the whole timeline, within a day."""
    try:
        lead = float(value or 0)
    except ValueError:
        lead = math.nan
    if not (math.isfinite(lead) and 0 <= lead <= MAX_TIMELINE_S):
        raise UserError(f"The project {path} starts with a lead of {_shown(value)}; it must be "
                        f"seconds from 0 to {MAX_TIMELINE_S:,} ({_FIX}).")
    total = lead + sum(line.pause_after + (line.duration or 0) for line in lines)
    if total > MAX_TIMELINE_S:
        raise UserError(f"The project {path} spans {total / 3600:,.0f} hours of pauses and "
                        f"timed lines; keep a project within {MAX_TIMELINE_S // 3600} hours.")
    return lead
