"""The take details' "Judgements" section: each judge's verdict, score and one line, and
the asked text with the words the recogniser heard differently, each a link that plays
the take from just before that word.

A folding section as tall as its text (the take's details scroll around it); it only
shows and says what was clicked (``play_from``).
"""

from __future__ import annotations

import math
from html import escape

from PySide6.QtCore import QEvent, QObject, QUrl, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from studio.judges.scores import NOT_JUDGED
from studio.service.judging import TakeJudgement
from studio.views.take_judgements import (
    JUDGES,
    LEAD_IN_S,
    MARKS,
    SCORE_TIP,
    VERDICT_WORDS,
    change_text,
    change_time,
    marked_words,
    score_of_100,
    score_text,
    verdict_color,
    verdict_of,
)
from studio.views.widgets.collapsible import CollapsibleSection

BODY_LINES = 24  # three judges, the asked text and the changes; a longer text scrolls
MIN_LINES = 3
NOT_JUDGED_BODY = ("This take was not judged: it was rendered before judging was on, or "
                   "with judging off in Settings.")


def _play_link(seconds: float, text: str) -> str:
    return f'<a href="play:{max(0.0, seconds - LEAD_IN_S):.3f}">{escape(text)}</a>'


def judgement_html(judged: TakeJudgement, text: str, dark: bool = False) -> str:
    """The body: a line per judge and the words as asked with the changes marked -- the
    words first when some changed (what went wrong leads in a short window)."""
    lines = []
    for key, name in JUDGES:  # paragraphs, not a table: the narrow panel wraps them well
        judge = verdict_of(judged, key)
        color = verdict_color(judge.verdict, dark)
        score = f", {score_text(judge.score)}" if judge.score is not None else ""
        line = escape(judge.explanation)
        switch = judge.details.get("switch_at_s")
        if isinstance(switch, (int, float)):
            line += " " + _play_link(float(switch), f"Listen at {switch:.1f} s")
        lines.append(f'<p style="margin:0 0 3px 0"><b style="color:{color}">'
                     f'{MARKS.get(judge.verdict, "?")} {name}</b> <span style="color:{color}">'
                     f'({escape(VERDICT_WORDS.get(judge.verdict, ""))}{score})</span> {line}</p>')
    words = verdict_of(judged, "words")
    changes = [c for c in words.details.get("changes", ()) if isinstance(c, dict)]
    asked = []
    if words.verdict != NOT_JUDGED:
        asked.append(f'<p style="margin:0 0 3px 0"><b>Asked:</b> '
                     f"{marked_words(text, changes, dark)}</p>")
    if changes:
        listed = [_play_link(change_time(c), change_text(c)) if change_time(c) is not None
                  else escape(change_text(c)) for c in changes]
        asked.append(f'<p style="margin:0 0 6px 0">{" · ".join(listed)}</p>')
    return "".join(asked + lines if changes else lines + asked)


class JudgementPane(CollapsibleSection):
    """A take's judgements under a folding "Judgements · score 82" heading."""

    play_from = Signal(float)  # seconds: a word change (or a voice switch) was clicked

    def __init__(self, parent: QWidget | None = None):
        browser = QTextBrowser()
        browser.setObjectName("judgementText")
        browser.setAccessibleName("Judgements of the take")
        browser.setOpenLinks(False)  # a link plays the take; it is not a page
        browser.setFrameShape(QFrame.Shape.NoFrame)
        browser.document().setDocumentMargin(2)
        # As tall as its text (the take's details scroll around it; one scroll bar, not
        # two), up to BODY_LINES: a long take's asked text scrolls in here.
        browser.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        super().__init__("Judgements", browser, expanded=False, parent=parent)
        self.browser = browser
        self.setObjectName("judgementsSection")
        self.button.setToolTip("Show or hide what the judges found in this take")
        self.browser.anchorClicked.connect(self._clicked)
        self.browser.installEventFilter(self)
        self._fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.browser and event.type() == QEvent.Type.Resize \
                and event.size().width() != event.oldSize().width():
            self._fit(event.size().width())  # a new width wraps the text anew
        return super().eventFilter(watched, event)

    def _fit(self, width: int | None = None) -> None:
        """Make the body as tall as its text at ``width`` (its own, by default), within
        MIN_LINES..BODY_LINES. Measured on a copy: the browser lays its own document out
        at its viewport's width only after the resize this runs in."""
        line = self.browser.fontMetrics().lineSpacing()
        document = self.browser.document().clone(self)
        frame = 2 * self.browser.frameWidth()
        document.setTextWidth((width if width is not None else self.browser.width()) - frame)
        height = math.ceil(document.size().height()) + frame + 2
        document.deleteLater()
        self.browser.setFixedHeight(max(line * MIN_LINES, min(height, line * BODY_LINES)))

    def show_judgement(self, judged: TakeJudgement | None, text: str) -> None:
        """``judged``: the take's judgement (None: not judged); ``text``: what was asked."""
        dark = self.palette().color(QPalette.ColorRole.Base).lightnessF() < 0.5
        if judged is None:
            self.button.setText("Judgements · not judged")
            self.browser.setHtml(f"<p>{escape(NOT_JUDGED_BODY)}</p>")
        else:
            self.button.setText(f"Judgements · score {score_of_100(judged.combined)}")
            self.browser.setHtml(judgement_html(judged, text, dark))
        self._fit()
        self.button.setAccessibleName(self.button.text())
        self.button.setToolTip(SCORE_TIP if judged is not None and judged.combined is not None
                               else "Show or hide what the judges found in this take")

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() == "play":
            try:
                self.play_from.emit(float(url.path()))
            except ValueError:
                pass  # not a link this pane wrote
