"""RememberedText: a text box refilled with what the person typed there earlier (the
Clone view's transcript, when its clip comes back) says so and is selected, so typing
replaces it rather than adding to it.

A new user's review (review 2, item 8) loaded a clip again, started typing its
transcript and got it twice: the box had been filled silently.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit

REMEMBERED_NOTE = "The transcript you typed for this clip earlier; typing replaces it."


class RememberedText(QObject):
    def __init__(self, edit: QPlainTextEdit, hint: QLabel):
        super().__init__(edit)
        self._edit, self._hint = edit, hint
        self._note = hint.text()  # the hint's own words, back once the text is edited
        self._filling = False
        self._shown = False  # the remembered text is in the box, untouched
        self._click_selects = False  # the first click selects it all, as typing will replace it
        self._eat_release = False  # that click's release, which would drop the selection
        edit.textChanged.connect(self._edited)
        edit.viewport().installEventFilter(self)

    def set_note(self, text: str) -> None:
        """The hint's own words (shown unless remembered text is in the box)."""
        self._note = text
        if not self._shown:
            self._hint.setText(text)

    def fill(self, text: str, remembered: bool) -> None:
        """Put ``text`` in the box; ``remembered``: what the person typed there earlier."""
        self._filling = True
        try:
            self._edit.setPlainText(text)
        finally:
            self._filling = False
        self._shown = self._click_selects = remembered and bool(text.strip())
        if self._shown:
            self._edit.selectAll()  # Tab into it, or click it once, and typing replaces it
        self._hint.setText(REMEMBERED_NOTE if self._shown else self._note)

    def is_remembered(self) -> bool:
        return self._shown

    def _edited(self) -> None:
        if self._filling or not self._shown:
            return
        self._shown = self._click_selects = False
        self._hint.setText(self._note)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The first click into it selects it all, as an address bar does (the person who
        # clicked then typed got the transcript twice); it would place the cursor and
        # drop the selection. Later clicks are the box's own.
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and self._click_selects \
                and event.button() == Qt.MouseButton.LeftButton:
            self._click_selects, self._eat_release = False, True
            self._edit.setFocus(Qt.FocusReason.MouseFocusReason)
            self._edit.selectAll()
            return True
        if kind == QEvent.Type.MouseButtonRelease and self._eat_release:
            self._eat_release = False
            return True
        return False
