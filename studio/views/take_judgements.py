"""How a take's judgements read in the views: the stored dict parsed, each verdict's mark
(so a badge never speaks by colour alone), the combined score out of 100, the lines the
tooltips give, and the asked text with the words the recogniser heard differently.

The cards, the details and the A/B view all read judgements through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from studio.judges.scores import BAD, NOT_JUDGED, OK, WARN, Judgement
from studio.judges.words import word_spans
from studio.service.judging import TakeJudgement, ranked

JUDGES = (("voice", "Voice"), ("words", "Words"), ("sound", "Sound"))
MARKS = {OK: "✓", WARN: "!", BAD: "✗", NOT_JUDGED: "–"}
VERDICT_WORDS = {OK: "good", WARN: "check it", BAD: "poor", NOT_JUDGED: "not judged"}
# (on a light background, on a dark one) per verdict; "not judged" stays quiet (grey).
VERDICT_COLORS = {OK: ("#2e7d32", "#81c784"), WARN: ("#b45309", "#f59e0b"),
                  BAD: ("#c62828", "#ef6b6b"), NOT_JUDGED: ("#8a8a8a", "#9a9a9a")}
ADDED_COLORS = ("#2e6da4", "#7fb2e5")
LEAD_IN_S = 0.5  # a click on a word change plays from just before it, to hear it in context
# What the badges' marks mean, under a badge's own line (a mark alone says nothing).
MARKS_LEGEND = "Marks: " + ", ".join(
    f"{MARKS[v]} {'passed' if v == OK else 'failed' if v == BAD else VERDICT_WORDS[v]}"
    for v in (OK, WARN, BAD, NOT_JUDGED)) + "."
SCORE_TIP = ("Combined score out of 100: the judges' scores weighted as in Settings "
             "(a judge that did not run is left out).")


def parse(data: dict | None) -> TakeJudgement | None:
    """A stored judgement dict (TakeJudgement.to_dict()) read back; None: not judged, or
    stored in a shape this version cannot read."""
    if not isinstance(data, dict):
        return None
    try:
        return TakeJudgement.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def judgement_of(take) -> TakeJudgement | None:
    """The take's stored judgement (a take record's ``judgements``)."""
    return parse(getattr(take, "judgements", None))


def score_text(value: float | None) -> str:
    """A score in [0, 1] as a person reads it: "82" (of 100); "–" when none."""
    return "–" if value is None else f"{round(100 * value):d}"


def score_of_100(value: float | None) -> str:
    """A combined score with its scale, as a card shows it: "66/100"."""
    return f"{score_text(value)}/100"


def badge_tip(judge: Judgement) -> str:
    """A badge's tooltip: the judge's line (why it was not judged, when it was not), then
    what the marks mean."""
    return f"{judge_line(judge)}\n\n{MARKS_LEGEND}"


def verdict_of(judged: TakeJudgement | None, judge: str) -> Judgement:
    """One judge's judgement; a quiet "not judged" when the take has none from it."""
    found = judged.get(judge) if judged is not None else None
    return found or Judgement(judge, None, NOT_JUDGED, "Not judged.")


def badge_text(judge: Judgement) -> str:
    """The card's badge: the verdict's mark and the judge's name ("✓ Voice")."""
    return f"{MARKS.get(judge.verdict, '?')} {dict(JUDGES).get(judge.judge, judge.judge)}"


def verdict_color(verdict: str, dark: bool) -> str:
    return VERDICT_COLORS.get(verdict, VERDICT_COLORS[NOT_JUDGED])[dark]


def judge_line(judge: Judgement) -> str:
    """"Words ! check it (80): Word error rate 20% …" for tooltips and screen readers."""
    name = dict(JUDGES).get(judge.judge, judge.judge)
    if judge.verdict == NOT_JUDGED:  # its sentence names the judge already
        return f"{MARKS[NOT_JUDGED]} {judge.explanation}"
    score = f" ({score_text(judge.score)})" if judge.score is not None else ""
    return (f"{name} {MARKS.get(judge.verdict, '?')} "
            f"{VERDICT_WORDS.get(judge.verdict, judge.verdict)}{score}: {judge.explanation}")


