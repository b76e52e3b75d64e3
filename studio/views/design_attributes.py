"""DesignAttributes: one picker per voice-design category, a free-text description
mapped onto them, and a live preview of the instruct the engine will receive.

What may be combined is decided by the engine itself: an item is offered only if
``normalize_instruct`` accepts the current selection with it, so the pickers can
never build an instruct the engine would refuse. The description is read by the
engine's parser (:mod:`studio.engine.describe`), the one the CLI and ``serve`` use.
"""

from __future__ import annotations

import json
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QStandardItemModel, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from studio.engine.describe import (
    CATEGORY_KEYS,
    DIALECT_NAMES,
    DescriptionMatch,
    accepted,
    build_instruct,
    item_key,
    map_description,
    selection_from_instruct,
)
from studio.engine.instruct import CATEGORIES, InstructItem, normalize_instruct, text_wants_chinese
from studio.errors import UserError
from studio.views.design_feedback import UNKNOWN_HEX, feedback_html, kept_html, kept_picks
from studio.views.undo import FormSnapshot, push_edit
from studio.views.widgets.fitted_height import FitsItsWidth

UNSET = "—"
_BY_KEY = {c.key: c for c in CATEGORIES}

# Picker labels where the category's name differs from the engine's.
PICKER_LABELS = {"accent": "English accent", "dialect": "Chinese dialect"}

# Why a whole picker is switched off, keyed by the picker that is blocked: the box itself
# says it in a few words (a grey box with no text said nothing), its tooltip in full.
BLOCKED_SHOWN = {"dialect": "Accent chosen", "accent": "Dialect chosen"}  # fit at 1024 px
BLOCKED_HINTS = {
    "dialect": ("Dialects are for Chinese voices; an English accent is chosen. An accent makes "
                "the instruct English and a dialect makes it Chinese, so the model takes one "
                "or the other. Set the accent to — to choose a dialect."),
    "accent": ("Accents are for English voices; a Chinese dialect is chosen. A dialect makes "
               "the instruct Chinese and an accent makes it English, so the model takes one "
               "or the other. Set the dialect to — to choose an accent."),
}
# The instruct's language, as its tag says it (the model reads the instruct in one of two).
LANGUAGE_TAGS = {False: "In English", True: "In Chinese (中文)"}


def item_label(category: str, item: InstructItem) -> str:
    """What a picker shows for an item ("Low", "British", "Sichuan (四川话)")."""
    if category == "dialect":
        return f"{DIALECT_NAMES.get(item.zh, item.zh)} ({item.zh})"
    word = item.en
    for suffix in (" pitch", " accent"):
        word = word.removesuffix(suffix)
    return word[0].upper() + word[1:]


# ---------------------------------------------------------------- widget

UNKNOWN_BACKGROUND = QColor(UNKNOWN_HEX)
UNKNOWN_UNDERLINE = QColor("#c62828")
CONFLICT_BACKGROUND = QColor("#f9d6d5")


