"""The text to speak follows the person between Clone and Design.

Someone who typed in Clone and then found they have no recording goes to Design; the
text they typed should be there. The one rule: on a switch between the two views, the
text of the view left is copied into the view entered when that one's Text box is empty;
text already there is never overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping


class TextCarry:
    """Owns the rule for views named in ``forms`` (view name -> its GenerateForm)."""

    def __init__(self, forms: Mapping[str, object], current: str | None = None):
        self._forms = dict(forms)
        self._current = current

    def entered(self, name: str) -> bool:
        """The window now shows view ``name``; returns whether text was carried into it."""
        left, self._current = self._current, name
        if left == name or left not in self._forms or name not in self._forms:
            return False
        text = self._forms[left].text()
        target = self._forms[name]
        if not text.strip() or target.text().strip():
            return False
        target.set_text(text)
        return True
