"""The progress bar's words while a take renders: which try (render until one passes),
the step, the chunk and the time left, fitted to the bar's width.

A progress bar wraps text it cannot fit and clips the second line (seen at 1024x640:
"step 3/16 · chunk 1/2 · about 1 min 33 s left"), so the least needed parts give way
first and the full line goes in the tooltip.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from studio.worker.sentences import ATTEMPT_STAGE

_ATTEMPT = re.compile(re.escape(ATTEMPT_STAGE).replace(r"\{n\}", r"(\d+)")
                      .replace(r"\{limit\}", r"(\d+)"))
MARGIN_PX = 16  # the bar's frame and the text's breathing room
# Between Cancel and the worker's stop (its next decoding step: seconds on a CPU).
CANCELLING = "Cancelling…"
CANCELLING_TIP = "Cancel was pressed: the render stops at the end of its current step."


def attempt_numbers(stage: str) -> tuple[int, int] | None:
    """(2, 3) for the worker's "Rendering take 2 of at most 3 …", else None."""
    match = _ATTEMPT.fullmatch(stage.strip())
    return (int(match[1]), int(match[2])) if match else None


def attempt_of(stage: str) -> str | None:
    """"try 2 of 3" for the worker's "Rendering take 2 of at most 3 …", else None."""
    numbers = attempt_numbers(stage)
    return f"try {numbers[0]} of {numbers[1]}" if numbers else None


def format_eta(seconds: float) -> str:
    """'about 12 s left', 'about 2 min 5 s left'; rounded so the text does not flicker."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"about {seconds} s left"
    minutes, rest = divmod(seconds, 60)
    if minutes >= 10:
        return f"about {minutes} min left"
    return f"about {minutes} min {rest} s left" if rest else f"about {minutes} min left"


def fitted(parts: list[tuple[str, int]], metrics: QFontMetrics, width: int) -> str:
    """``parts`` (text, how much it is needed: higher stays longer) joined with " · ",
    dropping the least needed until the line fits ``width``; elided as a last resort."""
    room = width - MARGIN_PX
    kept = [p for p in parts if p[0]]
    text = " · ".join(t for t, _ in kept)
    while len(kept) > 1 and metrics.horizontalAdvance(text) > room:
        kept.remove(min(kept, key=lambda p: p[1]))
        text = " · ".join(t for t, _ in kept)
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(room, 0))


def progress_parts(step: int, steps: int, chunk: int, chunks: int, eta: str,
                   attempt: str | None) -> list[tuple[str, int]]:
    """The parts in reading order, each with how much it is needed."""
    return [(attempt or "", 4), (f"step {step}/{steps}", 2),
            (f"chunk {chunk}/{chunks}" if chunks > 1 else "", 1), (eta, 3)]