def tooltip_lines(judged: TakeJudgement | None) -> list[str]:
    """The score and the three one-line explanations (nothing for an unjudged take)."""
    if judged is None:
        return []
    return ([f"Score {score_text(judged.combined)} of 100"]
            + [judge_line(verdict_of(judged, key)) for key, _name in JUDGES])


def best_index(judgements: Sequence[dict | None]) -> int | None:
    """Which of a batch's takes (their stored dicts) scored best; None when none was scored."""
    parsed = [parse(d) or TakeJudgement((), None) for d in judgements]
    if not parsed:
        return None
    best = ranked(parsed)[0]
    return best if parsed[best].combined is not None else None


def stored_score(take) -> float | None:
    """The take's combined score read straight from its stored dict: ranking a long list
    needs no more than this (the whole judgement is parsed only for the rows shown)."""
    data = getattr(take, "judgements", None)
    score = data.get("combined") if isinstance(data, dict) else None
    return float(score) if isinstance(score, (int, float)) else None


def rank_key(take) -> tuple:
    """Sorts best first: the highest combined score, unjudged takes after all judged ones."""
    score = stored_score(take)
    return (score is None, -(score or 0.0))


# ---------------------------------------------------------------------- words, marked
def change_time(change: dict) -> float | None:
    """Where a word change is in the take (seconds), when the recogniser gave times."""
    for key in ("start", "end"):
        value = change.get(key)
        if isinstance(value, (int, float)):
            return float(value)
    return None


def _at(change: dict) -> str:
    when = change_time(change)
    return f" at {when:.1f} s" if when is not None else ""


def change_text(change: dict) -> str:
    """One change in words: "dropped “brown” at 1.2 s"."""
    kind = change.get("kind")
    if kind == "substituted":
        return f"heard “{change.get('heard', '')}” for “{change.get('asked', '')}”{_at(change)}"
    if kind == "added":
        return f"added “{change.get('heard', '')}”{_at(change)}"
    return f"dropped “{change.get('asked', '')}”{_at(change)}"


def _link(html: str, change: dict) -> str:
    when = change_time(change)
    if when is None:
        return html
    # (the link keeps the word's own colour and decoration; a dotted underline says "click")
    return (f'<a href="play:{max(0.0, when - LEAD_IN_S):.3f}" '
            f'style="text-decoration: none">{html}</a>')


def marked_words(text: str, changes: Sequence[dict], dark: bool = False) -> str:
    """The asked ``text`` as HTML: dropped words struck through in red, substituted ones
    struck with what was heard after them, added words in brackets; each a link to its
    time ("play:SECONDS") when known."""
    spans = word_spans(text)
    red, amber, blue = (VERDICT_COLORS[BAD][dark], VERDICT_COLORS[WARN][dark],
                        ADDED_COLORS[dark])
    at_word: dict[int, dict] = {}
    before: dict[int, list[dict]] = {}
    unplaced: list[dict] = []
    for change in changes:
        index = change.get("asked_index")
        if change.get("kind") in ("dropped", "substituted") and isinstance(index, int) \
                and 0 <= index < len(spans):
            at_word[index] = change
        elif change.get("kind") == "added" and isinstance(change.get("before"), int):
            before.setdefault(min(change["before"], len(spans)), []).append(change)
        else:
            unplaced.append(change)

    def bracketed(change: dict) -> str:
        word = escape(change.get("heard") or change.get("asked", ""))
        return _link(f'<span style="color:{blue}">[{word}]</span>', change)

    def added(index: int) -> str:
        return "".join(bracketed(c) + " " for c in before.get(index, ()))

    out, pos = [], 0
    for index, (start, end) in enumerate(spans):
        out.append(escape(text[pos:start]))
        out.append(added(index))
        word = escape(text[start:end])
        change = at_word.get(index)
        if change is None:
            out.append(word)
        elif change.get("kind") == "dropped":
            out.append(_link(f'<s style="color:{red}">{word}</s>', change))
        else:
            heard = escape(change.get("heard", ""))
            out.append(_link(f'<s style="color:{amber}">{word}</s>'
                             f'<b style="color:{amber}">&nbsp;{heard}</b>', change))
        pos = end
    tail = escape(text[pos:])
    out.append(tail if not before.get(len(spans)) else f"{tail} {added(len(spans))}")
    if unplaced:  # stored before added words knew their place: after the text
        out.append(" " + " ".join(bracketed(c) for c in unplaced))
    return "".join(out).strip()
