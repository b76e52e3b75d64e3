"""A searchable picker over the model's 646 languages.

An editable combo box: typing filters a popup by language id or name substring
(ranked by :meth:`Languages.search`: exact id, exact name, name prefix, then the
rest), so "ja" puts Japanese first and "jap" finds it too. The first entry is the
model's language-agnostic mode.
"""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtWidgets import QComboBox, QCompleter, QWidget

from studio.engine.languages import Languages, load_languages

AUTO_LABEL = "Auto (language-agnostic)"
POPUP_LIMIT = 60


def entry_label(lang_id: str, name: str) -> str:
    return f"{name} ({lang_id})"


class LanguagePicker(QComboBox):
    """``language()`` is the selected id, or None for the language-agnostic mode."""

    language_changed = Signal(object)  # str | None

    def __init__(self, languages: Languages | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self._languages = languages if languages is not None else load_languages()
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(16)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(22)
        self.addItem(AUTO_LABEL, None)
        for lang in self._languages.entries:
            self.addItem(entry_label(lang.id, lang.name), lang.id)

        # The popup lists search results in rank order, so the completer must not
        # filter or sort them again: UnfilteredPopupCompletion over a model we refill.
        self._matches = QStringListModel(self)
        self._completer = QCompleter(self._matches, self)
        self._completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self._completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._completer.setMaxVisibleItems(12)
        self.setCompleter(self._completer)
        self._completer.activated[str].connect(self._choose_label)
        self.lineEdit().textEdited.connect(self._refilter)
        self.lineEdit().editingFinished.connect(self._commit_typed)
        self.lineEdit().setPlaceholderText("Search 646 languages by name or id")
        self.currentIndexChanged.connect(self._emit_changed)

        self.setAccessibleName("Language")
        self.setToolTip(
            "The language of the text. Type part of a name or an id (\"jap\", \"ja\") to search; "
            "Auto lets the model decide."
        )

    # -- API -------------------------------------------------------------------------
    def language(self) -> str | None:
        return self.currentData()

    def set_language(self, lang_id: str | None) -> None:
        """Select ``lang_id``; None or an unknown id selects Auto."""
        index = self.findData(lang_id) if lang_id else 0
        self.setCurrentIndex(max(index, 0))
        self._show_current()

    def matches(self) -> list[str]:
        """The labels the search popup offers right now (for tests and accessibility)."""
        return self._matches.stringList()

    # -- behaviour -------------------------------------------------------------------
    def _refilter(self, text: str) -> None:
        query = text.strip()
        labels = [entry_label(lang.id, lang.name)
                  for lang in self._languages.search(query, limit=POPUP_LIMIT)]
        if not query or "auto" in query.lower():
            labels.insert(0, AUTO_LABEL)
        self._matches.setStringList(labels)
        if labels and query:
            self._completer.complete()

    def _choose_label(self, label: str) -> None:
        index = self.findText(label, Qt.MatchFlag.MatchExactly)
        if index >= 0:
            self.setCurrentIndex(index)
        self._show_current()

    def _commit_typed(self) -> None:
        """Enter or focus-out with typed text: take the exact entry, else the best match,
        else fall back to what was selected before."""
        text = self.lineEdit().text().strip()
        index = self.findText(text, Qt.MatchFlag.MatchFixedString)
        if index < 0 and text:
            hits = self._languages.search(text, limit=1)
            if hits:
                index = self.findData(hits[0].id)
        if index >= 0:
            self.setCurrentIndex(index)
        self._show_current()

    def label(self) -> str:
        """The selected entry's label (``currentText()`` is whatever is typed)."""
        return self.itemText(self.currentIndex())

    def _show_current(self) -> None:
        if self.lineEdit().text() != self.label():
            self.lineEdit().setText(self.label())

    def _emit_changed(self, _index: int) -> None:
        self.language_changed.emit(self.language())
