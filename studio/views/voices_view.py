"""VoicesView: the saved voices as cards: search, tag filter, sort, play, edit, delete
with undo, duplicate, import and export, drag and drop.

The view reads a read-only VoiceLibrary and never writes it: every change is an
intent signal the main window hands to the worker, whose ``voices_changed`` makes
the view read again (see docs/architecture.md).

Long because search, filters, cards, drag and drop and undo share one widget's list
and selection; the cards' data is in ``voices_model.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from studio.paths import data_dir
from studio.views import file_dialogs
from studio.views.play_state import play_off
from studio.views.undo import UndoStack, deleted_voice, push_edit
from studio.views.voice_card import VoiceCardDelegate
from studio.views.voice_drag import DragBundles, VoiceList
from studio.views.voices_model import ALL_TAGS, DEFAULT_SORT, SORTS, ReadsVoices, VoicesModel
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label
from studio.views.widgets.undo_bar import UndoBar
from studio.views.words import start_folder

NOTES_DELAY_MS = 800  # notes are saved this long after the last keystroke (and on leaving)
EMPTY = ("No saved voices yet. Save a take you like (Save as voice… under the takes), "
         "save a clip in Clone, or drop an audio clip or an .ovoice file here.")
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3", ".aiff", ".aif", ".opus")
NOT_DROPPABLE = ("{name} is neither an audio clip nor an .ovoice voice file; drop a WAV, FLAC "
                 "or OGG clip to start a voice, or an .ovoice file to import one.")


def in_use_text(name: str, users: dict[str, list[str]]) -> str:
    """Why deleting a voice needs a second thought: the scripts (and speakers) it voices."""
    which = "; ".join(f"the script '{script}' ({', '.join(speakers)})"
                      for script, speakers in users.items())
    return (f"The voice '{name}' speaks in {which}. Delete it anyway? Those lines cannot be "
            "rendered again until you give the speaker another voice; Edit ▸ Undo (Ctrl+Z) "
            "brings the voice back.")


class VoicesView(ReadsVoices, QWidget):
    rename_requested = Signal(str, str)  # voice id, new name
    transcript_requested = Signal(str, str)  # voice id, corrected transcript
    update_requested = Signal(str, object)  # voice id, {"tags": ..., "notes": ...}
    duplicate_requested = Signal(str)
    delete_requested = Signal(str)
    undelete_requested = Signal(str)
    import_requested = Signal(object)  # Path of an .ovoice file
    export_requested = Signal(str, object)  # voice id, target Path
    use_requested = Signal(object)  # Voice: render in it from the Clone view
    new_voice_requested = Signal(object)  # Path of an audio clip dropped here
    show_takes_requested = Signal(str)  # voice id: filter the takes panel by it
    play_failed = Signal(str)  # a sentence for the status bar

    def __init__(self, player=None, library=None, parent: QWidget | None = None, *,
                 audio_status=None):
        super().__init__(parent)
        self.setObjectName("voicesView")
        self.setAccessibleName("Voices view")
        self.setAcceptDrops(True)
        # Play follows the window's one audio status: greyed, with its reason, when off.
        self._play_off = play_off(player, audio_status)
        self._player = player if self._play_off is None else None
        self._library = library  # None: the data folder's, read-only, opened on first use
        self._drags = DragBundles(self.library)
        self.undoStack = UndoStack(self)  # the window's, once it has one
        self._last_folder: str | None = None  # where the user last imported or exported
        # Which scripts speak in a voice: {script name: [speakers]} (the window knows).
        self.scripts_using: Callable[[object], dict[str, list[str]]] = lambda _voice: {}
        self.confirm: Callable[[str, str], bool] = self._ask
        self._notes_timer = QTimer(self)
        self._notes_timer.setSingleShot(True)
        self._notes_timer.setInterval(NOTES_DELAY_MS)
        self._notes_timer.timeout.connect(self.commit_notes)
        self._notes_for: str | None = None  # the voice the notes field is about
        self.model = VoicesModel(self)
        self._build()
        self._connect()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        title = heading_label("Voices", size_delta=5)
        subtitle = hint_label("Your saved voices: pick one in Clone, or drag a card out to "
                              "share it as an .ovoice file.")

        self.searchEdit = QLineEdit()
        self.searchEdit.setObjectName("voicesSearch")
        self.searchEdit.setPlaceholderText("Search names, tags, transcripts and notes")
        self.searchEdit.setClearButtonEnabled(True)
        self.searchEdit.setAccessibleName("Search voices")
        self.tagCombo = QComboBox()
        self.tagCombo.setObjectName("voicesTagFilter")
        self.tagCombo.setAccessibleName("Tag filter")
        self.tagCombo.setToolTip("Show only the voices with one tag")
        self.tagCombo.addItem(ALL_TAGS, None)
        self.sortCombo = QComboBox()
        self.sortCombo.setObjectName("voicesSort")
        self.sortCombo.setAccessibleName("Sort voices")
        self.sortCombo.addItems(list(SORTS))
        self.sortCombo.setCurrentText(DEFAULT_SORT)
        self.importButton = QPushButton("Import…")
        self.importButton.setObjectName("importVoiceButton")
        self.importButton.setToolTip("Add the voice in an .ovoice file")
        tools = QHBoxLayout()
        tools.setSpacing(8)
        tools.addWidget(self.searchEdit, 1)
        tools.addWidget(self.tagCombo)
        tools.addWidget(self.sortCombo)
        tools.addWidget(self.importButton)

        self.list = VoiceList(self._bundle_for_drag, self._prepare_drag)
        self.list.setObjectName("voicesList")
        self.list.setAccessibleName("Saved voices")
        self.list.setModel(self.model)
        self.list.setItemDelegate(VoiceCardDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)  # cards follow the list's width
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setDragEnabled(True)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.emptyLabel = hint_label(EMPTY)
        self.emptyLabel.setObjectName("voicesEmpty")
        self.emptyLabel.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.emptyLabel.setWordWrap(True)
        self.countLabel = hint_label("")
        self.countLabel.setObjectName("voicesCount")
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.list, 1)
        column.addWidget(self.emptyLabel, 1)
        column.addWidget(self.countLabel)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self._build_detail())
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        left.setMinimumWidth(240)

        self.notice = MessageLabel()
        self.notice.setObjectName("voicesMessage")
        self.undoBar = UndoBar()
        self.undoBar.undoButton.setToolTip("Bring the deleted voice back (Ctrl+Z)")
        # Alone (tests, tools) the view answers Ctrl+Z itself; in the window Edit ▸ Undo does.
        self.undoShortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self)
        self.undoShortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 18, 24, 18)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(subtitle)
        layout.addSpacing(6)
        layout.addLayout(tools)
        layout.addWidget(self.notice)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.undoBar)

    def _build_detail(self) -> QWidget:
        self.detail = QFrame()
        self.detail.setObjectName("voiceDetail")
        self.detail.setMinimumWidth(230)
        self.nameField = QLineEdit()
        self.nameField.setObjectName("voiceNameField")
        self.nameField.setAccessibleName("Voice name")
        self.nameField.setToolTip("Rename the voice (Enter); names are unique, ignoring case")
        self.tagsField = QLineEdit()
        self.tagsField.setObjectName("voiceTagsField")
        self.tagsField.setPlaceholderText("Tags, separated by commas")
        self.tagsField.setAccessibleName("Voice tags")
        self.tagsField.setToolTip("Comma-separated tags (Enter saves)")
        self.transcriptField = QPlainTextEdit()
        self.transcriptField.setObjectName("voiceTranscriptField")
        self.transcriptField.setAccessibleName("Voice transcript")
        self.transcriptField.setToolTip("What the clip says; correcting it improves the clone")
        self.transcriptField.setTabChangesFocus(True)
        self.transcriptField.setMaximumHeight(90)
        self.saveTranscriptButton = QPushButton("Save transcript")
        self.saveTranscriptButton.setObjectName("saveTranscriptButton")
        self.notesField = QPlainTextEdit()
        self.notesField.setObjectName("voiceNotesField")
        self.notesField.setPlaceholderText("Notes…")
        self.notesField.setAccessibleName("Voice notes")
        self.notesField.setTabChangesFocus(True)
        self.notesField.setMaximumHeight(70)

        self.playButton = QPushButton("▶ Play clip")
        self.playButton.setObjectName("playVoiceButton")
        self.useButton = QPushButton("Use in Clone")
        self.useButton.setObjectName("useVoiceButton")
        self.useButton.setToolTip("Open the Clone view with this voice picked")
        self.takesButton = QPushButton("Show its takes")
        self.takesButton.setObjectName("voiceTakesButton")
        self.takesButton.setToolTip("Filter the takes panel to the takes rendered in this voice")
        self.duplicateButton = QPushButton("Duplicate")
        self.duplicateButton.setObjectName("duplicateVoiceButton")
        self.exportButton = QPushButton("Export…")
        self.exportButton.setObjectName("exportVoiceButton")
        self.deleteButton = QPushButton("Delete")
        self.deleteButton.setObjectName("deleteVoiceButton")

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("&Name", self.nameField)
        form.addRow("T&ags", self.tagsField)
        buttons = QHBoxLayout()
        buttons.addWidget(self.playButton)
        buttons.addWidget(self.useButton)
        more = QHBoxLayout()
        for button in (self.duplicateButton, self.exportButton, self.deleteButton):
            more.addWidget(button)
        column = QVBoxLayout(self.detail)
        column.setContentsMargins(12, 0, 0, 0)
        column.setSpacing(6)
        column.addLayout(form)
        column.addWidget(QLabel("Transcript"))
        column.addWidget(self.transcriptField)
        column.addWidget(self.saveTranscriptButton, 0, Qt.AlignmentFlag.AlignRight)
        column.addWidget(QLabel("Notes"))
        column.addWidget(self.notesField)
        column.addLayout(buttons)
        column.addWidget(self.takesButton)
        column.addLayout(more)
        column.addStretch(1)
        return self.detail

    def _connect(self) -> None:
        self.searchEdit.textChanged.connect(self._apply)
        self.tagCombo.currentIndexChanged.connect(self._apply)
        self.sortCombo.currentIndexChanged.connect(self._apply)
        self.list.selectionModel().currentChanged.connect(self._show_current)
        self.list.doubleClicked.connect(lambda _index: self._use())
        self.nameField.returnPressed.connect(self._rename)
        self.nameField.editingFinished.connect(self._rename)
        self.tagsField.editingFinished.connect(self._retag)
        self.saveTranscriptButton.clicked.connect(self._save_transcript)
        self.transcriptField.textChanged.connect(self._refresh_buttons)
        self.notesField.textChanged.connect(self._notes_edited)
        self.playButton.clicked.connect(self.toggle_play)
        self.useButton.clicked.connect(self._use)
        self.takesButton.clicked.connect(
            lambda: self.current() and self.show_takes_requested.emit(self.current().id))
        self.duplicateButton.clicked.connect(
            lambda: self.current() and self.duplicate_requested.emit(self.current().id))
        self.exportButton.clicked.connect(self._export)
        self.deleteButton.clicked.connect(self._delete)
        self.importButton.clicked.connect(self._import)
        self.undoBar.undo_clicked.connect(self.undo_delete)
        self.undoShortcut.activated.connect(self.undo_delete)
        self.undoBar.follow(self.undoStack)
        if self._player is not None:
            self._player.state_changed.connect(lambda _s: self._refresh_buttons())

    def refresh(self, select: str | None = None) -> None:
        """Read the voices again, keeping the search, filters and the selected voice."""
        keep = select or (self.current().id if self.current() is not None else None)
        self.commit_notes()
        try:
            self.model.reload(self.library())
        except Exception as exc:  # a damaged library: said, not raised into Qt
            self.notice.show_message(str(exc))
            self.model.reload(None)
        self._refresh_tags()
        self._apply(keep=keep)

    def _refresh_tags(self) -> None:
        current = self.tagCombo.currentData()
        blocked = self.tagCombo.blockSignals(True)
        self.tagCombo.clear()
        self.tagCombo.addItem(ALL_TAGS, None)
        for tag in self.model.tags():
            self.tagCombo.addItem(tag, tag)
        self.tagCombo.setCurrentIndex(max(self.tagCombo.findData(current), 0))
        self.tagCombo.blockSignals(blocked)

    def _apply(self, *_args, keep: str | None = None) -> None:
        if keep is None and self.current() is not None:
            keep = self.current().id
        self.model.apply(self.searchEdit.text(), self.tagCombo.currentData(),
                         self.sortCombo.currentText())
        row = self.model.row_of(keep) if keep else -1
        row = row if row >= 0 else (0 if self.model.rowCount() else -1)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row, 0))
        self._show_current()
        shown, total = self.model.rowCount(), self.model.total()
        self.list.setVisible(shown > 0)
        self.emptyLabel.setVisible(shown == 0)
        self.detail.setVisible(total > 0)  # nothing to show or edit yet
        self.countLabel.setVisible(total > 0)
        self.emptyLabel.setText(EMPTY if total == 0 else
                                "No voice matches the search and tag; clear them to see all.")
        self.countLabel.setText(f"{total} voice{'s' if total != 1 else ''}" if shown == total
                                else f"{shown} of {total} voices")

    # ------------------------------------------------------------------ selection
    def current(self):
        entry = self.model.entry(self.list.currentIndex().row())
        return entry.voice if entry is not None else None

    def _show_current(self, *_args) -> None:
        self.commit_notes()
        voice = self.current()
        self.detail.setEnabled(voice is not None)
        for field, text in ((self.nameField, voice.name if voice else ""),
                            (self.tagsField, ", ".join(voice.tags) if voice else "")):
            field.blockSignals(True)
            field.setText(text)
            field.blockSignals(False)
        for field, text in ((self.transcriptField, voice.transcript if voice else ""),
                            (self.notesField, voice.notes if voice else "")):
            field.blockSignals(True)
            field.setPlainText(text)
            field.blockSignals(False)
        self._notes_for = voice.id if voice else None
        self._refresh_buttons()

    def _refresh_buttons(self) -> None:
        voice = self.current()
        self.saveTranscriptButton.setEnabled(
            voice is not None and bool(self.transcriptField.toPlainText().strip())
            and self.transcriptField.toPlainText().strip() != voice.transcript)
        playing = (self._player is not None and voice is not None
                   and self._player.key() == ("voice", voice.id)
                   and self._player.state() == "playing")
        self.playButton.setText("⏸ Pause" if playing else "▶ Play clip")
        self.playButton.setEnabled(voice is not None and self._player is not None)
        self.playButton.setToolTip(self._play_off or ("Pause the voice's clip" if playing
                                                      else "Play the voice's clip"))

    # ------------------------------------------------------------------ intents
    def _rename(self) -> None:
        voice, name = self.current(), " ".join(self.nameField.text().split())
        if voice is not None and name and name != voice.name:
            self.rename_requested.emit(voice.id, name)
        elif voice is not None and not name:
            self.nameField.setText(voice.name)

    def _retag(self) -> None:
        voice = self.current()
        tags = tuple(t.strip() for t in self.tagsField.text().split(",") if t.strip())
        if voice is not None and tags != tuple(voice.tags):
            self.update_requested.emit(voice.id, {"tags": tags})

    def _save_transcript(self) -> None:
        voice = self.current()
        if voice is not None:
            self.transcript_requested.emit(voice.id, self.transcriptField.toPlainText().strip())

    def _notes_edited(self) -> None:
        self._notes_timer.start()

    def commit_notes(self) -> None:
        """Save typed notes now (the timer's, or before leaving the voice)."""
        self._notes_timer.stop()
        voice_id = self._notes_for
        voice = self.model.voice(voice_id) if voice_id else None
        if voice is None:
            return
        notes = self.notesField.toPlainText().strip()
        if notes != voice.notes:
            self.update_requested.emit(voice_id, {"notes": notes})

    def _use(self) -> None:
        voice = self.current()
        if voice is not None:
            self.use_requested.emit(voice)

    def _delete(self) -> None:
        voice = self.current()
        if voice is None:
            return
        users = self.scripts_using(voice)
        if users and not self.confirm("Delete a voice a script uses", in_use_text(voice.name, users)):
            return
        voice_id = voice.id
        push_edit(self.undoStack, f"Delete the voice '{voice.name}'",
                  lambda: self.delete_requested.emit(voice_id),
                  lambda: self.undelete_requested.emit(voice_id),
                  everywhere=deleted_voice(voice.name))
        self.undoBar.show_edit(f"Deleted the voice '{voice.name}'.")

    def undo_delete(self) -> None:
        """The undo bar's button (and Ctrl+Z when the view stands alone)."""
        if self.undoStack.canUndo():
            self.undoStack.undo()

    def set_undo_stack(self, stack: UndoStack) -> None:
        """Record deletions on the window's stack (Edit ▸ Undo), not the view's own."""
        self.undoStack = stack
        self.undoBar.follow(stack)

    def _ask(self, title: str, text: str) -> bool:
        answer = QMessageBox.warning(
            self, title, text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Yes

    def _export(self) -> None:
        from studio.library.bundle_file import bundle_name

        voice = self.current()
        if voice is None:
            return
        start = Path(start_folder(self._last_folder, avoid=data_dir())) / bundle_name(voice)
        path, _ = file_dialogs.save_file_name(self, "Export voice", str(start),
                                              "OmniVoice voice (*.ovoice)")
        if path:
            self._last_folder = str(Path(path).parent)
            self.export_requested.emit(voice.id, Path(path))

    def _import(self) -> None:
        path, _ = file_dialogs.open_file_name(
            self, "Import voice", start_folder(self._last_folder, avoid=data_dir()),
            "OmniVoice voice (*.ovoice)")
        if path:
            self._last_folder = str(Path(path).parent)
            self.import_requested.emit(Path(path))

    def toggle_play(self) -> None:
        voice = self.current()
        if voice is None or self._player is None:
            return
        key = ("voice", voice.id)
        if self._player.key() == key:
            self._player.toggle()
            return
        from studio.errors import UserError
        from studio.sound.files import read_audio

        try:
            audio, rate = read_audio(self.library().clip_path(voice.id))
        except UserError as exc:
            self.play_failed.emit(str(exc))
            return
        self._player.load(audio, rate, key)
        self._player.play()

    # ------------------------------------------------------------------ drag and drop
    def _prepare_drag(self, voice_id: str) -> None:
        from studio.errors import UserError

        try:
            self._drags.prepare(voice_id)
        except UserError:
            pass  # a voice gone meanwhile: the drag, if one follows, says so

    def _bundle_for_drag(self, voice_id: str) -> Path | None:
        """The voice as an .ovoice in a private temp folder, for a drag out of the list."""
        from studio.errors import UserError

        try:
            return self._drags.path(voice_id)
        except UserError as exc:
            self.notice.show_message(str(exc))
            return None

    def close_library(self) -> None:
        self._drags.close()
        super().close_library()

    def handle_drop(self, mime: QMimeData) -> bool:
        """An .ovoice file imports; an audio clip starts a new voice in the Clone view."""
        paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
        if not paths:
            return False
        for path in paths:
            if path.suffix.lower() == ".ovoice":
                self.import_requested.emit(path)
            elif path.suffix.lower() in AUDIO_SUFFIXES and len(paths) == 1:
                self.new_voice_requested.emit(path)
            else:
                self.notice.show_message(NOT_DROPPABLE.format(name=path.name))
                return False
        self.notice.clear_message()
        return True

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls() and event.source() is not self.list:
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        if self.handle_drop(event.mimeData()):
            event.acceptProposedAction()

    def sizeHint(self) -> QSize:
        return QSize(720, 600)
