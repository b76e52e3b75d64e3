"""One Judgement per judge and the combined score that ranks takes.

Plain, JSON-able dataclasses: they cross threads and are stored with the take.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

OK, WARN, BAD, NOT_JUDGED = "ok", "warn", "bad", "not judged"

# How much each judge counts in the combined score; declared once (Settings will edit
# a copy). A judge that did not run drops out and the rest are re-weighted.
WEIGHTS: dict[str, float] = {"voice": 0.4, "words": 0.4, "sound": 0.2}


@dataclass(frozen=True)
class Judgement:
    """score in [0, 1] (None when not judged), a verdict and one line a person can read."""

    judge: str  # "voice", "words" or "sound"
    score: float | None
    verdict: str
    explanation: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Judgement:
        return cls(data["judge"], data.get("score"), data["verdict"], data["explanation"],
                   dict(data.get("details") or {}))


def not_judged(judge: str, why: str) -> Judgement:
    return Judgement(judge, None, NOT_JUDGED, why)


def verdict_for(value: float, ok_at: float, warn_at: float) -> str:
    """ok at or above ok_at, warn at or above warn_at, bad below (higher is better)."""
    return OK if value >= ok_at else WARN if value >= warn_at else BAD


def combined(judgements: list[Judgement], weights: dict[str, float] | None = None
             ) -> float | None:
    """Weighted mean of the judged scores; None when nothing was judged."""
    weights = WEIGHTS if weights is None else weights
    used = [(weights.get(j.judge, 0.0), j.score) for j in judgements if j.score is not None]
    total = sum(w for w, _ in used)
    if total <= 0:
        return None
    return sum(w * s for w, s in used) / total
