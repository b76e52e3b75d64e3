"""The Script view: a multi-speaker project (.ovproj), line by line.

The view owns the open Project (every edit one undoable, committed transaction); the
worker renders lines (a LinesRequest) and saves each as a take, and the view chooses it
for its line as it arrives. Playback mixes the chosen takes with their pauses, and the
row of the line being heard follows the playhead; with Settings' Play as it renders,
a render's lines play in script order as they arrive (ScriptListener). Export writes the
mix, per-speaker stems, an SRT and a cue sheet.

Keyboard: Enter (or Add line) adds a line after the current one (same speaker) and
edits it; F2 edits; Ctrl+Enter renders the selected lines; Alt+1..9 gives them speaker
1..9; Delete removes them; Ctrl+Up/Down moves a line; Ctrl+Z / Ctrl+Shift+Z undo and redo.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
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

from studio.errors import UserError
from studio.paths import data_dir
from studio.views.script_cast import (
    CastPanel,
    cast_entries,
    preview_source,
    swatch,
    voice_words,
)
from studio.views.script_files import StartsScripts
from studio.views.script_lines_model import (
    LENGTH,
    NUMBER,
    SPEAKER,
    STATUS,
    TEXT,
    VOICE,
    LineRow,
    ScriptLinesModel,
)
from studio.views.script_live import ScriptListener
from studio.views.script_reflow import ReflowRow
from studio.views.takes_model import suspect_label
from studio.views.voices_model import ReadsVoices
from studio.views.widgets.collapsible import CollapsibleSection
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label
from studio.views.words import count_words, start_folder

SCRIPT_KEY = "script"  # the player's key of a project's mix: ("script", project path)
PRESETS = {"Draft": 12, "Standard": 16, "Final": 32}
DESIGN_ITEM = "Describe a voice…"
RENDER_CHANGED = "Render changed"


def render_changed_text(count: int) -> str:
    """The button that renders the lines with no take, or whose text or voice changed
    (short: the sentence is its tooltip, render_changed_tip)."""
    return f"Render {count} changed" if count else RENDER_CHANGED


def render_changed_tip(count: int) -> str:
    if not count:
        return "Render the lines that are new or changed: none are now (Ctrl+R)"
    return (f"Render the {count_words(count, 'line')} new or changed since "
            f"{'its' if count == 1 else 'their'} take (Ctrl+R)")


OPEN_HINT = "A project (.ovproj, new or existing) or a script to import (.txt, .md, .srt, .vtt)"
EMPTY_HINT = ("Start a New script…, open a project, or drop a script here to import it: "
              "lines such as \"Alice: Hello.\", Markdown "
              "with # chapters, or SRT/VTT subtitles. Each name becomes a speaker.")


NARROW_TABLE = 560  # px: below it the lines table leaves out the Voice column


def parse_dictionary(text: str):
    """``word = how to say it`` per line (blank lines and ``#`` comments ignored)."""
    from studio.engine.lexicon import Lexicon

    entries = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, sep, say = line.partition("=")
        if not sep or not word.strip() or not say.strip():
            raise UserError(f"Line {n} of the pronunciations needs the form word = how to "
                            "say it.")
        entries.append({"word": word.strip(), "say": say.strip()})
    return Lexicon.from_data(entries, "of this project")


def dictionary_text(lexicon) -> str:
    return "\n".join(f"{e.word} = {e.say}" for e in lexicon.entries)


class ScriptView(ReadsVoices, StartsScripts, QWidget):
    render_requested = Signal(object)  # LinesRequest
    cancel_requested = Signal()
    compare_requested = Signal(object)  # two take ids: the takes panel's A/B
    message = Signal(str)  # an information sentence for the status bar
    project_changed = Signal(object)  # the open project's path (None: none open)
    line_takes_shown = Signal(object, object)  # the current line's take ids, its chosen one
    play_failed = Signal(str)

    def __init__(self, player=None, *, takes=None, library=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("scriptView")
        self.setAccessibleName("Script view")
        self._player = player
        self._takes = takes  # () -> the read-only TakeLibrary (or None)
        self._library = library
        self.project = None  # studio.scripts.project.Project, while one is open
        self._busy = False
        self._in_flight: dict[int, str] = {}  # line id -> "queued" / "rendering"
        self._spans: list[tuple[int, float, float]] = []  # (line id, start, end) of the mix
        self._listener = ScriptListener(player) if player is not None else None
        self._made = False  # the open project was just made: its first line is its making
        self._shown_takes: tuple = ()  # what line_takes_shown last said: said again on change
        self._build()
        self._connect()
        self._refresh()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.pathEdit = QLineEdit()
        self.pathEdit.setObjectName("scriptPathEdit")
        self.pathEdit.setPlaceholderText(OPEN_HINT)
        self.pathEdit.setToolTip(OPEN_HINT)
        self.pathEdit.setAcceptDrops(False)  # a dropped script opens, not pasted as text
        self.openButton = QPushButton("Open")
        self.openButton.setObjectName("openScriptButton")
        self.openButton.setToolTip("Open the project, make it when it does not exist, or "
                                   "import the script into a new project beside it")
        self.browseButton = QPushButton("Browse…")
        self.browseButton.setObjectName("browseScriptButton")
        self.browseButton.setToolTip("Open a project, or import a script (.txt, .md, .srt, .vtt)")
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
        self.voiceCombo.setToolTip("A saved voice, or a voice described in words with a "
                                   "locked seed, so every line sounds like the same person")
        self.instructEdit = QLineEdit()
        self.instructEdit.setObjectName("speakerInstructEdit")
        self.instructEdit.setPlaceholderText("e.g. female, low pitch, british accent")
        self.seedLabel = hint_label("")
        self.seedLabel.setObjectName("speakerSeedLabel")
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
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for column, mode in ((NUMBER, QHeaderView.ResizeMode.ResizeToContents),
                             (SPEAKER, QHeaderView.ResizeMode.ResizeToContents),
                             (VOICE, QHeaderView.ResizeMode.Interactive),
                             (TEXT, QHeaderView.ResizeMode.Stretch),
                             (STATUS, QHeaderView.ResizeMode.Fixed),
                             (LENGTH, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        # Wide enough for the longest status, so the column does not jump as lines render.
        header.resizeSection(STATUS, self.table.fontMetrics().horizontalAdvance("not rendered") + 16)
        header.resizeSection(VOICE, self.table.fontMetrics().horizontalAdvance("x" * 18))
        self.cast = CastPanel()  # every speaker, its voice, a preview, a gone voice's warning
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
        self.addLineButton.setToolTip("Add a line after the selected one, in its speaker's voice "
                                      "(Enter on the lines does the same; Alt+1..9 gives the "
                                      "selected lines speaker 1..9)")
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
        self.playButton.setToolTip("Play the mix from the selected line; the row being heard "
                                   "follows (Ctrl+Space)")
        self.progress = QProgressBar()
        self.progress.setObjectName("scriptProgress")
        self.progress.setTextVisible(True)
        self.progress.hide()

        self.exportEdit = QLineEdit()
        self.exportEdit.setObjectName("exportPathEdit")
        self.exportEdit.setPlaceholderText("The mixed track: .wav, .flac, .ogg or .mp3")
        self.stemsCheck = QCheckBox("Stems")
        self.stemsCheck.setObjectName("exportStemsCheck")
        self.stemsCheck.setToolTip("One track per speaker, the mix's length, in a folder "
                                   "beside the mix")
        self.stemsCheck.setChecked(True)
        self.srtCheck = QCheckBox("Subtitles")
        self.srtCheck.setObjectName("exportSrtCheck")
        self.srtCheck.setToolTip("An SRT of what was rendered and a cue sheet of the chapters")
        self.srtCheck.setChecked(True)
        self.exportButton = QPushButton("Export")
        self.exportButton.setObjectName("exportScriptButton")
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
            ReflowRow((self.exportEdit,), (self.stemsCheck, self.srtCheck, self.exportButton),
                      grow=(self.exportEdit,)),
            status,
        ]
        for widget in self.rows:
            layout.addWidget(widget, 1 if widget is self.table else 0)

    def _reflow(self) -> None:
        """Texts changed (counts, names): each row checks again whether it still fits."""
        for row in self.rows:
            if isinstance(row, ReflowRow):
                row.reflow()
        # The Voice column repeats the cast's (above): narrow, the Text column needs it.
        self.table.setColumnHidden(VOICE, self.table.width() < NARROW_TABLE)

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
        self.model.text_edited.connect(lambda line_id, text: self._edit(
            self.project.set_line, line_id, text=text))
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
        self.cancelButton.clicked.connect(self.cancel_requested)
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
    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a project or import a script",
            start_folder(self.pathEdit.text().strip() or None, avoid=data_dir()),
            "Projects and scripts (*.ovproj *.txt *.md *.srt *.vtt)")
        if path:
            self.pathEdit.setText(path)
            self.open_path()

    @Slot()
    def open_path(self) -> None:
        text = self.pathEdit.text().strip()
        if not text:
            self.notice.show_message("Type the path of a project or a script, or Browse.")
            return
        try:
            self.open(Path(text).expanduser())
        except UserError as exc:
            self.notice.show_message(str(exc))

    def open(self, path: Path) -> None:
        """Open a project (made when it does not exist yet) or import a script into a new
        project beside it (``name.ovproj``, or ``name 2.ovproj`` when that exists)."""
        from studio.scripts.parse import read_script
        from studio.scripts.project import PROJECT_SUFFIX, Project

        path = Path(path).absolute()
        made = False
        if path.suffix.lower() == PROJECT_SUFFIX:
            existed = path.exists()
            made = not existed
            project = Project.open(path) if existed else Project.create(path)
            said = f"Opened {path.name}." if existed else f"Made the project {path.name}."
        else:
            script = read_script(path)
            target = path.with_suffix(PROJECT_SUFFIX)
            n = 2
            while target.exists():
                target = path.with_name(f"{path.stem} {n}{PROJECT_SUFFIX}")
                n += 1
            project = Project.from_script(target, script, self._known_voices(script.speakers))
            said = (f"Imported {path.name} into {target.name}: {len(script.lines)} lines, "
                    f"{len(script.speakers)} speakers.")
            for warning in script.warnings:
                said += " " + warning
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

    def _known_voices(self, speakers) -> dict[str, dict]:
        """Speakers named like a saved voice get that voice at import."""
        try:
            names = {v.name.lower(): v.name for v in self.library().list()}
        except Exception:
            return {}
        return {s: {"voice": names[s.lower()]} for s in speakers if s.lower() in names}

    def save_state(self, settings) -> None:
        settings.set_state("script/project", str(self.project.path) if self.project else "")

    def restore_state(self, settings) -> None:
        """The project open when the studio quit opens again (a moved one is said)."""
        path = settings.state("script/project")
        if not isinstance(path, str) or not path:
            return
        self.pathEdit.setText(path)
        if not Path(path).exists():
            self.notice.show_message(f"The project {Path(path).name} open last time is no "
                                     "longer there; open another or import a script.")
            return
        self.open_path()

    def close_project(self) -> None:
        if self.project is not None:
            if self._listener is not None:
                self._listener.abort()
            self._stop_mine()
            self.project.close()
            self.project = None
            self.project_changed.emit(None)

    # ------------------------------------------------------------------ editing
    def _edit(self, change, *args, **kwargs) -> bool:
        """One project edit; a refused one is said in the view and changes nothing."""
        if self.project is None:
            return False
        try:
            change(*args, **kwargs)
        except UserError as exc:
            self.notice.show_message(str(exc))
            return False
        self.notice.clear_message()
        self._refresh()
        return True

    def undo(self) -> None:
        if self.project is not None and self.project.undo():
            self._refresh()

    def redo(self) -> None:
        if self.project is not None and self.project.redo():
            self._refresh()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        if not rows and self.table.currentIndex().isValid():
            rows = [self.table.currentIndex().row()]
        return [self.model.row(r).line_id for r in rows if self.model.row(r) is not None]

    def select_row(self, row: int) -> None:
        """Make ``row`` the one selected and current line. (QTableView.selectRow would
        extend the selection while Ctrl is held, as it is for Ctrl+Up/Down.)"""
        index = self.model.index(row, TEXT)
        if not index.isValid():
            return
        flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                 | QItemSelectionModel.SelectionFlag.Rows)
        self.table.selectionModel().setCurrentIndex(index, flags)

    def current_line(self):
        ids = self.selected_ids()
        return self.project.line(ids[0]) if ids and self.project is not None else None

    def add_line(self) -> None:
        """A new line after the current one, in its speaker's voice, being edited."""
        if self.project is None:
            return
        current = self.current_line()
        speakers = self.project.speakers()
        if current is None and not speakers:
            self._edit(self.project.add_speaker, "Narrator", "design")
            speakers = self.project.speakers()
        speaker = current.speaker if current is not None else speakers[0].id
        before = {line.id for line in self.project.lines()}
        if not self._edit(self.project.add_line, speaker, "…",
                          after=current.id if current is not None else None):
            return
        if self._made and not before:
            # A new project's first speaker and line are its making, not an edit to undo
            # (Undo stood enabled on a project just made).
            self.project.forget_history()
            self._refresh_undo()
        self._made = False
        new = next(line.id for line in self.project.lines() if line.id not in before)
        row = self.model.row_of(new)
        self.select_row(row)
        self.table.edit(self.model.index(row, TEXT))

    def _add_line_clicked(self) -> None:
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)  # Enter adds the next one
        self.add_line()

    def delete_lines(self) -> None:
        for line_id in self.selected_ids():
            self._edit(self.project.delete_line, line_id)

    def _move(self, step: int) -> None:
        ids = self.selected_ids()
        if self.project is None or len(ids) != 1:
            return
        lines = self.project.lines()
        at = next(n for n, line in enumerate(lines) if line.id == ids[0])
        target = at + step
        if not 0 <= target < len(lines):
            return
        after = None if target == 0 else lines[target if step > 0 else target - 1].id
        self._edit(self.project.move_line, ids[0], after)
        self.select_row(self.model.row_of(ids[0]))

    def assign_speaker(self, number: int) -> None:
        """Alt+number: the selected lines get the project's speaker ``number``."""
        if self.project is None:
            return
        speakers = self.project.speakers()
        if not 1 <= number <= len(speakers):
            return
        for line_id in self.selected_ids():
            if self.project.line(line_id).speaker != speakers[number - 1].id:
                self._edit(self.project.set_line, line_id, speaker=speakers[number - 1].id)

    def _line_speaker_chosen(self, index: int) -> None:
        speaker = self.lineSpeakerCombo.itemData(index)
        for line_id in self.selected_ids():
            if self.project.line(line_id).speaker != speaker:
                self._edit(self.project.set_line, line_id, speaker=speaker)

    def _pause_edited(self) -> None:
        line = self.current_line()
        if line is not None and abs(line.pause_after - self.pauseSpin.value()) > 1e-9:
            self._edit(self.project.set_line, line.id, pause_after=self.pauseSpin.value())

    def _take_chosen(self, index: int) -> None:
        line, take = self.current_line(), self.takeCombo.itemData(index)
        if line is not None and take and take != line.take:
            self._edit(self.project.choose_take, line.id, take)

    def _add_speaker(self) -> None:
        name = self.newSpeakerEdit.text().strip()
        if self.project is not None and name and self._edit(self.project.add_speaker, name,
                                                            "design"):
            self.newSpeakerEdit.clear()
            self.speakerCombo.setCurrentIndex(self.speakerCombo.count() - 1)

    def current_speaker(self):
        speaker_id = self.speakerCombo.currentData()
        if self.project is None or speaker_id is None:
            return None
        return next((s for s in self.project.speakers() if s.id == speaker_id), None)

    def _voice_chosen(self, index: int) -> None:
        speaker, (kind, value) = self.current_speaker(), self.voiceCombo.itemData(index)
        if speaker is None:
            return
        if kind == "voice":
            self._edit(self.project.set_voice, speaker.id, "voice", voice=value,
                       language=speaker.language)
        elif kind == "design":
            self.instructEdit.setFocus()
            self._show_speaker()

    def _instruct_edited(self) -> None:
        speaker, instruct = self.current_speaker(), " ".join(self.instructEdit.text().split())
        if speaker is None or not instruct or (speaker.kind == "design"
                                               and speaker.instruct == instruct):
            return
        seed = speaker.seed if speaker.kind == "design" and speaker.seed is not None \
            else random.randrange(2**31)  # locked: every line of this speaker, the same voice
        self._edit(self.project.set_voice, speaker.id, "design", instruct=instruct, seed=seed,
                   language=speaker.language)

    def _apply_dictionary(self) -> None:
        try:
            lexicon = parse_dictionary(self.dictionaryEdit.toPlainText())
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        if self._edit(self.project.set_dictionary, lexicon):
            self.message.emit(f"The project's pronunciations: {len(lexicon)} "
                              f"entr{'y' if len(lexicon) == 1 else 'ies'}.")

    # ------------------------------------------------------------------ showing
    def _refresh(self) -> None:
        """Show the project as it is now (after every edit, render and undo)."""
        has = self.project is not None
        rows = self._rows() if has else []
        self.model.reload(rows)
        self._refresh_undo()
        speakers = self.project.speakers() if has else []
        for combo in (self.speakerCombo, self.lineSpeakerCombo):
            keep = combo.currentData()
            blocked = combo.blockSignals(True)
            combo.clear()
            for n, s in enumerate(speakers, 1):
                combo.addItem(swatch(s.colour), f"{s.name}  (Alt+{n})" if n < 10 and
                              combo is self.lineSpeakerCombo else s.name, s.id)
            combo.setCurrentIndex(max(0, combo.findData(keep)))
            combo.blockSignals(blocked)
        self.cast.show_cast(cast_entries(speakers, self.project.lines(), self._saved_names())
                            if has else [])
        self.cast.setVisible(has and bool(speakers))
        self.cast.select_speaker(self.speakerCombo.currentData())
        stale = sum(1 for r in rows if r.status in ("not rendered", "stale"))
        self.renderStaleButton.setText(render_changed_text(stale))
        self.renderStaleButton.setToolTip(render_changed_tip(stale))
        idle = has and not self._busy
        self._enable(self.renderStaleButton, idle and stale > 0)
        self._enable(self.renderAllButton, idle and bool(rows))
        self._enable(self.cancelButton, self._busy)
        self._enable(self.exportButton, has and any(r.take for r in rows))
        for widget in (self.voiceCombo, self.instructEdit, self.newSpeakerEdit, self.addLineButton,
                       self.dictionarySection, self.exportEdit, self.presetCombo):
            widget.setEnabled(has)
        if has:
            seconds = sum(r.seconds or 0 for r in rows)
            names = ", ".join(s.name for s in speakers) or "no speakers yet"
            self.projectLabel.setText(f"{self.project.path.name} · {count_words(len(rows), 'line')} · "
                                      f"{names} · {seconds:.1f} s rendered")
        else:
            self.projectLabel.setText(EMPTY_HINT)
        self._show_speaker()
        self._show_line()
        self._refresh_play()
        self._reflow()

    def _refresh_undo(self) -> None:
        has = self.project is not None
        self.undoButton.setEnabled(has and self.project.can_undo())
        self.redoButton.setEnabled(has and self.project.can_redo())

    def _enable(self, button: QPushButton, on: bool) -> None:
        """A focused button about to be disabled hands the focus to the lines; left to Qt
        it moved on in tab order, to the export path with its text selected, where one
        keystroke replaced it."""
        if not on and button.hasFocus():
            self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        button.setEnabled(on)

    def _rows(self) -> list[LineRow]:
        takes = self._takes() if self._takes is not None else None
        speakers = {s.id: s for s in self.project.speakers()}
        saved = self._saved_names()
        voices = {s.id: voice_words(s, saved) for s in speakers.values()}
        rows = []
        for line in self.project.lines():
            status = self._in_flight.get(line.id) or self.project.status(line)
            seconds = None
            problem = ""
            if line.take is not None and takes is not None:
                try:
                    take = takes.get(line.take)
                    seconds = take.audio_seconds
                    if status == "done" and take.suspects:
                        status = "suspect"
                        problem = suspect_label(take.suspects[0]).lower()
                except UserError:
                    status = self._in_flight.get(line.id) or "not rendered"
            speaker = speakers.get(line.speaker)
            voice, voice_problem = voices.get(line.speaker, ("", ""))
            rows.append(LineRow(line.id, speaker.name if speaker else "?",
                                speaker.colour if speaker else "", line.text, status, seconds,
                                line.take, problem, voice, voice_problem))
        return rows

    def _saved_names(self) -> set[str]:
        """The saved voices' names, folded (a damaged library: none)."""
        try:
            return {v.name.lower() for v in self.library().list()}
        except Exception:
            return set()

    def preview_speaker(self, speaker_id: int) -> None:
        """Hear a speaker's voice: a saved voice's or a clip speaker's clip; a described
        voice's rendered line (its first line is rendered when none is yet)."""
        from studio.engine.audio import read_audio

        if self.project is None or self._player is None:
            return
        speaker = next((s for s in self.project.speakers() if s.id == speaker_id), None)
        if speaker is None:
            return
        saved = self._saved(speaker)
        kind, what = preview_source(speaker, self.project.lines(),
                                    saved.clip if saved is not None else None)
        try:
            if kind == "render":
                self.message.emit(f"Rendering {speaker.name}'s first line to hear the voice.")
                self.render_lines([what])
                return
            if kind == "clip":
                audio, rate = read_audio(what)
                audio = audio.mean(axis=0) if audio.ndim == 2 else audio
            elif kind == "take":
                audio, rate = self._takes().read_audio(what)
            else:
                return
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        self._player.load(audio, rate, ("cast", str(self.project.path), speaker_id))
        self._player.play()

    def _show_speaker(self) -> None:
        speaker = self.current_speaker()
        blocked = self.voiceCombo.blockSignals(True)
        self.voiceCombo.clear()
        self.voiceCombo.addItem(DESIGN_ITEM, ("design", None))
        try:
            voices = self.library().list()
        except Exception:  # a damaged library: the design option still works
            voices = []
        for voice in voices:
            self.voiceCombo.addItem(f"Saved voice: {voice.name}", ("voice", voice.name))
        if speaker is not None and speaker.kind == "clip":
            self.voiceCombo.addItem(f"Clip: {Path(speaker.clip).name}", ("clip", speaker.clip))
        selected = 0
        if speaker is not None:
            want = ("voice", speaker.voice) if speaker.kind == "voice" else (
                ("clip", speaker.clip) if speaker.kind == "clip" else ("design", None))
            for i in range(self.voiceCombo.count()):
                data = self.voiceCombo.itemData(i)
                if data[0] == want[0] and (data[1] or "").lower() == (want[1] or "").lower():
                    selected = i
            if speaker.kind == "voice" and selected == 0:  # gone from the library
                self.voiceCombo.addItem(f"Missing voice: {speaker.voice}", ("voice", speaker.voice))
                selected = self.voiceCombo.count() - 1
        self.voiceCombo.setCurrentIndex(selected)
        self.voiceCombo.blockSignals(blocked)
        design = speaker is not None and speaker.kind == "design"
        # Always there (greyed for a saved voice or a clip), so the row keeps its layout.
        self.instructEdit.setEnabled(self.project is not None and (speaker is None or design))
        self.instructEdit.setPlaceholderText(
            "e.g. female, low pitch, british accent" if speaker is None or design else
            "Described by its saved voice" if speaker.kind == "voice" else "Described by its clip")
        if not self.instructEdit.hasFocus():
            self.instructEdit.setText(speaker.instruct or "" if design else "")
        locked = design and speaker.seed is not None
        self.seedLabel.setText("Variation locked" if locked else "")
        self.seedLabel.setToolTip(
            (f"Variation {speaker.seed}: every line of this speaker renders this variation, so "
             "the described voice stays the same person") if locked else "")

    def _show_line(self, *_args) -> None:
        line = self.current_line()
        for widget in (self.lineSpeakerCombo, self.pauseSpin, self.takeCombo):
            widget.setEnabled(line is not None)
        self._enable(self.newSeedButton, line is not None and not self._busy)
        self.playButton.setEnabled(self._player is not None and any(
            r.take for r in self.model.rows()))
        self.lineLabel.setText(f"Line {self.model.row_of(line.id) + 1}" if line else "Line")
        if line is None:
            self.readsLabel.setText("")
            self.readsLabel.hide()
            self.takeCombo.clear()
            self.compareButton.setEnabled(False)
            self._shown_takes = ()
            return
        for combo, value in ((self.lineSpeakerCombo, line.speaker),):
            blocked = combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(blocked)
        if not self.pauseSpin.hasFocus():
            self.pauseSpin.setValue(line.pause_after)
        takes = self.project.takes_of(line.id)
        blocked = self.takeCombo.blockSignals(True)
        self.takeCombo.clear()
        if not takes:
            self.takeCombo.addItem("No takes yet", None)
        library = self._takes() if self._takes is not None else None
        for n, take_id in enumerate(takes, 1):
            label = f"Take {n} of {len(takes)}"
            try:
                take = library.get(take_id) if library is not None else None
            except UserError:
                continue  # deleted from the take library
            if take is not None:
                label += f" · {take.audio_seconds:.1f} s"
            self.takeCombo.addItem(label, take_id)
            if take is not None:
                self.takeCombo.setItemData(self.takeCombo.count() - 1,
                                           f"Variation {take.settings.seed}",
                                           Qt.ItemDataRole.ToolTipRole)
        self.takeCombo.setCurrentIndex(max(0, self.takeCombo.findData(line.take)))
        self.takeCombo.blockSignals(blocked)
        self.compareButton.setEnabled(line.take is not None and self.takeCombo.count() > 1)
        shown = (line.id, tuple(takes), line.take)
        if takes and shown != self._shown_takes:  # not on every edit: the user's pick stays
            self._shown_takes = shown
            self.line_takes_shown.emit(list(takes), line.take)
        reads = self._reads(line)
        self.readsLabel.setText(f"The model reads: {reads}" if reads != line.text else "")
        self.readsLabel.setVisible(reads != line.text)

    def _reads(self, line) -> str:
        """The line as the model will read it: this project's pronunciations, then the
        data folder's."""
        from studio.engine.lexicon import load_pronunciations

        try:
            lexicon = self.project.dictionary() + (load_pronunciations() or _empty())
        except UserError:
            lexicon = self.project.dictionary()
        return lexicon.apply(line.text, line.language) if lexicon else line.text

    def _compare(self) -> None:
        line = self.current_line()
        if line is None or line.take is None:
            return
        others = [t for t in (self.takeCombo.itemData(i) for i in range(self.takeCombo.count()))
                  if t and t != line.take]
        if others:
            self.compare_requested.emit([line.take, others[-1]])

    # ------------------------------------------------------------------ rendering
    def render_stale(self) -> None:
        if self.project is not None:
            self.render_lines([line.id for line in self.project.stale_lines()])

    def render_lines(self, line_ids, *, new_seed: bool = False) -> None:
        """Ask the worker for these lines, batched by voice, in script order."""
        from studio.engine.options import DecodeOptions, GenerationOptions
        from studio.service.lines import line_request
        from studio.service.requests import LinesRequest

        if self.project is None or self._busy or not line_ids:
            return
        options = GenerationOptions(decode=DecodeOptions(num_step=self.presetCombo.currentData()))
        speakers = {s.id: s for s in self.project.speakers()}
        order = {line.id: n for n, line in enumerate(self.project.lines())}
        requests, keys = [], []
        try:
            for line_id in sorted(line_ids, key=lambda i: order.get(i, 0)):
                line, speaker = self.project.line(line_id), speakers[self.project.line(line_id).speaker]
                seed = random.randrange(2**31) if new_seed else (
                    line.seed if line.seed is not None else speaker.seed if speaker.seed is not None
                    else random.randrange(2**31))
                requests.append(line_request(speaker, line, options, seed=seed,
                                             saved=self._saved(speaker),
                                             project=str(self.project.path),
                                             number=order.get(line_id, 0) + 1))
                keys.append(line_id)
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        self._in_flight = {key: "queued" for key in keys}
        self.notice.clear_message()
        self.render_requested.emit(LinesRequest(tuple(requests), tuple(keys),
                                                self.project.dictionary() or None))

    def _saved(self, speaker):
        if speaker.kind != "voice":
            return None
        try:
            voice = self.library().find(speaker.voice)
            return SimpleNamespace(id=voice.id, transcript=voice.transcript,
                                   clip=self.library().clip_path(voice.id))
        except UserError:
            return None

    # The main window routes the lines job's signals here (as it does a form's).
    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)
            self.progress.setFormat("Starting …")
        else:
            self._in_flight.clear()
            if self._listener is not None:
                self._listener.finish()
        self._refresh()

    def on_progress(self, step: int, steps: int, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total * steps))
        self.progress.setValue(done * steps + step)
        self.progress.setFormat(f"Line {min(done + 1, total)} of {total} · step {step}/{steps}")
        rendering = [k for k, v in self._in_flight.items() if v in ("queued", "rendering")]
        if rendering and self._in_flight[rendering[0]] != "rendering":
            self._in_flight[rendering[0]] = "rendering"
            self.model.reload(self._rows())

    def listen(self, keys) -> None:
        """Play the lines just asked for (their keys) in script order as they arrive."""
        if self._listener is None or self.project is None:
            return
        pauses = {}
        for key in keys:
            try:
                pauses[key] = self.project.line(key).pause_after
            except UserError:
                continue  # deleted since it was asked for
        self._listener.start(self._key(), [k for k in keys if k in pauses], pauses,
                             exists=self._exists)
        self._spans = self._listener.spans

    def on_line(self, done) -> None:
        """A line rendered (LineDone): its take becomes the line's choice, and it plays
        when the lines before it have (while listening)."""
        self._in_flight.pop(done.key, None)
        exists = self.project is not None and self._exists(done.key)
        if self._listener is not None:
            self._listener.line_done(done.key, done.take.audio if exists else None,
                                     done.take.sample_rate)
        if not exists:
            return  # deleted while it rendered
        if done.take.take_id is not None:
            self.project.choose_take(done.key, done.take.take_id)
        self._refresh()

    def _exists(self, line_id: int) -> bool:
        try:
            self.project.line(line_id)
            return True
        except UserError:
            return False

    def on_lines_finished(self, result) -> None:
        text = (f"Rendered {result.rendered} line{'s' if result.rendered != 1 else ''} "
                f"({result.audio_seconds:.1f} s of audio) in {result.seconds:.1f} s.")
        if result.warnings:
            text += " " + " ".join(result.warnings)
        self.message.emit(text)

    def on_failed(self, sentence: str) -> None:
        self.notice.show_message(sentence)

    def on_cancelled(self) -> None:
        self.message.emit("Cancelled; the lines rendered before it keep their takes.")

    def stop_live(self) -> None:
        """Cancel: the lines playing as they render stop now."""
        if self._listener is not None:
            self._listener.abort()

    # ------------------------------------------------------------------ playing
    def _key(self):
        return (SCRIPT_KEY, str(self.project.path)) if self.project is not None else None

    def _mine(self) -> bool:
        return self._player is not None and self._key() is not None \
            and self._player.key() == self._key()

    def toggle_play(self) -> None:
        if self._player is None or self.project is None:
            return
        if self._mine() and self._player.state() == "playing":
            self._player.pause()
            return
        if self._mine() and self._player.streaming():
            self._player.play()  # a render's lines, paused: carry on where they were
            return
        from studio.scripts.export import project_mix

        try:
            script, rendered, rate = project_mix(self.project, self._takes(), missing="skip")
        except UserError as exc:
            self.play_failed.emit(str(exc))
            return
        rendered_ids = [line.id for line in self.project.lines()
                        if line.take is not None]
        self._spans = [(line_id, start / rate, end / rate) for line_id, (start, end)
                       in zip(rendered_ids, rendered.spans)]
        start = 0.0
        ids = self.selected_ids()
        if ids:
            start = next((s for line_id, s, _e in self._spans if line_id == ids[0]), 0.0)
        self._player.load(rendered.mix, rate, self._key())
        self._player.seek(start)
        self._player.play()

    def _follow(self, seconds: float) -> None:
        """The row of the line being heard is the current one while the mix plays."""
        if not self._mine() or self._player.state() != "playing":
            return
        for line_id, start, end in self._spans:
            if start <= seconds < end:
                row = self.model.row_of(line_id)
                if row >= 0 and row != self.table.currentIndex().row():
                    self.select_row(row)
                    self.table.scrollTo(self.model.index(row, 0))
                return

    def _refresh_play(self) -> None:
        playing = self._mine() and self._player.state() == "playing"
        self.playButton.setText("Pause" if playing else "Play from line")

    def _stop_mine(self) -> None:
        if self._mine():
            self._player.stop()

    # ------------------------------------------------------------------ export
    def export(self) -> None:
        from studio.scripts.export import export_project

        if self.project is None:
            return
        text = self.exportEdit.text().strip()
        if not text:
            self.notice.show_message("Type where the mix goes, such as show.wav.")
            return
        mix = Path(text).expanduser().absolute()
        stale = sum(1 for r in self.model.rows() if r.status == "stale")
        try:
            written = export_project(self.project, self._takes(), mix,
                                     stems=self.stemsCheck.isChecked(),
                                     srt=self.srtCheck.isChecked())
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        except OSError as exc:
            self.notice.show_message(f"The export could not be written to {mix.parent} "
                                     f"({exc.strerror or exc}); nothing was kept.")
            return
        if self.project.setting("export_path") != str(mix):
            self.project.set_setting("export_path", str(mix))
            self._refresh()
        said = f"Exported {mix.name} and {len(written) - 1} more files to {mix.parent}."
        if stale:
            said += (f" {stale} line{'s' if stale != 1 else ''} changed after rendering: the mix "
                     "has the takes rendered before the change.")
        self.notice.show_message(said, error=False)
        self.message.emit(said)


def _empty():
    from studio.engine.lexicon import Lexicon

    return Lexicon()
