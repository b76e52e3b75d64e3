"""The takes panel: every take in the library, searchable, with the selected take's
waveform, notes and actions.

The panel reads a read-only :class:`TakeLibrary` on the GUI thread and never
writes it: star, rename, notes, delete and undelete go to the worker through the
controller (``star_take``, ``rename_take``, ...), and the list reloads when the
worker says ``takes_changed``. Edits show at once (an optimistic patch on the
model) so the panel never lags behind a key press.

Keys on the list: Space play/pause, S star, F2 rename, Delete delete (Ctrl+Z or
the Undo bar brings the takes back). Playback goes through the app's shared
Player; the panel only listens to the player's signals for its state, so a clip
started elsewhere (the reference panel, the A/B view) shows correctly here too.

The selected take's pane is a :class:`TakeDetail` (``take_detail.py``) that only
renders and reports clicks; the files a drag out carries come from ``take_drag.py``.

Long because the list, filters, keys, playback state and optimistic edits share one
model and selection; the detail pane and the drag's files are modules of their own.
"""

from __future__ import annotations

import dataclasses
import secrets
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterable

import numpy as np
from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPoint,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QStackedWidget,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from studio.engine.options import MAX_SEED
from studio.errors import UserError
from studio.library.project_takes import ProjectTakes
from studio.library.session_takes import SessionTakes, TakeShelf, is_unsaved
from studio.library.takes import NO_PROJECT
from studio.service.snapshot import unsaved_take
from studio.views.play_state import play_off
from studio.views.prepared_files import PressList
from studio.views.take_delegate import STAR_ON, TakeDelegate
from studio.views.take_detail import TakeDetail
from studio.views.take_drag import DragFiles
from studio.views.take_judgements import best_index
from studio.views.takes_model import BEST, NEWEST, Row, TakesModel
from studio.views.takes_projects import ProjectFilter, project_name
from studio.views.undo import UndoStack, push_edit
from studio.views.widgets.labels import heading_label, hint_label
from studio.views.widgets.undo_bar import UndoBar

SEARCH_DELAY_MS = 200
AUDIO_CACHE = 8  # decoded takes kept for the waveform and quick replay
MIN_CARDS = 3  # takes kept in sight however tall the details grow
STATE_PREFIX = "takes"
ALL_VOICES = "All voices"
EMPTY_HINT = ("No takes yet: type what to say in Clone or Design and press Generate. "
              "Each take appears here; select one and press Space to play it.")
NO_MATCH_HINT = "No take matches the search or filters."


