"""The Script view: a multi-speaker project (.ovproj), line by line.

The view owns the open Project (every edit one undoable, committed transaction); the
worker renders lines (a LinesRequest) and saves each as a take, and the view chooses it
for its line as it arrives. Playback mixes the chosen takes with their pauses, and the
row of the line being heard follows the playhead; with Settings' Play as it renders,
a render's lines play in script order as they arrive (ScriptListener). Export writes the
mix, per-speaker stems, an SRT and a cue sheet; the mix is made and written on a thread
of its own (script_export.py), never on the GUI thread.

This module builds the widgets, connects them and opens and closes projects; the rest
is split by what it does: script_editing (edits), script_showing (showing the project),
script_rendering (asking the worker for lines), script_export (playing and exporting
the mix), and the cast panel, lines model, reflowing rows and file drops beside them.

Keyboard: Enter adds a line after the current one (same speaker) and edits it (Add line:
for the speaker chosen in the cast); F2 edits; Ctrl+Enter renders the selected lines; Alt+1..9 gives them speaker
1..9; Delete removes them; Ctrl+Up/Down moves a line; Ctrl+Z / Ctrl+Shift+Z undo and redo.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.engine.options import PRESETS
from studio.scripts.dictionary import Pronunciations, dictionary_text
from studio.views.play_state import play_off
from studio.views.script_cast import CastPanel
from studio.views.script_columns import LineColumns
from studio.views.script_editing import EditsLines
from studio.views.script_export import PlaysAndExports, build_export_row
from studio.views.script_files import StartsScripts
from studio.views.script_import import (
    ImportsBooks,
)
from studio.views.script_lines_model import (
    TEXT,
    ScriptLinesModel,
)
from studio.views.script_live import ScriptListener
from studio.views.script_reflow import ReflowRow
from studio.views.script_rendering import RendersLines
from studio.views.script_showing import (
    EMPTY_HINT,
    RENDER_CHANGED,
    SEED_LOCKED,
    VOICE_BOX_TIP,
    ShowsProject,
    render_changed_tip,
)
from studio.views.script_text_delegate import LineTextDelegate
from studio.views.voices_model import ReadsVoices
from studio.views.widgets.collapsible import CollapsibleSection
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label

OPEN_HINT = "Project (.ovproj) or script to import"  # fits the field at 1024x640
OPEN_TIP = ("A project (.ovproj, new or existing) or a script to import (.txt, .md, .srt, "
            ".vtt, .epub)")


class ScriptView(EditsLines, ShowsProject, RendersLines, PlaysAndExports, ReadsVoices,
                 StartsScripts, ImportsBooks, QWidget):
    render_requested = Signal(object)  # LinesRequest
    cancel_requested = Signal()
    compare_requested = Signal(object)  # two take ids: the takes panel's A/B
    message = Signal(str)  # an information sentence for the status bar
    exported = Signal(str, str)  # what an export wrote (a sentence), and its folder
    project_changed = Signal(object)  # the open project's path (None: none open)
    line_takes_shown = Signal(object, object)  # the current line's take ids, its chosen one
    play_failed = Signal(str)

    def __init__(self, player=None, *, takes=None, library=None, audio_status=None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("scriptView")
        self.setAccessibleName("Script view")
        # Every play button here follows the window's one audio status (greyed, its reason).
        self._play_off = play_off(player, audio_status)
        player = player if self._play_off is None else None
        self._player = player
        self._takes = takes  # () -> the read-only TakeLibrary (or None)
        self._library = library
        self.project = None  # studio.scripts.project.Project, while one is open
        self._busy = False
        self._cancelling = False  # Cancel pressed; the render or file task not stopped yet
        self._in_flight: dict[int, str] = {}  # line id -> "queued" / "rendering"
        self._spans: list[tuple[int, float, float]] = []  # (line id, start, end) of the mix
        self._listener = ScriptListener(player) if player is not None else None
        self._made = False  # the open project was just made: its first line is its making
        self._shown_takes: tuple = ()  # what line_takes_shown last said: said again on change
        self._pronunciations = Pronunciations()  # the data folder's, read when it changes
        self._dictionary = None  # the open project's own Lexicon, read at each refresh
        self._reopened = ""  # said once past the model-ready line: the project open at quit
        # Whether Edit ▸ Undo here would next take back what it names (deleted_voice(name));
        # the window's menus answer it.
        self.undo_gives_back: Callable[[object], bool] = lambda _about: False
        self._missing_said: tuple[str, str] | None = None  # (voice, the sentence shown)
        self._build()
        self._connect()
        self._refresh()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.pathEdit = QLineEdit()
        self.pathEdit.setObjectName("scriptPathEdit")
        self.pathEdit.setPlaceholderText(OPEN_HINT)
        self.pathEdit.setToolTip(OPEN_TIP)
        self.pathEdit.setAcceptDrops(False)  # a dropped script opens, not pasted as text
        self.openButton = QPushButton("Open")
        self.openButton.setObjectName("openScriptButton")
        self.openButton.setToolTip("Open the project, make it when it does not exist, or "
                                   "import the script into a new project beside it")
        self.browseButton = QPushButton("Browse…")
        self.browseButton.setObjectName("browseScriptButton")
        self.browseButton.setToolTip("Open a project, or import a script or a book (.epub)")
        self.newButton = QPushButton("New script…")
        self.newButton.setObjectName("newScriptButton")
        self.newButton.setToolTip("Start a new project: name its file, then type its lines "
                                  "(or drop a script file on this view)")
        self.projectLabel = hint_label(EMPTY_HINT)
        self.projectLabel.setObjectName("projectLabel")
        self.undoButton = QPushButton("Undo")
        self.undoButton.setObjectName("undoScriptButton")
        self.undoButton.setToolTip("Undo the last edit (Ctrl+Z)")
        self.redoButton = QPushButton("Redo")
        self.redoButton.setObjectName("redoScriptButton")
        self.redoButton.setToolTip("Redo (Ctrl+Shift+Z)")

        self.speakerCombo = QComboBox()
        self.speakerCombo.setObjectName("speakerCombo")
        self.speakerCombo.setSizeAdjustPolicy(  # a whole name, not its first letters
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.speakerCombo.setMinimumContentsLength(10)
        self.speakerCombo.setToolTip("The speaker whose voice is shown (Alt+1..9 gives the "
                                     "selected lines a speaker)")
        self.voiceCombo = QComboBox()
        self.voiceCombo.setObjectName("speakerVoiceCombo")
        # As wide as a usual voice name, not the longest one: the description box needs room.
        self.voiceCombo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.voiceCombo.setMinimumContentsLength(12)
        self.voiceCombo.setToolTip(VOICE_BOX_TIP)
        self.instructEdit = QLineEdit()
        self.instructEdit.setObjectName("speakerInstructEdit")
        self.instructEdit.setPlaceholderText("e.g. female, low pitch, british accent")
        self.seedLabel = hint_label("")
        self.seedLabel.setObjectName("speakerSeedLabel")
        # Its room kept for every speaker: shown for the first, it stacked the row at 1024 px
        # and moved the description box from under the pointer.
        self.seedLabel.setWordWrap(False)
        self.seedLabel.setMinimumWidth(
            self.seedLabel.fontMetrics().horizontalAdvance(SEED_LOCKED) + 4)
        self.newSpeakerEdit = QLineEdit()
        self.newSpeakerEdit.setObjectName("newSpeakerEdit")
        self.newSpeakerEdit.setPlaceholderText("New speaker…")
        self.newSpeakerEdit.setMaximumWidth(150)
        self.newSpeakerEdit.setToolTip("Type a name and press Enter to add a speaker")

        self.model = ScriptLinesModel(self)
        self.table = QTableView()
        self.table.setObjectName("scriptLines")
        self.table.setAccessibleName("Script lines")
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(TEXT, LineTextDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.columns = LineColumns(self.table)  # Text takes what the others leave
        # every speaker, its voice, a preview, a gone voice's warning
        self.cast = CastPanel(play_off=self._play_off)
        self.table.installEventFilter(self)

        self.lineSpeakerCombo = QComboBox()
        self.lineSpeakerCombo.setObjectName("lineSpeakerCombo")
        self.lineSpeakerCombo.setToolTip("Who says this line")
        self.lineSpeakerCombo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.lineSpeakerCombo.setMinimumContentsLength(14)  # "Narrator  (Alt+1)"
        self.pauseSpin = QDoubleSpinBox()
        self.pauseSpin.setObjectName("linePauseSpin")
        self.pauseSpin.setRange(0.0, 60.0)
        self.pauseSpin.setSingleStep(0.1)
        self.pauseSpin.setDecimals(1)
        self.pauseSpin.setSuffix(" s pause")
        # Never narrower than "60.0 s pause": squeezed by the row it read "0.3 s paus".
        self.pauseSpin.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.pauseSpin.setToolTip("Silence after this line in the mix")
        self.takeCombo = QComboBox()
        self.takeCombo.setObjectName("lineTakeCombo")
        self.takeCombo.setToolTip("This line's takes: the one chosen goes into the mix")
        # As wide as its longest "Take n of m · s" (its first item was "No takes yet").
        self.takeCombo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.newSeedButton = QPushButton("New variation")
        self.newSeedButton.setObjectName("newSeedButton")
        self.newSeedButton.setToolTip("Render this line again as another variation; its earlier "
                                      "takes stay for picking and A/B")
        self.compareButton = QPushButton("A/B…")
        self.compareButton.setObjectName("compareLineButton")
        self.compareButton.setToolTip("Compare this line's chosen take with its newest other "
                                      "take")
        self.addLineButton = QPushButton("Add line")
        self.addLineButton.setObjectName("addLineButton")
        self.addLineButton.setToolTip("Add a line after the selected one, for the speaker chosen "
                                      "in the cast (Enter on the lines adds one for the selected "
                                      "line's speaker; Alt+1..9 gives the selected lines speaker "
                                      "1..9)")
        self.readsLabel = hint_label("")
        self.readsLabel.setObjectName("readsLabel")

        self.dictionaryEdit = QPlainTextEdit()
        self.dictionaryEdit.setObjectName("dictionaryEdit")
        self.dictionaryEdit.setPlaceholderText("One per line: word = how to say it\n"
                                               "Nguyen = Win\nSQL = sequel")
        self.dictionaryEdit.setFixedHeight(84)
        self.applyDictionaryButton = QPushButton("Apply")
        self.applyDictionaryButton.setObjectName("applyDictionaryButton")
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(hint_label("Whole words, case-insensitive, for this project's lines "
                                    "(the data folder's pronunciations.json applies too)."))
        column.addWidget(self.dictionaryEdit)
        column.addWidget(self.applyDictionaryButton, 0, Qt.AlignmentFlag.AlignRight)
        self.dictionarySection = CollapsibleSection("Pronunciations", body)
        self.dictionarySection.setObjectName("dictionarySection")

        self.presetCombo = QComboBox()
        self.presetCombo.setObjectName("scriptPresetCombo")
        for name, steps in PRESETS.items():
            self.presetCombo.addItem(name, steps)
            self.presetCombo.setItemData(self.presetCombo.count() - 1, f"{steps} decoding steps",
                                         Qt.ItemDataRole.ToolTipRole)
        self.presetCombo.setCurrentText("Standard")
        self.renderStaleButton = QPushButton(RENDER_CHANGED)
        self.renderStaleButton.setObjectName("renderStaleButton")
        self.renderStaleButton.setToolTip(render_changed_tip(0))
        self.renderAllButton = QPushButton("Render all")
        self.renderAllButton.setObjectName("renderAllButton")
        self.cancelButton = QPushButton("Cancel")
        self.cancelButton.setObjectName("cancelScriptButton")
        self.playButton = QPushButton("Play from line")
        self.playButton.setObjectName("playScriptButton")
        self.playButton.setToolTip(self._play_off or "Play the mix from the selected line; "
                                   "the row being heard follows (Ctrl+Space)")
        self.progress = QProgressBar()
        self.progress.setObjectName("scriptProgress")
        self.progress.setTextVisible(True)
        self.progress.hide()

        build_export_row(self)
        self.notice = MessageLabel()
        self.notice.setObjectName("scriptNotice")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(6)  # (640 px high: every row taken is a line of the table lost)
        # Each row stacks its groups when the view is narrow (1024 px wide, beside the
        # sidebar and the takes panel), rather than cutting their text.
        self.lineLabel = QLabel("Line")
        self.lineLabel.setObjectName("lineLabel")
        self.voiceOfLabel = QLabel("Voice of")
        self.instructEdit.setMinimumWidth(
            self.instructEdit.fontMetrics().horizontalAdvance("female, low pitch, british") + 16)
        # Messages and the progress share one line kept for them at the bottom, so that
        # neither moves the buttons when it comes or goes.
        status = QWidget()
        status.setObjectName("scriptStatusLine")
        line = QHBoxLayout(status)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.notice, 1)
        line.addWidget(self.progress)
        self.progress.setMinimumWidth(self.progress.fontMetrics().horizontalAdvance(
            "Line 10 of 10 · step 16/16") + 24)
        status.setMinimumHeight(max(self.progress.sizeHint().height(),
                                    self.notice.fontMetrics().lineSpacing() + 4))
        self.rows = [
            ReflowRow((heading_label("Script", size_delta=4),),
                      (None, self.newSpeakerEdit, self.undoButton, self.redoButton)),
            ReflowRow((self.pathEdit,), (self.openButton, self.browseButton, self.newButton),
                      grow=(self.pathEdit,)),
            self.projectLabel,
            self.cast,
            ReflowRow((self.voiceOfLabel, self.speakerCombo, self.voiceCombo),
                      (self.instructEdit, self.seedLabel), grow=(self.instructEdit,)),
            self.table,
            ReflowRow((self.lineLabel, self.lineSpeakerCombo, self.pauseSpin, None,
                       self.playButton),
                      (self.takeCombo, self.newSeedButton, self.compareButton,
                       self.addLineButton), grow=(self.takeCombo,)),
            self.readsLabel,
            self.dictionarySection,
            ReflowRow((self.presetCombo, self.renderStaleButton, self.renderAllButton,
                       self.cancelButton, None)),
            ReflowRow((self.exportEdit,), (self.stemsCheck, self.srtCheck,
                                           self.exportButton), grow=(self.exportEdit,)),
            status,
        ]
        for widget in self.rows:
            layout.addWidget(widget, 1 if widget is self.table else 0)

    def _reflow(self) -> None:
        """Texts changed (counts, names): each row checks again whether it still fits."""
        for row in self.rows:
            if isinstance(row, ReflowRow):
                row.reflow()
        self.columns.fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._reflow()

    def _connect(self) -> None:
        self.openButton.clicked.connect(self.open_path)
        self.pathEdit.returnPressed.connect(self.open_path)
        self.browseButton.clicked.connect(self._browse)
        self.newButton.clicked.connect(self.new_script)
        self.setAcceptDrops(True)
        self.undoButton.clicked.connect(self.undo)
        self.redoButton.clicked.connect(self.redo)
        self.speakerCombo.currentIndexChanged.connect(self._show_speaker)
        self.speakerCombo.currentIndexChanged.connect(
            lambda _i: self.cast.select_speaker(self.speakerCombo.currentData()))
        self.cast.speaker_chosen.connect(
            lambda s: self.speakerCombo.setCurrentIndex(max(0, self.speakerCombo.findData(s))))
        self.cast.preview_requested.connect(self.preview_speaker)
        self.voiceCombo.activated.connect(self._voice_chosen)
        self.instructEdit.editingFinished.connect(self._instruct_edited)
        self.newSpeakerEdit.returnPressed.connect(self._add_speaker)
        self.model.text_edited.connect(self._line_typed)
        self.table.selectionModel().selectionChanged.connect(self._show_line)
        self.table.selectionModel().currentRowChanged.connect(self._show_line)
        self.lineSpeakerCombo.activated.connect(self._line_speaker_chosen)
        self.pauseSpin.editingFinished.connect(self._pause_edited)
        self.takeCombo.activated.connect(self._take_chosen)
        self.addLineButton.clicked.connect(self._add_line_clicked)
        self.newSeedButton.clicked.connect(lambda: self.render_lines(self.selected_ids(),
                                                                     new_seed=True))
        self.compareButton.clicked.connect(self._compare)
        self.applyDictionaryButton.clicked.connect(self._apply_dictionary)
        self.renderStaleButton.clicked.connect(self.render_stale)
        self.renderAllButton.clicked.connect(lambda: self.render_lines(
            [r.line_id for r in self.model.rows()]))
        self.cancelButton.clicked.connect(self._cancel_clicked)
        self.playButton.clicked.connect(self.toggle_play)
        self.exportButton.clicked.connect(self.export)
        self.exportEdit.returnPressed.connect(self.export)
        keys = {
            "Ctrl+Z": self.undo, "Ctrl+Shift+Z": self.redo, "Ctrl+Y": self.redo,
            "Ctrl+Return": lambda: self.render_lines(self.selected_ids()),
            "Ctrl+Enter": lambda: self.render_lines(self.selected_ids()),
            "Ctrl+R": self.render_stale, "Ctrl+Space": self.toggle_play,
            "Ctrl+Up": lambda: self._move(-1), "Ctrl+Down": lambda: self._move(1),
        }
        for n in range(1, 10):
            keys[f"Alt+{n}"] = lambda n=n: self.assign_speaker(n)
        for sequence, slot in keys.items():
            shortcut = QShortcut(QKeySequence(sequence), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        if self._player is not None:
            self._player.position_changed.connect(self._follow)
            self._player.state_changed.connect(lambda _s: self._refresh_play())
            self._player.loaded.connect(lambda _k: self._refresh_play())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table and event.type() == QEvent.Type.KeyPress \
                and self.table.state() != QAbstractItemView.State.EditingState:
            key, mods = event.key(), event.modifiers()
            plain = mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and plain:
                self.add_line()
                return True
            if key == Qt.Key.Key_Delete and plain:
                self.delete_lines()
                return True
            # A script file copied in the file manager, pasted on the lines (text fields
            # keep their own paste).
            if event.matches(QKeySequence.StandardKey.Paste):
                return self.handle_drop(QApplication.clipboard().mimeData())
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ files
    def show_project(self, project, said: str, made: bool = False) -> None:
        """``project`` (just opened) replaces the open one; ``said`` goes to the status bar."""
        self.close_project()
        self.project = project
        self._made = made
        self.pathEdit.setText(str(project.path))
        mix = project.setting("export_path") or str(project.path.with_suffix(".wav"))
        self.exportEdit.setText(mix)
        self.dictionaryEdit.setPlainText(dictionary_text(project.dictionary()))
        self.notice.clear_message()
        self._refresh()
        if self.model.rowCount():
            self.select_row(0)
        self.project_changed.emit(project.path)
        self.message.emit(said)

    def save_state(self, settings) -> None:
        settings.set_state("script/project", str(self.project.path) if self.project else "")
        settings.set_state("script/pronunciations_open", self.dictionarySection.is_expanded())

    def restore_state(self, settings) -> None:
        """The project open when the studio quit opens again (a moved one is said)."""
        opened = settings.state("script/pronunciations_open")
        if opened in (True, False, "true", "false"):  # an INI file hands back strings
            self.dictionarySection.set_expanded(opened in (True, "true"))
        path = settings.state("script/project")
        if not isinstance(path, str) or not path:
            return
        self.pathEdit.setText(path)
        if not Path(path).exists():
            self.notice.show_message(f"The project {Path(path).name} open last time is no "
                                     "longer there; open another or import a script.")
            return
        if self._open_saying(Path(path).expanduser()):
            self._reopened = f"Reopened {Path(path).name}, as you left it."
            self.message.emit(self._reopened)

    def reopened_said(self) -> str:
        """The sentence for the project reopened at start, once (then "")."""
        said, self._reopened = self._reopened, ""
        return said

    def close_project(self) -> None:
        self._stop_tasks()
        if self.project is not None:
            if self._listener is not None:
                self._listener.abort()
            self._stop_mine()
            self.project.close()
            self.project = None
            self.project_changed.emit(None)
