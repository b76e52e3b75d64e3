"""VoicePicker: the Clone view's row for saved voices.

Pick a saved voice (its clip and transcript become the reference, and the render
reads its stored prompt), or save the current clip as a new voice under a name.
The picker reads a read-only :class:`~studio.library.voices.VoiceLibrary` on the
GUI thread; saving is asked for with ``save_requested`` and done by the worker.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from studio.views.voices_model import ReadsVoices
from studio.views.words import shown_name

OWN_CLIP = "Your own clip (below)"
CHOOSE_FILE = "Choose a file…"
RECENT_PREFIX = "clip:"  # item data of a recent clip: the prefix and its path
BROWSE = "browse"
MAX_RECENT = 6


class VoicePicker(ReadsVoices, QWidget):
    voice_picked = Signal(object)  # Voice | None (None: the user's own clip)
    clip_picked = Signal(object)  # Path of a recent clip
    browse_requested = Signal()  # "Choose a file…"
    save_requested = Signal(str)  # the name typed for the current clip

    def __init__(self, library=None, parent: QWidget | None = None):
        super().__init__(parent)
        self._library = library  # None: the data folder's, opened read-only on first use
        self._voices: dict[str, object] = {}  # id -> Voice, as last read
        self._can_save = False  # a readable clip is in the panel and no job is running
        self._recent: list[Path] = []  # clips used lately, newest first (not saved voices)

        self.voiceCombo = QComboBox()
        self.voiceCombo.setObjectName("voicePicker")
        self.voiceCombo.setAccessibleName("Saved voice")
        self.voiceCombo.setToolTip("Render in a saved voice, a recent clip or a file, or use "
                                   "your own clip below; type to search the names")
        self.voiceCombo.setEditable(True)  # typing searches; only listed names can be picked
        self.voiceCombo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        completer = self.voiceCombo.completer()
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.voiceCombo.setMinimumContentsLength(14)  # beside the name field at 1024 px
        self.voiceCombo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)

        self.nameEdit = QLineEdit()
        self.nameEdit.setObjectName("voiceNameEdit")
        self.nameEdit.setAccessibleName("New voice name")
        self.nameEdit.setPlaceholderText("New voice name")
        self.nameEdit.setMinimumWidth(  # the placeholder whole, never "New voi…"
            self.nameEdit.fontMetrics().horizontalAdvance(self.nameEdit.placeholderText()) + 16)
        self.nameEdit.setToolTip("Save the clip and its transcript below as a voice under this name")
        self.saveButton = QPushButton("Save as voice")
        self.saveButton.setObjectName("saveVoiceButton")
        self.saveButton.setToolTip("Encode the clip once and keep it as a voice you can pick again")

        label = QLabel("&Voice")
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        label.setBuddy(self.voiceCombo)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(label)
        row.addSpacing(8)
        row.addWidget(self.voiceCombo, 3)
        row.addSpacing(12)
        row.addWidget(self.nameEdit, 2)
        row.addWidget(self.saveButton)

        self.voiceCombo.activated.connect(self._activated)
        self.voiceCombo.lineEdit().editingFinished.connect(self._typed)
        self.nameEdit.returnPressed.connect(self._save)
        self.nameEdit.textChanged.connect(self._refresh_save)
        self.saveButton.clicked.connect(self._save)
        self.refresh()

    def refresh(self, select: str | None = None) -> None:
        """Read the voices again; keep the current pick, or pick ``select`` (a voice id)."""
        keep = select if select is not None else self.current_id()
        try:
            voices = sorted(self.library().list(), key=lambda v: v.name.casefold())
        except Exception:  # a busy or damaged library: the studio says so elsewhere
            voices = []
        self._voices = {voice.id: voice for voice in voices}
        blocked = self.voiceCombo.blockSignals(True)
        self.voiceCombo.clear()
        self.voiceCombo.addItem(OWN_CLIP, None)
        for voice in voices:
            self.voiceCombo.addItem(voice.name, voice.id)
            tip = voice.transcript if len(voice.transcript) < 200 else voice.transcript[:197] + "…"
            self.voiceCombo.setItemData(self.voiceCombo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        recent = [path for path in self._recent if path.is_file()]
        if recent:
            self.voiceCombo.insertSeparator(self.voiceCombo.count())
            for path in recent:
                name = shown_name(path)  # a take's audio by a name, not its hash
                self.voiceCombo.addItem(f"Recent: {Path(name).name}", f"{RECENT_PREFIX}{path}")
                self.voiceCombo.setItemData(self.voiceCombo.count() - 1, name,
                                            Qt.ItemDataRole.ToolTipRole)
        self.voiceCombo.insertSeparator(self.voiceCombo.count())
        self.voiceCombo.addItem(CHOOSE_FILE, BROWSE)
        index = self.voiceCombo.findData(keep) if keep in self._voices else 0
        self.voiceCombo.setCurrentIndex(max(index, 0))
        self.voiceCombo.blockSignals(blocked)
        if select is not None and select in self._voices:
            self.voice_picked.emit(self._voices[select])
        elif keep is not None and keep not in self._voices:  # deleted meanwhile
            self.voice_picked.emit(None)

    # ------------------------------------------------------------------ state
    def current_id(self) -> str | None:
        data = self.voiceCombo.currentData()
        return data if data in self._voices else None

    def recent(self) -> list[Path]:
        return list(self._recent)

    def add_recent(self, path: Path) -> None:
        """A clip the user used: first among the recent ones (kept for the next start)."""
        path = Path(path)
        self._recent = [path, *(p for p in self._recent if p != path)][:MAX_RECENT]
        self.refresh()

    def set_recent(self, paths) -> None:
        self._recent = [Path(p) for p in paths][:MAX_RECENT]
        self.refresh()

    def voice(self, voice_id: str):
        """The saved voice ``voice_id`` as last read, or None."""
        return self._voices.get(voice_id)

    def current_voice(self):
        return self._voices.get(self.current_id())

    def voice_names(self) -> list[str]:
        return [voice.name for voice in self._voices.values()]

    def select(self, voice_id: str | None) -> None:
        """Show ``voice_id`` as picked (None: the own clip) without saying so."""
        blocked = self.voiceCombo.blockSignals(True)
        self.voiceCombo.setCurrentIndex(max(self.voiceCombo.findData(voice_id), 0))
        self.voiceCombo.blockSignals(blocked)

    def set_can_save(self, can: bool) -> None:
        self._can_save = can
        self._refresh_save()

    # ------------------------------------------------------------------ intents
    def _activated(self, index: int) -> None:
        data = self.voiceCombo.itemData(index)
        if isinstance(data, str) and (data == BROWSE or data.startswith(RECENT_PREFIX)):
            self.select(None)  # the clip goes to the panel below: the own-clip item again
            if data == BROWSE:
                self.browse_requested.emit()
            else:
                self.clip_picked.emit(Path(data[len(RECENT_PREFIX):]))
            return
        self.voice_picked.emit(self._voices.get(data))

    def _typed(self) -> None:
        """Typed text that is no voice's name goes back to the picked item's."""
        index = self.voiceCombo.findText(self.voiceCombo.currentText(),
                                         Qt.MatchFlag.MatchFixedString)
        if index < 0:
            self.voiceCombo.setEditText(self.voiceCombo.itemText(self.voiceCombo.currentIndex()))
        elif index != self.voiceCombo.currentIndex():
            self.voiceCombo.setCurrentIndex(index)
            self._activated(index)

    def _save(self) -> None:
        name = self.nameEdit.text().strip()
        if name and self.saveButton.isEnabled():
            self.save_requested.emit(name)

    def _refresh_save(self) -> None:
        self.saveButton.setEnabled(self._can_save and bool(self.nameEdit.text().strip()))

    def saved(self, voice_id: str) -> None:
        """The worker saved the voice: list it, pick it, clear the name."""
        self.nameEdit.clear()
        self.refresh(select=voice_id)