class TakesPanel(QWidget):
    """The take library, one take's details and its actions.

    ``library``: a read-only TakeLibrary (None: the data folder's, opened on first
    use). ``controller``: the WorkerController that writes (None: read-only panel).
    """

    play_failed = Signal(str)  # one sentence, for the status bar
    message = Signal(str)  # an information sentence, for the status bar
    exported = Signal(str, str)  # what an export wrote (a sentence), and the folder
    rerender_requested = Signal(object, int)  # Take, seed
    copy_settings_requested = Signal(object)  # Take
    use_as_voice_requested = Signal(object)  # Take: its audio and text saved as a voice

    def __init__(self, player=None, *, controller=None, library=None, audio_status=None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("takesPanel")
        self.setAccessibleName("Takes")
        self._player = player
        self._controller = controller
        self._library = library
        self._reason: str | None = None
        self._audio: OrderedDict[str, tuple[np.ndarray, int]] = OrderedDict()
        self.session = SessionTakes()  # takes the library could not keep, until closing
        self.undoStack = UndoStack(self)  # the window's, once it has one
        self._restored: tuple[str, ...] = ()  # undeleted takes to select once listed
        self._stale = False  # a reload waits for the name editor to close
        # The last export's folder, format and whether it wrote sidecars (kept for the next start).
        self._export_choice: tuple[str | None, str | None, bool] = (None, None, True)
        self._open_error = ""
        self._open_project: str | None = None  # the Script view's, listed even without takes
        self._open_takes = ProjectTakes("")  # its takes: filed under it or used by its lines
        # Owns the temp folder drags write to; its sentences go where a take's problems do.
        self._drag_files = DragFiles(self.shelf, lambda text: self.detail.show_problem(text))
        self.model = TakesModel(self)
        self.model.drag_files = self._drag_files
        self._build()
        self._connect()
        if player is not None:
            player.state_changed.connect(self._player_state)
            player.position_changed.connect(self._player_position)
            player.loaded.connect(self._player_loaded)
            player.error.connect(self.play_failed)
        if controller is not None and hasattr(controller, "takes_changed"):
            controller.takes_changed.connect(self.refresh)
        if audio_status is None:
            from studio.audio.backend import audio_status as probe

            audio_status = probe()
        self.set_audio_status(audio_status)
        self.refresh()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.title = heading_label("Takes", size_delta=2)
        self.countLabel = hint_label("")
        self.countLabel.setWordWrap(False)
        self.countLabel.setAccessibleName("Number of takes")

        self.searchEdit = QLineEdit()
        self.searchEdit.setObjectName("takesSearch")
        self.searchEdit.setPlaceholderText("Search takes")  # the tooltip says what it reads
        self.searchEdit.setClearButtonEnabled(True)
        self.searchEdit.setAccessibleName("Search takes")
        self.searchEdit.setToolTip("Shows the takes whose text, name or notes contain every word")
        self.voiceCombo = QComboBox()
        self.voiceCombo.setObjectName("takesVoiceFilter")
        self.voiceCombo.setAccessibleName("Voice filter")
        self.voiceCombo.setToolTip("Show only the takes of one voice")
        self.voiceCombo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.voiceCombo.setMinimumContentsLength(5)  # gives way to the project filter
        self.voiceCombo.addItem(ALL_VOICES, None)
        self.projectCombo = ProjectFilter()
        self.starredButton = QToolButton()
        self.starredButton.setObjectName("takesStarredFilter")
        self.starredButton.setText(f"{STAR_ON} Starred")
        self.starredButton.setCheckable(True)
        self.starredButton.setAccessibleName("Starred takes only")
        self.starredButton.setToolTip("Show only starred takes")
        self.sortCombo = QComboBox()
        self.sortCombo.setObjectName("takesSort")
        self.sortCombo.setAccessibleName("Sort takes")
        self.sortCombo.addItem("Newest first", NEWEST)
        self.sortCombo.addItem("Best score first", BEST)
        self.sortCombo.setToolTip("Newest first: the latest takes on top. Best score first: "
                                  "every take by its combined score, the best on top.")
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)

        self.list = PressList(self._prepare_drag)  # a press may start a drag: write ahead
        self.list.setObjectName("takesList")
        self.list.setModel(self.model)
        self.delegate = TakeDelegate(self.list)
        self.list.setItemDelegate(self.delegate)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setUniformItemSizes(True)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setDragEnabled(True)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.list.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.setAccessibleName("Takes in the library")
        self.list.installEventFilter(self)

        self.empty = hint_label(EMPTY_HINT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setObjectName("takesEmpty")
        self.empty.setContentsMargins(16, 16, 16, 16)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.list)

        self.undoBar = UndoBar()

        header = QHBoxLayout()
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.countLabel)
        header.addWidget(self.sortCombo)
        # Starred beside the search, so the two filter combos share a row of their own:
        # three in one row cut "Clone & Design" in a panel beside a 1024 px window.
        search = QHBoxLayout()
        search.setSpacing(6)
        search.addWidget(self.searchEdit, 1)
        search.addWidget(self.starredButton)
        filters = QHBoxLayout()
        filters.setSpacing(6)
        filters.addWidget(self.projectCombo, 1)
        filters.addWidget(self.voiceCombo, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 18, 12, 12)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addLayout(search)
        layout.addLayout(filters)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.undoBar)
        self.detail = TakeDetail()
        layout.addWidget(self.detail)
        # The detail's widgets under the names the main window, tools and tests know.
        self.nameLabel = self.detail.nameLabel
        self.starButton = self.detail.starButton
        self.waveform = self.detail.waveform
        self.playButton = self.detail.playButton
        self.suspectLabel = self.detail.suspectLabel
        self.notesEdit = self.detail.notesEdit
        self.rerenderButton = self.detail.rerenderButton
        self.varyButton = self.detail.varyButton
        self.copyButton = self.detail.copyButton
        self.compareButton = self.detail.compareButton
        self.deleteButton = self.detail.deleteButton

        self.undoShortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), self)
        self.undoShortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

    def _connect(self) -> None:
        self.searchEdit.textChanged.connect(lambda _text: self._search_timer.start())
        self._search_timer.timeout.connect(self.refresh)
        # (-1 only while the combo is torn down: nothing to filter then)
        self.voiceCombo.currentIndexChanged.connect(lambda i: i >= 0 and self.refresh())
        self.projectCombo.currentIndexChanged.connect(lambda i: i >= 0 and self.refresh())
        self.starredButton.toggled.connect(lambda _on: self.refresh())
        self.sortCombo.currentIndexChanged.connect(self._sort_changed)
        self.list.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.list.selectionModel().currentChanged.connect(lambda *_: self._selection_changed())
        self.list.doubleClicked.connect(lambda _index: self.toggle())
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.delegate.star_clicked.connect(self._star_clicked)
        self.delegate.closeEditor.connect(lambda *_: self._stale and QTimer.singleShot(0, self.refresh))
        self.model.rename_requested.connect(self._rename_requested)
        self.model.modelReset.connect(self._refresh_count)
        self.detail.seek_requested.connect(self._seek)
        self.detail.play_from_requested.connect(self.play_from)
        self.detail.play_clicked.connect(self.toggle)
        self.detail.star_clicked.connect(self.toggle_star)
        self.detail.rename_clicked.connect(self.rename)
        self.detail.notes_committed.connect(self._save_notes)
        self.detail.rerender_clicked.connect(lambda vary: self.rerender(vary=vary))
        self.detail.copy_clicked.connect(self.copy_settings)
        self.detail.use_as_voice_clicked.connect(
            lambda: self.current_take() and self.use_as_voice_requested.emit(self.current_take()))
        self.detail.export_clicked.connect(self.export_selected)
        self.detail.compare_clicked.connect(self.compare)
        self.detail.delete_clicked.connect(self.delete_selected)
        self.undoBar.undo_clicked.connect(self.undo_delete)
        self.undoShortcut.activated.connect(self.undo_delete)
        self.undoBar.follow(self.undoStack)

    # ------------------------------------------------------------------ library
    def library(self):
        """The read-only library, opened on first use (None while it cannot be opened)."""
        if self._library is None:
            from studio.library.takes import TakeLibrary

            try:
                self._library = TakeLibrary(read_only=True)
            except (UserError, OSError, sqlite3.Error) as exc:
                self._open_error = str(exc)
                return None
            self._open_error = ""
        return self._library

    def shelf(self) -> TakeShelf:
        """What the panel reads: the library (when it opens) and this session's unsaved takes."""
        return TakeShelf(self.library(), self.session)

    def refresh(self) -> None:
        """Read the library again, keeping the selection and the current take."""
        self._search_timer.stop()  # this read covers the search being typed
        if self.list.state() == QAbstractItemView.State.EditingState:
            self._stale = True  # a reload now would close the name editor mid-word
            return
        self._stale = False
        self.detail.commit_notes()
        selected = [t.id for t in self.selected_takes()]
        current = self.current_take()
        library = self.shelf()
        self._refresh_voices(library)
        self.projectCombo.set_projects(library.projects(), self._open_project)
        key = self.projectCombo.key()
        self.model.reload(library, self.searchEdit.text(), voice=self.voiceCombo.currentData(),
                          starred=True if self.starredButton.isChecked() else None,
                          project=self._open_takes if key and key == self._open_takes.path
                          else key)
        if self._restored and self.projectCombo.currentIndex() > 0 and not any(
                self.model.row_of_id(i) >= 0 for i in self._restored):
            self.projectCombo.set_key(None)  # takes brought back show, whatever they were filed under
            return  # (the filter's change read the list again)
        if self._restored and any(self.model.row_of_id(i) >= 0 for i in self._restored):
            selected, current, self._restored = list(self._restored), None, ()
        self.select_ids(selected, current=current.id if current else None)
        if not self.selected_takes() and self.model.rowCount():
            self.select_ids([self.model.take(0).id])  # the newest take, ready for Space

    def _sort_changed(self, index: int) -> None:
        if index >= 0:
            self.model.set_order(self.sortCombo.itemData(index))
            self.refresh()
            self.list.scrollTo(self.list.currentIndex())

    # ------------------------------------------------------------------ persistence
    def save_state(self, settings) -> None:
        """The Sort choice and whether the Judgements section is open, for the next start."""
        settings.set_state(f"{STATE_PREFIX}/sort", self.sortCombo.currentData())
        settings.set_state(f"{STATE_PREFIX}/judgements_open",
                           self.detail.judgementsSection.is_expanded())
        folder, fmt, sidecars = self._export_choice
        if folder is not None:
            settings.set_state(f"{STATE_PREFIX}/export", [folder, fmt or "", bool(sidecars)])

    def restore_state(self, settings) -> None:
        index = self.sortCombo.findData(settings.state(f"{STATE_PREFIX}/sort"))
        if index >= 0:
            self.sortCombo.setCurrentIndex(index)
        opened = settings.state(f"{STATE_PREFIX}/judgements_open")
        if opened in (True, False, "true", "false"):  # an INI file hands back strings
            self.detail.judgementsSection.set_expanded(opened in (True, "true"))
        export = settings.state(f"{STATE_PREFIX}/export")
        if isinstance(export, (list, tuple)) and len(export) == 3:
            self._export_choice = (str(export[0]), str(export[1]) or None,
                                   export[2] in (True, "true"))

    def follow_project(self, path: str | None, script_view: bool,
                       take_ids: Iterable[str] = ()) -> None:
        """The window's view changed: in the Script view the open project's takes (those
        filed under ``path`` and ``take_ids``, the ones its lines use, wherever they were
        rendered), in the others the Clone and Design ones; a filter the user picked stays
        as it is."""
        self._open_project = path
        self._open_takes = ProjectTakes.of(path or "", take_ids)
        if self.projectCombo.chosen:
            return
        self.projectCombo.set_projects(self.shelf().projects(), path)
        self.projectCombo.set_key(path if script_view and path else
                                  None if script_view else NO_PROJECT)

    def filter_voice(self, key: str) -> bool:
        """Show only the takes of one voice (a saved voice's id); False when it has none."""
        self.refresh()
        index = self.voiceCombo.findData(key)
        if index < 0:
            return False
        self.voiceCombo.setCurrentIndex(index)
        return True

    def _refresh_voices(self, library) -> None:
        voices = library.voices() if library is not None else []
        wanted = self.voiceCombo.currentData()
        have = [(self.voiceCombo.itemData(i), self.voiceCombo.itemText(i))
                for i in range(1, self.voiceCombo.count())]
        if have == voices:
            return
        self.voiceCombo.blockSignals(True)
        self.voiceCombo.clear()
        self.voiceCombo.addItem(ALL_VOICES, None)
        for key, label in voices:
            self.voiceCombo.addItem(label, key)
            self.voiceCombo.setItemData(self.voiceCombo.count() - 1, label,
                                        Qt.ItemDataRole.ToolTipRole)
        index = self.voiceCombo.findData(wanted)
        self.voiceCombo.setCurrentIndex(max(0, index))
        self.voiceCombo.blockSignals(False)

    def _refresh_count(self) -> None:
        count = self.model.rowCount()
        self._keep_cards_in_sight()
        # Sorting by score means nothing until a take is judged (judging may be off).
        self.sortCombo.setVisible(self.model.any_judged or self.model.order() != NEWEST)
        filtered = bool(self.searchEdit.text().strip() or self.voiceCombo.currentIndex() > 0
                        or self.projectCombo.currentIndex() > 0
                        or self.starredButton.isChecked())
        text = f"{count} take{'s' if count != 1 else ''}" if count or filtered else ""
        self.countLabel.setText(f"{text} shown" if filtered else text)
        # A filter on before the first take matches nothing for want of takes, not of a match.
        hint = NO_MATCH_HINT if filtered and (count or self._has_takes()) else EMPTY_HINT
        project = self.projectCombo.key()
        if project and not count and not self.searchEdit.text().strip():
            hint = f"The takes of {project_name(project)}'s lines appear here as they render."
        self.empty.setText(f"{hint}\n\n{self._open_error}" if self._open_error else hint)
        self.stack.setCurrentWidget(self.list if count else self.empty)

    def _keep_cards_in_sight(self) -> None:
        """The list's floor: MIN_CARDS whole cards (judged ones are taller), so the details
        scroll before the list shrinks past them."""
        option = QStyleOptionViewItem()
        option.initFrom(self.list)
        card = self.delegate.sizeHint(option, self.model.index(0)).height() \
            if self.model.rowCount() else self.list.fontMetrics().height() * 3
        self.list.setMinimumHeight(MIN_CARDS * (card + 2 * self.list.spacing())
                                   + 2 * self.list.frameWidth())

    def _has_takes(self) -> bool:
        try:
            return bool(self.shelf().list())
        except Exception:  # an unreadable library: the open error below says so
            return True

    def commit_notes(self) -> None:
        """Send the notes being typed now (the studio is closing)."""
        self.detail.commit_notes()

    def show_result(self, result) -> list[str]:
        """After a render: reload and select its takes (they sit together, in the chosen
        order), or, when they were judged, the best alone, wherever it is listed. Takes the
        library could not save are held for the session, badged "Not saved". Returns the
        takes' ids in the result's order."""
        ids = []
        for index, audio in enumerate(result.takes):
            if audio.take_id is None:
                unsaved = dataclasses.replace(unsaved_take(result, audio, index),
                                              judgements=audio.judgement)
                take = self.session.add(unsaved, audio.audio, audio.sample_rate)
                ids.append(take.id)
            else:
                ids.append(audio.take_id)
        self.refresh()
        best = best_index([audio.judgement for audio in result.takes])
        if best is not None:  # judged: the best alone, ready for Space
            self.select_ids([ids[best]])
        elif ids:  # the batch, the one listed on top current
            self.select_ids(ids, current=min(ids, key=self.model.row_of_id))
        self.list.scrollTo(self.list.currentIndex())
        return ids

    # ------------------------------------------------------------------ selection
    def select_ids(self, ids, current: str | None = None) -> None:
        selection = self.list.selectionModel()
        selection.clearSelection()
        rows = [r for r in (self.model.row_of_id(i) for i in ids) if r >= 0]
        for r in rows:
            selection.select(self.model.index(r), selection.SelectionFlag.Select)
        row = self.model.row_of_id(current) if current else -1
        if row < 0 and rows:
            row = rows[0]
        if row >= 0:
            selection.setCurrentIndex(self.model.index(row), selection.SelectionFlag.NoUpdate)
        self._selection_changed()

    def selected_takes(self) -> list:
        rows = sorted(i.row() for i in self.list.selectionModel().selectedRows())
        return [t for t in (self.model.take(r) for r in rows) if t is not None]

    def current_take(self):
        """The take the details show: the current row if selected, else the first selected."""
        index = self.list.currentIndex()
        if index.isValid() and self.list.selectionModel().isSelected(index):
            return self.model.take(index.row())
        selected = self.selected_takes()
        return selected[0] if selected else None

    def selected(self):  # the name the main window and older tests use
        return self.current_take()

    def _current_row(self) -> Row | None:
        take = self.current_take()
        return self.model.row_info(self.model.row_of_id(take.id)) if take else None

    def _selection_changed(self) -> None:
        take = self.current_take()
        if take is None or take.id != self.detail.notes_for():
            self.detail.commit_notes()
        self._show_detail()

    # ------------------------------------------------------------------ details
    def _show_detail(self) -> None:
        row = self._current_row()
        self.detail.show_take(row, len(self.selected_takes()), self._controller is not None,
                              judging=self.model.any_judged)
        if row is not None:
            self._load_waveform(row.take)
            self.detail.show_notes(row.take.id, row.take.notes)
        self._refresh_play()

    def _load_waveform(self, take) -> None:
        audio = self._audio_of(take)
        position = None
        if self._player is not None and self._player.key() == self.model.key_of(take):
            position = self._player.position()
        self.detail.show_audio(take.id, audio, position)

    def _prepare_drag(self, rows: list[int]) -> None:
        chosen = [self.model.row_info(row) for row in rows]
        self._drag_files.prepare([row for row in chosen if row is not None])

    def _audio_of(self, take) -> tuple[np.ndarray, int] | None:
        if take.id in self._audio:
            self._audio.move_to_end(take.id)
            return self._audio[take.id]
        try:
            audio = self.shelf().read_audio(take.id)
        except UserError as exc:
            self.detail.show_problem(str(exc))
            return None
        self._audio[take.id] = audio
        while len(self._audio) > AUDIO_CACHE:
            self._audio.popitem(last=False)
        return audio

    # ------------------------------------------------------------------ playback
    def set_audio_status(self, status) -> None:
        """Play needs a player and a working output; otherwise the button says why not."""
        self._reason = play_off(self._player, status)
        self._refresh_play()

    def toggle(self) -> None:
        """Play the current take, or pause/resume it if the player already holds it."""
        take = self.current_take()
        if take is None or self._reason is not None:
            return
        key = self.model.key_of(take)
        if self._player.key() == key:
            self._player.toggle()
            return
        audio = self._audio_of(take)
        if audio is None:
            return
        start = self.detail.start()  # read first: loading moves the playhead to 0
        self._player.load(audio[0], audio[1], key)
        if start > 0:
            self._player.seek(start)
        self._player.play()

    def play_from(self, seconds: float) -> None:
        """Play the current take from ``seconds`` (a word change clicked in its details)."""
        take = self.current_take()
        if take is None or self._reason is not None:
            return
        if self._player.key() != self.model.key_of(take):
            self.detail.set_start(seconds)  # where toggle starts the take it loads
            self.toggle()
            return
        self._player.seek(seconds)
        if self._player.state() != "playing":
            self._player.play()

    def _seek(self, seconds: float) -> None:
        take = self.current_take()
        if take is not None and self._player is not None \
                and self._player.key() == self.model.key_of(take):
            self._player.seek(seconds)
        else:
            self.detail.set_start(seconds)

    @Slot(str)
    def _player_state(self, state: str) -> None:
        key = self._player.key()
        mine = self.model.row_of(key) >= 0
        self.model.set_active(key if mine else None, state if mine and state != "stopped" else "")
        self._refresh_play()

    @Slot(object)
    def _player_loaded(self, _key: object) -> None:
        # A streamed render handed over as its take plays on: show that take as playing.
        self._player_state(self._player.state())
        self._player_position(self._player.position())

    @Slot(float)
    def _player_position(self, seconds: float) -> None:
        take = self.current_take()
        if take is not None and self._player.key() == self.model.key_of(take):
            self.detail.show_position(seconds, self._player.duration())

    def _refresh_play(self) -> None:
        take = self.current_take()
        holds = (self._player is not None and take is not None
                 and self._player.key() == self.model.key_of(take))
        playing = holds and self._player.state() == "playing"
        blocked = self._reason
        if blocked is None and take is None:
            blocked = "Select a take to play it"
        self.detail.show_play_state(playing, blocked)
        if not holds:
            self.detail.show_length(take.audio_seconds if take else None)

    # ------------------------------------------------------------------ edits -> controller
    def toggle_star(self) -> None:
        """Star the selected takes (or unstar them when all are starred already)."""
        takes = self.selected_takes()
        if not takes or self._controller is None:
            self._show_detail()
            return
        takes = [t for t in takes if not is_unsaved(t.id)]  # nothing to star them in
        starred = not all(t.starred for t in takes)
        for take in takes:
            if take.starred != starred:
                self.model.patch(take.id, starred=starred)
                self._controller.star_take(take.id, starred)
        self._show_detail()

    def _star_clicked(self, index: QModelIndex) -> None:
        take = self.model.take(index.row())
        if take is not None and self._controller is not None and not is_unsaved(take.id):
            self.model.patch(take.id, starred=not take.starred)
            self._controller.star_take(take.id, not take.starred)
            self._show_detail()

    def rename(self) -> None:
        """Edit the current take's name in place (F2)."""
        take = self.current_take()
        if take is not None and self._controller is not None and not is_unsaved(take.id):
            index = self.model.index(self.model.row_of_id(take.id))
            self.list.setCurrentIndex(index)
            self.list.edit(index)

    def _rename_requested(self, take_id: str, name: str) -> None:
        if self._controller is not None:
            self._controller.rename_take(take_id, name)
        self._show_detail()

    def _save_notes(self, take_id: str, text: str) -> None:
        """Send a take's notes to the worker if they changed (the detail says when)."""
        take = self.model.take(self.model.row_of_id(take_id))
        if self._controller is not None and take is not None and text != take.notes \
                and not is_unsaved(take_id):
            self.model.patch(take_id, notes=text)
            self._controller.note_take(take_id, text)

    def delete_selected(self) -> None:
        takes = self.selected_takes()
        if not takes or self._controller is None:
            return
        ids = tuple(t.id for t in takes)
        if self._player is not None and self.model.row_of(self._player.key()) >= 0 \
                and self._player.key()[1] in ids:
            self._player.stop()
        # The row after the deleted ones gets the selection, so Delete can be pressed again.
        below = max(self.model.row_of_id(i) for i in ids) + 1
        nxt = self.model.take(below) or self.model.take(min(self.model.row_of_id(i) for i in ids) - 1)
        what = "1 take" if len(ids) == 1 else f"{len(ids)} takes"
        push_edit(self.undoStack, f"Delete {what}", lambda: self._delete_ids(ids),
                  lambda: self._undelete_ids(ids))
        self.undoBar.show_edit(f"Deleted {what}.")
        self.select_ids([nxt.id] if nxt else [])
        self.list.setFocus(Qt.FocusReason.OtherFocusReason)

    def _delete_ids(self, ids: tuple[str, ...]) -> None:
        saved = tuple(i for i in ids if not is_unsaved(i))
        self.session.delete(ids)
        if saved:
            self._controller.delete_takes(saved)  # the list reloads when the worker says so
        else:
            self.refresh()  # only unsaved takes: no worker to report back

    def _undelete_ids(self, ids: tuple[str, ...]) -> None:
        self._restored = ids  # selected when the worker reports the change
        self.session.undelete(ids)
        saved = tuple(i for i in ids if not is_unsaved(i))
        if saved:
            self._controller.undelete_takes(saved)
        else:
            self.refresh()  # only unsaved takes: no worker to report back
        self.message.emit(f"Restored {len(ids)} take{'s' if len(ids) != 1 else ''}.")

    def undo_delete(self) -> None:
        """The undo bar's button (and Ctrl+Z when the panel stands alone): undo the last edit."""
        if self._controller is not None and self.undoStack.canUndo():
            self.undoStack.undo()

    def set_undo_stack(self, stack: UndoStack) -> None:
        """Record deletions on the window's stack (Edit ▸ Undo), not the panel's own."""
        self.undoStack = stack
        self.undoBar.follow(stack)

    # ------------------------------------------------------------------ intents out
    def rerender(self, vary: bool = False) -> None:
        take = self.current_take()
        if take is None:
            return
        seed = take.settings.seed
        if vary:
            while seed == take.settings.seed:
                seed = secrets.randbelow(MAX_SEED + 1)
        self.rerender_requested.emit(take, seed)

    def copy_settings(self) -> None:
        take = self.current_take()
        if take is not None:
            self.copy_settings_requested.emit(take)

    def export_selected(self) -> None:
        from studio.views.take_export import ExportDialog, default_folder

        rows = [self.model.row_info(self.model.row_of_id(t.id)) for t in self.selected_takes()]
        if not rows:
            return
        folder, fmt, sidecars = self._export_choice
        dialog = ExportDialog(self.shelf(), rows, folder=default_folder(folder), fmt=fmt,
                              sidecars=sidecars, parent=self)
        dialog.exported.connect(lambda said: self.exported.emit(said, str(dialog.target)))
        dialog.accepted.connect(lambda: setattr(self, "_export_choice", (
            str(dialog.target), dialog.format(), dialog.sidecars())))
        self._open(dialog)

    def compare(self) -> None:
        from studio.views.ab_view import ABDialog

        # A is the one rendered first, whichever order the list shows them in.
        takes = sorted(self.selected_takes(), key=lambda t: t.created)
        if len(takes) != 2:
            return
        # "Take 2/3 at 09:20": the titles of one batch are the same text, so they tell
        # nothing apart in the tiles and the blind reveal.
        rows = [self.model.row_info(self.model.row_of_id(t.id)) for t in takes]
        names = [row.identity() for row in rows]
        if names[0] == names[1]:
            names = [row.identity(seconds=True) for row in rows]
        dialog = ABDialog(self._player, self._controller, self.shelf(), tuple(takes),
                          names=tuple(names), reason=self._reason, parent=self)
        self._open(dialog)

    def _open(self, dialog) -> None:
        """Show a child dialog (the panel keeps it alive; it is deleted when closed)."""
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    # ------------------------------------------------------------------ events
    def _context_menu(self, pos: QPoint) -> None:
        index = self.list.indexAt(pos)
        if index.isValid() and not self.list.selectionModel().isSelected(index):
            self.list.setCurrentIndex(index)
        menu = self.context_menu()
        menu.exec(self.list.viewport().mapToGlobal(pos))

    def context_menu(self) -> QMenu:
        """The actions on the selected takes (also what the list's right-click shows)."""
        menu = QMenu(self)
        take = self.current_take()
        count = len(self.selected_takes())
        writable = self._controller is not None

        def add(text: str, slot: Callable[[], None], enabled: bool, shortcut: str = "") -> QAction:
            act = menu.addAction(text)
            act.setEnabled(enabled)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.triggered.connect(lambda _checked=False: slot())
            return act

        add("Pause" if self.playButton.text() == "Pause" else "Play", self.toggle,
            take is not None and self._reason is None, "Space")
        add("Unstar" if take is not None and take.starred else "Star", self.toggle_star,
            writable and take is not None, "S")
        add("Rename…", self.rename, writable and count == 1, "F2")
        menu.addSeparator()
        add("Re-render (same variation)", lambda: self.rerender(vary=False), take is not None)
        add("New variation", lambda: self.rerender(vary=True), take is not None)
        add("Use these settings in the form", self.copy_settings, take is not None)
        menu.addSeparator()
        add("Export…", self.export_selected, count > 0)
        add("Compare A/B", self.compare, count == 2)
        menu.addSeparator()
        add("Delete", self.delete_selected, writable and count > 0, "Delete")
        return menu

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.list and event.type() == QEvent.Type.KeyPress \
                and self.list.state() != QAbstractItemView.State.EditingState:
            key, mods = event.key(), event.modifiers()
            if mods == Qt.KeyboardModifier.NoModifier:
                if key == Qt.Key.Key_Space:
                    self.toggle()
                    return True
                if key == Qt.Key.Key_S:
                    self.toggle_star()
                    return True
                if key == Qt.Key.Key_Delete:
                    self.delete_selected()
                    return True
        return super().eventFilter(watched, event)