class DesignAttributes(FitsItsWidth, QWidget):  # a feedback wrapped in two lines: room for both
    """The voice-design pickers; ``instruct()`` is the normalised instruct or None."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._target_text = ""
        self.undoStack = None  # the window's (Clear is undoable there)
        self._owned: dict[str, str] = {}  # categories the description set, and to what
        self._match = DescriptionMatch()
        self._quiet = False
        # The engine's verdict per full selection: the pickers ask it for every item on
        # every change, and there are only a few thousand selections in all.
        self._verdicts: dict[tuple[str | None, ...], bool] = {}
        self._keys: dict[str, list[str]] = {}  # category -> item key per row after "—"
        self._enabled: dict[tuple[str, int], bool] = {}
        self._selection: dict[str, str | None] = dict.fromkeys(CATEGORY_KEYS)  # mirrors the pickers
        self._shown: dict[str, object] = {}  # what the pickers and preview show now
        self._build()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.describeEdit = QPlainTextEdit()
        self.describeEdit.setObjectName("describeEdit")
        self.describeEdit.setPlaceholderText(
            "Describe the voice, e.g. an old man with a deep voice and a british accent")
        self.describeEdit.setAccessibleName("Describe the voice")
        self.describeEdit.setToolTip(
            "Words like old, deep, girl, whispering or british set the pickers below; "
            "words that match no attribute are highlighted.")
        self.describeEdit.setTabChangesFocus(True)
        line = self.describeEdit.fontMetrics().lineSpacing()
        self.describeEdit.setFixedHeight(line * 3 + 14)
        self.describeEdit.textChanged.connect(self._description_changed)
        self.feedback = QLabel()
        self.feedback.setObjectName("descriptionFeedback")
        self.feedback.setWordWrap(True)
        self.feedback.setTextFormat(Qt.TextFormat.RichText)
        self.feedback.setAccessibleName("How the description was read")
        # Its line is kept while it has nothing to say: hidden, the page grew shorter, the
        # scroll bar went and the pickers moved under the pointer (review 2, item 11).
        self.feedback.setMinimumHeight(self._one_line_height())
        # The picks a description in the box did not set, under the pickers: a pick changes
        # it, and above them its second line moved every picker under the pointer.
        self.keptNote = QLabel()
        self.keptNote.setObjectName("keptPicksNote")
        self.keptNote.setWordWrap(True)
        self.keptNote.setTextFormat(Qt.TextFormat.RichText)
        self.keptNote.setAccessibleName("Picks kept beside the description")
        self.keptNote.hide()

        self.combos: dict[str, QComboBox] = {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        for index, category in enumerate(CATEGORIES):
            combo = QComboBox()
            combo.setObjectName(f"{category.key}Combo")
            name = PICKER_LABELS.get(category.key, category.en)
            # "" rather than None as the unset item's data: PySide6 6.12 on Python 3.11
            # under-counts references to a None read back from item data.
            combo.addItem(UNSET, "")
            combo.setItemData(0, f"No {name.lower()}: the model decides", Qt.ItemDataRole.ToolTipRole)
            self._keys[category.key] = [item_key(item) for item in category.items]
            for item in category.items:
                combo.addItem(item_label(category.key, item), item_key(item))
                words = " / ".join(w for w in (item.en, item.zh) if w)
                combo.setItemData(combo.count() - 1, f"The model's words: {words}",
                                  Qt.ItemDataRole.ToolTipRole)
            combo.setAccessibleName(name)
            combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            combo.setMinimumWidth(110)  # elides in a narrow view rather than widen the page
            combo.currentIndexChanged.connect(
                lambda index, key=category.key: self._picked(key, index))
            label = QLabel(f"&{name}")
            label.setBuddy(combo)
            row, col = divmod(index, 2)
            grid.addWidget(label, row, col * 2)
            grid.addWidget(combo, row, col * 2 + 1)
            self.combos[category.key] = combo
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        grid.setColumnMinimumWidth(2, 110)

        self.preview = QLabel()
        self.preview.setObjectName("instructPreview")
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview.setAccessibleName("Instruct preview")
        self.preview.setToolTip("The instruct the model receives, normalised as the engine does")
        self.preview.setWordWrap(True)
        self.preview.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.languageTag = QLabel()
        self.languageTag.setObjectName("instructLanguage")
        self.languageTag.setAccessibleName("Instruct language")
        self.languageTag.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # Plain muted words, not a bordered pill: beside Clear a pill read as a button that
        # did nothing when clicked (a new user's review).
        self.languageTag.setStyleSheet("QLabel { color: palette(placeholder-text); "
                                       "font-style: italic; padding: 0 6px; }")
        self.clearButton = QPushButton("Clear")
        self.clearButton.setObjectName("clearDesignButton")
        self.clearButton.setAccessibleName("Clear voice design")
        self.clearButton.setToolTip("Reset every attribute and the description (Ctrl+Z brings "
                                    "them back)")
        self.clearButton.clicked.connect(self._clear_clicked)

        box = QFrame()
        box.setObjectName("instructBox")
        box.setFrameShape(QFrame.Shape.StyledPanel)
        box.setStyleSheet("#instructBox { background: palette(base); border-radius: 4px; }")
        boxLayout = QHBoxLayout(box)
        boxLayout.setContentsMargins(10, 6, 6, 6)
        caption = QLabel("Instruct")
        caption.setObjectName("instructCaption")
        caption.setToolTip("The instruct: the short voice description the model receives, "
                           "made from your words and the pickers")
        caption.setStyleSheet("color: palette(placeholder-text);")
        boxLayout.addWidget(caption)
        boxLayout.addWidget(self.preview, 1)
        boxLayout.addWidget(self.languageTag)
        boxLayout.addWidget(self.clearButton)

        describeLabel = QLabel("&Describe the voice")
        describeLabel.setBuddy(self.describeEdit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(describeLabel)
        layout.addWidget(self.describeEdit)
        layout.addWidget(self.feedback)
        layout.addSpacing(4)
        layout.addLayout(grid)
        layout.addWidget(self.keptNote)
        layout.addSpacing(4)
        layout.addWidget(box)
        self._refresh()

    def _one_line_height(self) -> int:
        """The feedback's height with one line in it (bold words and the ✓ included)."""
        self.feedback.setText("<b>✓ Understood</b>")
        height = self.feedback.sizeHint().height()
        self.feedback.setText("")
        return height

    # ------------------------------------------------------------------ reading
    def selection(self) -> dict[str, str | None]:
        return dict(self._selection)

    def use_zh(self) -> bool:
        return text_wants_chinese(self._target_text)

    def instruct(self) -> str | None:
        """The normalised instruct (None without attributes)."""
        return normalize_instruct(build_instruct(self.selection()), use_zh=self.use_zh())

    def description(self) -> str:
        return self.describeEdit.toPlainText()

    def description_match(self) -> DescriptionMatch:
        return self._match

    def item_enabled(self, category: str, key: str | None) -> bool:
        """Whether the user can pick ``key`` in ``category`` right now."""
        combo = self.combos[category]
        if not key:
            return combo.isEnabled()
        row = self._keys[category].index(key) + 1
        return combo.isEnabled() and self._enabled.get((category, row), True)

    # ------------------------------------------------------------------ changing
    def set_target_text(self, text: str) -> None:
        """The text to speak decides whether the instruct is written in Chinese."""
        if text_wants_chinese(text) != text_wants_chinese(self._target_text):
            self._target_text = text
            self._refresh()
            self.changed.emit()
        self._target_text = text

    def set_selection(self, selection: dict[str, str | None]) -> bool:
        """Set every picker at once; refused (False) if the engine would not accept it."""
        wanted = {key: selection.get(key) or None for key in CATEGORY_KEYS}
        known = all(v is None or v in self._keys[k] for k, v in wanted.items())
        if not known or not accepted(wanted):
            return False
        self._apply(wanted)
        self._show_feedback()  # what the words still say beside the new picks
        return True

    def set_instruct(self, instruct: str | None) -> bool:
        """Show the attributes of ``instruct`` (a take's), clearing the description;
        False (nothing changed) when the pickers cannot hold it."""
        selection = selection_from_instruct(instruct)
        if selection is None or not accepted(selection):
            return False
        self.clear()
        return self.set_selection(selection)

    def set_description(self, text: str) -> None:
        self.describeEdit.setPlainText(text)

    def set_undo_stack(self, stack) -> None:
        self.undoStack = stack

    def _clear_clicked(self) -> None:
        """Clear, as one edit Edit ▸ Undo takes back (the pickers and the description)."""
        before = FormSnapshot(self)
        push_edit(self.undoStack, "Clear the voice design", self.clear,
                  lambda: (self.clear(), self.restore_state(before)))

    def clear(self) -> None:
        self._quiet = True
        self.describeEdit.clear()
        self._quiet = False
        self._owned = {}
        self._match = DescriptionMatch()
        self._apply(dict.fromkeys(CATEGORY_KEYS))
        self._show_feedback()

    def _apply(self, wanted: dict[str, str | None]) -> None:
        if wanted == self.selection():
            return
        self._quiet = True
        for key, value in wanted.items():
            self.combos[key].setCurrentIndex(self._keys[key].index(value) + 1 if value else 0)
        self._quiet = False
        self._refresh()
        self.changed.emit()

    def _picked(self, category: str, index: int) -> None:
        self._selection[category] = self._keys[category][index - 1] if index > 0 else None
        if self._quiet:
            return
        # A hand-picked value is the user's, no longer the description's.
        self._owned.pop(category, None)
        self._refresh()
        self._show_feedback()  # what it keeps beside the description
        self.changed.emit()

    def _description_changed(self) -> None:
        if self._quiet:
            return
        match = map_description(self.description())
        wanted = self.selection()
        for category, value in self._owned.items():
            if category not in match.values and wanted[category] == value:
                wanted[category] = None  # the words that set it are gone
        wanted.update(match.values)
        if not accepted(wanted):
            # The description wins over a hand-picked value it cannot live with.
            for category in CATEGORY_KEYS:
                if category not in match.values and wanted[category] is not None:
                    trial = dict(wanted, **{category: None})
                    if accepted(trial):
                        wanted = trial
                        break
        self._match = match
        self._owned = dict(match.values)
        if accepted(wanted):
            self._apply(wanted)
        self._show_feedback()

    # ------------------------------------------------------------------ rendering
    def _refresh(self) -> None:
        """Enable exactly the items the engine accepts next to the other pickers' values."""
        selection = self.selection()
        for category, combo in self.combos.items():
            model: QStandardItemModel = combo.model()
            allowed_any = False
            for row, key in enumerate(self._keys[category], start=1):
                ok = self._accepts(dict(selection, **{category: key}))
                if self._enabled.get((category, row), True) != ok:
                    model.item(row).setEnabled(ok)
                    self._enabled[(category, row)] = ok
                allowed_any |= ok
            blocked = not allowed_any and selection[category] is None
            name = PICKER_LABELS.get(category, _BY_KEY[category].en)
            tip = (self._blocked_reason(category, selection) if blocked
                   else f"{name} of the designed voice (— leaves it to the model)")
            if self._shown.get(category) != (blocked, tip):  # touch Qt only on a change
                self._shown[category] = (blocked, tip)
                combo.setEnabled(not blocked)
                combo.setToolTip(tip)
                combo.setItemText(0, BLOCKED_SHOWN.get(category, UNSET) if blocked else UNSET)
        self._show_preview()

    def _accepts(self, selection: dict[str, str | None]) -> bool:
        key = tuple(selection[k] for k in CATEGORY_KEYS)
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = accepted(selection)
        return verdict

    def _blocked_reason(self, category: str, selection: dict[str, str | None]) -> str:
        if category in BLOCKED_HINTS:
            return BLOCKED_HINTS[category]
        first = self._keys[category][0]
        try:
            normalize_instruct(build_instruct(dict(selection, **{category: first})), False)
        except UserError as exc:
            return str(exc)
        return ""

    def _show_preview(self) -> None:
        try:
            text = self.instruct()
        except UserError as exc:  # unreachable through the pickers; shown, never raised
            text = str(exc)
        key = (text, self._selection["accent"], self._selection["dialect"], self.use_zh())
        if self._shown.get("preview") == key:
            return
        self._shown["preview"] = key
        if text is None:
            self.preview.setText("none: the model chooses the voice")
            self.preview.setStyleSheet("color: palette(placeholder-text); font-style: italic;")
            self.languageTag.hide()
        else:
            self.preview.setText(text)
            self.preview.setStyleSheet("font-weight: 600;")
            zh = text_wants_chinese(text)
            self.languageTag.setText(LANGUAGE_TAGS[zh])
            selection = self.selection()
            why = ("a Chinese dialect is chosen" if selection["dialect"]
                   else "an English accent is chosen" if selection["accent"]
                   else "the text to speak is Chinese" if zh
                   else "the text to speak is not Chinese")
            self.languageTag.setToolTip(
                f"The model gets this voice description in {'Chinese' if zh else 'English'}, "
                f"because {why}.")
            self.languageTag.show()
        self.preview.setAccessibleDescription(self.preview.text())

    def _show_feedback(self) -> None:
        match = self._match
        selections = []
        for span in match.spans:
            if span.kind not in ("unknown", "conflict"):
                continue
            fmt = QTextCharFormat()
            fmt.setBackground(UNKNOWN_BACKGROUND if span.kind == "unknown" else CONFLICT_BACKGROUND)
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(UNKNOWN_UNDERLINE)
            fmt.setToolTip("Not a voice attribute the model knows" if span.kind == "unknown"
                           else span.note)
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.describeEdit.document())
            cursor.setPosition(span.start)
            cursor.setPosition(span.end, QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format = fmt
            selections.append(selection)
        self.describeEdit.setExtraSelections(selections)

        kept = kept_picks(self.description(), match, self.selection())
        # A review found an earlier accent kept silently under a new description.
        self.keptNote.setText(kept_html(kept))
        self.keptNote.setVisible(bool(kept))
        self.keptNote.setAccessibleDescription(re.sub(r"<[^>]+>", "", self.keptNote.text()))
        self.feedback.setText(feedback_html(match, self.selection()))
        # The sentence `synth --describe` and `serve` answer with for this description.
        self.feedback.setToolTip(match.problem or "")
        self.feedback.setAccessibleDescription(re.sub(r"<[^>]+>|&nbsp;", " ", self.feedback.text()))

    # ------------------------------------------------------------------ persistence
    def save_state(self, settings, prefix: str = "design") -> None:
        settings.set_state(f"{prefix}/attributes", json.dumps(self.selection()))
        settings.set_state(f"{prefix}/description", self.description())

    def restore_state(self, settings, prefix: str = "design") -> None:
        description = settings.state(f"{prefix}/description")
        if isinstance(description, str) and description:
            self.set_description(description)
        try:
            stored = json.loads(settings.state(f"{prefix}/attributes") or "{}")
        except (TypeError, ValueError):
            stored = {}
        if isinstance(stored, dict):
            self.set_selection({k: v for k, v in stored.items() if isinstance(v, str)})

