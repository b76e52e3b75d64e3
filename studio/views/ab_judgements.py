"""The A/B view's judgements: the combined score and each judge as a row, A and B as
columns (under their buttons), the better side of each row marked (not where it fails
all the same: both sides poor, neither is "better").

A row reads "✓ Voice 92 · similarity 0.92"; its tooltip gives the judge's whole line.
Hidden in a blind round until the pick, since the scores would tell X from Y.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from studio.judges.scores import BAD, NOT_JUDGED, Judgement
from studio.service.judging import TakeJudgement
from studio.views.take_judgements import (
    JUDGES,
    MARKS,
    SCORE_TIP,
    judge_line,
    score_text,
    verdict_color,
    verdict_of,
)
from studio.views.widgets.elided_label import ElidedLabel

BETTER = "▲ "  # before the better side's row: text, not colour alone


def short_line(judge: Judgement) -> str:
    """What one judge found, in a few words, for a narrow column."""
    details = judge.details
    if judge.verdict == NOT_JUDGED:
        return "not judged"
    if judge.judge == "voice" and isinstance(details.get("similarity"), (int, float)):
        said = f"similarity {details['similarity']:.2f}"
        switch = details.get("switch_at_s")
        return said + (f", changes at {switch:.1f} s" if isinstance(switch, (int, float))
                       else "")
    if judge.judge == "words" and "changes" in details:
        counts = [f"{details.get(k)} {k}" for k in ("dropped", "substituted", "added")
                  if details.get(k)]
        return ", ".join(counts) if counts else "every word heard"
    if judge.judge == "sound" and isinstance(details.get("ovrl"), (int, float)):
        badges = details.get("badges") or []
        said = ", ".join(b.replace("-", " ") for b in badges)
        return f"quality {details['ovrl']:.1f} of 5" + (f", {said}" if badges else "")
    return judge.explanation


def better_side(a: float | None, b: float | None,
                verdicts: tuple[str, str] | None = None) -> int | None:
    """0 or 1 for the side with the higher score as shown (out of 100); None for a tie
    there (a ▲ beside two 40s read as a mistake), a missing one, or when the higher one
    still fails (``verdicts``: the judge's on each side): "▲ ✗ Sound 9" read as praise."""
    if a is None or b is None or round(100 * a) == round(100 * b):
        return None
    side = 0 if a > b else 1
    return None if verdicts is not None and verdicts[side] == BAD else side


class ABJudgements(QWidget):
    """Two columns of four rows: score, voice, words, sound."""

    ROWS = (("score", "Score"),) + JUDGES

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("abJudgements")
        self.setAccessibleName("Judgements of A and B")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(2)
        self.cells: list[list[QLabel]] = [[], []]  # [side][row]
        for side in (0, 1):
            for r, (key, _name) in enumerate(self.ROWS):
                label = ElidedLabel("")
                label.setObjectName(f"abJudge{key.capitalize()}{'AB'[side]}")
                self.cells[side].append(label)
                grid.addWidget(label, r, side)
            grid.setColumnStretch(side, 1)

    def show_judgements(self, judged: tuple[TakeJudgement | None, TakeJudgement | None],
                        names: tuple[str, str], shown: bool) -> None:
        """``judged``: the takes on side A and B; ``names``: "A"/"B" or "X"/"Y";
        ``shown``: False in a blind round before the pick."""
        self.setVisible(any(j is not None for j in judged))
        dark = self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5
        for r, (key, name) in enumerate(self.ROWS):
            verdicts = None
            if key == "score":
                values = [j.combined if j is not None else None for j in judged]
            else:
                found = [verdict_of(j, key) for j in judged]
                values = [f.score if j is not None else None for f, j in zip(found, judged)]
                verdicts = (found[0].verdict, found[1].verdict)
            better = better_side(*values, verdicts) if shown else None
            for side in (0, 1):
                self._show_cell(self.cells[side][r], key, name, judged[side], values[side],
                                shown, better == side, names, side, dark)

    def _show_cell(self, label: ElidedLabel, key: str, name: str,
                   judged: TakeJudgement | None, value: float | None, shown: bool,
                   better: bool, names: tuple[str, str], side: int, dark: bool) -> None:
        mark = BETTER if better else ""
        if not shown:  # one quiet line; the rows keep their room for the reveal
            text = "Judgements hidden until you pick" if key == "score" else ""
            tip, color = "", self.palette().color(QPalette.ColorRole.PlaceholderText)
        elif judged is None:
            text, tip, color = f"{name}: not judged", "This take was not judged.", None
        elif key == "score":
            text, tip, color = f"{mark}Score {score_text(value)}", SCORE_TIP, None
        else:
            judge = verdict_of(judged, key)
            shown_score = f" {score_text(judge.score)}" if judge.score is not None else ""
            text = (f"{mark}{MARKS.get(judge.verdict, '?')} {name}{shown_score} · "
                    f"{short_line(judge)}")
            tip, color = judge_line(judge), QColor(verdict_color(judge.verdict, dark))
        if better:
            tip = f"{names[side]} is better here. {tip}".strip()
        label.setText(text)
        label.setToolTip(tip)
        font = QFont(self.font())
        font.setBold(shown and (better or key == "score"))
        label.setFont(font)
        palette = self.palette()
        if color is not None:
            palette.setColor(QPalette.ColorRole.WindowText, color)
        label.setPalette(palette)
