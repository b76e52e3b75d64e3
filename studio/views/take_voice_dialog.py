"""TakeVoiceDialog: the takes panel's "Save as voice…", done where the user is.

A name (offered by :mod:`studio.service.take_voice`, selected so typing replaces it),
the words the take says (its transcript), Save and Cancel. A name already taken is
said in one sentence as it is typed, and Save becomes Replace: replace that voice, or
type another name. The save is the worker's, the same as Clone's Save as voice
(``ViewJobs.save_voice``); the dialog waits for it and says a refusal in itself.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from studio.errors import UserError
from studio.service.take_voice import take_voice_name, take_voice_request
from studio.views.takes_model import excerpt
from studio.views.widgets.labels import MessageLabel, hint_label

SAYS_CHARS = 160  # the transcript shown: enough to recognise the take
WHERE = "pick it in Clone's Voice list or as a script speaker's voice"


def already_text(name: str) -> str:
    return (f"This take is already saved as the voice '{name}'; Save keeps a second copy "
            "under the name above.")


def taken_text(name: str, other: str) -> str:
    return (f"A voice named '{name}' already exists; Replace puts this take in its place, "
            f"or type another name (such as '{other}').")


class TakeVoiceDialog(QDialog):
    """``take``: a kept take; ``position``: "Take 2/3" (its place, for a name when it has no
    better one); ``library``: a read-only VoiceLibrary, to see which names are taken."""

    save_requested = Signal(object)  # VoiceSaveRequest

    def __init__(self, take, position: str, library, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("takeVoiceDialog")
        self.setWindowTitle("Save as voice")
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * 36)
        self._take = take
        self._library = library
        self._saving = False
        self._cancelled = False  # closed while saving: the save goes on, said in the status bar
        self._taken = False
        self._saved_as = self._saved_voice(take)  # the voice this take already is, if any

        intro = hint_label("Keep this take's voice to use it again, the same from line to "
                           "line: it is listed in Clone's Voice list, the Voices page and a "
                           "script's cast.")
        self.nameEdit = QLineEdit(self._free_name(take_voice_name(take, position)))
        self.nameEdit.setObjectName("takeVoiceName")
        self.nameEdit.setAccessibleName("Voice name")
        self.nameEdit.setMinimumWidth(self.nameEdit.fontMetrics().horizontalAdvance("M" * 24))
        self.nameEdit.setToolTip("The name the voice is listed under")
        text = take.settings.text
        self.saysLabel = QLabel(f"“{excerpt(text, SAYS_CHARS)}”")
        self.saysLabel.setObjectName("takeVoiceTranscript")
        self.saysLabel.setWordWrap(True)
        self.saysLabel.setToolTip("The voice's transcript: the words the take says")
        self.message = MessageLabel()
        self.message.setObjectName("takeVoiceMessage")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.saveButton = self.buttons.addButton("Save", QDialogButtonBox.ButtonRole.AcceptRole)
        self.saveButton.setObjectName("takeVoiceSave")

        form = QFormLayout()
        nameLabel = QLabel("&Name")
        nameLabel.setBuddy(self.nameEdit)
        form.addRow(nameLabel, self.nameEdit)
        form.addRow("Says", self.saysLabel)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        # Only once the buttons are in the dialog: set before, Cancel stayed the default and
        # Return in the name field cancelled.
        self.saveButton.setDefault(True)

        self.nameEdit.textChanged.connect(self._name_changed)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self._name_changed()
        self.nameEdit.selectAll()  # typing replaces the offered name
        self.nameEdit.setFocus(Qt.FocusReason.OtherFocusReason)

    def name(self) -> str:
        return self.nameEdit.text().strip()

    def _free_name(self, name: str) -> str:
        try:
            return self._library.unique_name(name)
        except UserError:  # a name the library would refuse: the user sees why on Save
            return name
        except Exception:  # a busy or damaged library: the studio says so elsewhere
            return name

    def _saved_voice(self, take) -> str | None:
        try:
            voice = self._library.with_clip(take.audio_path)
        except Exception:  # a busy or damaged library: the studio says so elsewhere
            return None
        return voice.name if voice is not None else None

    def _is_taken(self, name: str) -> bool:
        try:
            return bool(name) and self._library.name_taken(name)
        except Exception:  # unreadable now: the worker checks again when saving
            return False

    def _name_changed(self) -> None:
        name = self.name()
        self._taken = self._is_taken(name)
        if self._taken:
            self.message.show_message(taken_text(name, self._free_name(name)))
        elif self._saved_as and not self._saving:
            self.message.show_message(already_text(self._saved_as), error=False)
        elif not self._saving:
            self.message.clear_message()
        self._fit()
        self.saveButton.setText("Replace" if self._taken else "Save")
        self.saveButton.setEnabled(bool(name) and not self._saving)

    # ------------------------------------------------------------------ saving
    def save(self) -> None:
        if self.name() and not self._saving:
            self.save_requested.emit(take_voice_request(self._take, self.name(),
                                                        replace=self._taken))

    def voice_save_started(self) -> None:
        """The worker has the save: the dialog waits for it."""
        self._set_saving(True)
        self.message.show_message(f"Saving the voice '{self.name()}'…", error=False)
        self._fit()

    def voice_save_failed(self, sentence: str) -> None:
        self._set_saving(False)
        if self._cancelled:  # the status bar says it
            self.deleteLater()
            return
        self.message.show_message(sentence)
        self._fit()
        self.nameEdit.setFocus(Qt.FocusReason.OtherFocusReason)

    def voice_saved(self, voice_id: str) -> str:
        """The voice is saved: the dialog closes; returns the status bar's sentence."""
        self._set_saving(False)
        try:
            name = self._library.get(voice_id).name
        except Exception:  # not readable yet: the name as typed
            name = self.name()
        done = "Replaced" if self._taken else "Saved"
        self.accept()
        self.deleteLater()
        return f"{done} the voice '{name}'; {WHERE}."

    def reject(self) -> None:
        if self._saving:  # the save goes on: its end is said in the status bar
            self._cancelled = True
            self.hide()
            return
        super().reject()
        self.deleteLater()

    def _fit(self) -> None:
        """Grow to hold the message line, which would otherwise squeeze the transcript
        into overlapping lines."""
        if self.isVisible():
            self.adjustSize()

    def _set_saving(self, saving: bool) -> None:
        self._saving = saving
        self.nameEdit.setReadOnly(saving)
        self.saveButton.setEnabled(not saving and bool(self.name()))
