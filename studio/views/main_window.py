"""MainWindow: the sidebar (Clone / Design / Voices / Script / Settings), the takes panel, the status bar,
and the wiring between the views and the worker controller.

Each render, transcription or voice save is a job (``studio.worker.job.Job``, from
``controller.render`` and the like) whose signals the window connects to the view
that asked, so two views can never show each other's progress.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSize, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio import __version__
from studio.errors import UserError
from studio.model_state import ModelState, Phase
from studio.service.requests import (
    AccelState,
    LineDone,
    LinesRequest,
    LinesResult,
    LoadRequest,
    ModelInfo,
    RenderRequest,
    RenderResult,
)
from studio.settings import Settings
from studio.views.clone_view import CloneView
from studio.views.design_view import DesignView
from studio.views.menus import Menus
from studio.views.model_setup import ModelSetup
from studio.views.script_files import script_file_of
from studio.views.script_view import ScriptView
from studio.views.settings_view import SettingsView
from studio.views.status_bar import StatusBar
from studio.views.takes_model import real_time_text
from studio.views.takes_panel import TakesPanel
from studio.views.undo import UndoStack, snapshot_edit
from studio.views.voices_view import VoicesView
from studio.views.widgets.labels import heading_label, hint_label
from studio.views.widgets.wheel_guard import WheelGuard

VIEW_MIN_WIDTH = 520  # the pages fit this (tests/views/test_page_widths.py): none is cut off
VIEWS = ("clone", "design", "voices", "script", "settings")
VIEW_TITLES = {"clone": "Clone", "design": "Design", "voices": "Voices", "script": "Script",
               "settings": "Settings"}
VIEW_TIPS = {
    "clone": "Clone a voice from a reference clip (Ctrl+1)",
    "design": "Design a voice from attributes (Ctrl+2)",
    "voices": "Your saved voices: search, play, edit, import and export (Ctrl+3)",
    "script": "Multi-speaker scripts and long-form projects, line by line (Ctrl+4)",
    "settings": "Model, acceleration, cache, audio and data folder (Ctrl+5)",
}
DEFAULT_SIZE = QSize(1280, 800)  # on a screen that has room; a smaller one gets all of it
SIDEBAR_WIDTH = 176
TAKES_WIDTH = 340
TAKES_NARROW = 280  # below 1200 px of window
SIDEBAR_STYLE = """
QFrame#sidebarPanel { background: palette(base); border: none;
                      border-right: 1px solid palette(mid); }
QListWidget#sidebar { border: none; background: transparent; padding-top: 4px; outline: 0; }
/* outline: 0 drops Qt's dotted rectangle; the ring below marks the focused item instead. */
QListWidget#sidebar::item { padding: 9px 18px; margin: 2px 8px; border-radius: 6px; }
QListWidget#sidebar::item:selected { background: palette(highlight);
                                     color: palette(highlighted-text); }
QListWidget#sidebar::item:hover:!selected { background: palette(midlight); }
QListWidget#sidebar::item:focus { border: 2px solid palette(text); padding: 7px 16px; }
"""


def load_request(settings: Settings, source: str | None = None) -> LoadRequest:
    """The model load the settings describe; ``source`` (--model) wins for this session."""
    return LoadRequest(
        source=source or settings.value("model/source"),
        device=settings.value("model/device"),
        precision=settings.value("model/precision"),
        accel=settings.value("accel/mode"),
        disk_cache=settings.value("cache/disk"),
        disk_items=settings.value("cache/disk_items"),
        memory_items=settings.value("cache/memory_items"),
        asr_model=settings.value("asr/model"),
        retention_days=settings.value("takes/retention_days"),
        asr_check=settings.value("takes/asr_check"),
    )


def backend_config(settings: Settings):
    """Settings → Backend as the worker takes it: a BackendConfig, or None (render here)."""
    from studio.service.remote_renderer import BackendConfig

    if settings.value("backend/kind") != "remote":
        return None
    dialect = settings.value("backend/dialect")
    return BackendConfig(settings.value("backend/url").strip(),
                         settings.value("backend/api_key").strip() or None,
                         None if dialect == "auto" else dialect)


UNCAUGHT_ERROR = ("Something went wrong inside the studio; the log file in the data folder has "
                  "the details. Your takes and voices are safe.")


def first_geometry(available: QRect) -> QRect:
    """The first window: DEFAULT_SIZE where it fits, else the whole available area,
    centred; a laptop's 1366x768 (or 1024x640) shows Generate and the status bar."""
    size = DEFAULT_SIZE.boundedTo(available.size())
    rect = QRect(0, 0, size.width(), size.height())
    rect.moveCenter(available.center())
    return rect


def fit_within(rect: QRect, available: QRect) -> QRect:
    """A saved geometry from a larger screen: shrunk to the screen and moved onto it."""
    size = rect.size().boundedTo(available.size())
    left = min(max(rect.left(), available.left()), available.right() + 1 - size.width())
    top = min(max(rect.top(), available.top()), available.bottom() + 1 - size.height())
    return QRect(left, top, size.width(), size.height())


class MainWindow(QMainWindow):
    # From any thread (the uncaught-exception hooks): queued to the window's thread.
    _uncaught = Signal()

    def __init__(self, settings: Settings, controller, player=None, *,
                 model_override: str | None = None, audio_status=None, recorder=None,
                 accel_probe=None, downloader=None, asr_downloader=None, asr_on_disk=None,
                 server_probe=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("mainWindow")
        # Before any child exists, so every combo and spin box is guarded as it is polished.
        self.wheelGuard = WheelGuard.install(self)
        self.setWindowTitle("OmniVoice Desktop")
        self.setAcceptDrops(True)  # scripts and projects: see dropEvent
        self._settings = settings
        self._controller = controller
        self._player = player
        self._model_override = model_override
        self._renders: list[tuple[QWidget, object]] = []  # (view, its render job) running
        self._notices: list[str] = []  # start-up sentences the model-ready line must not hide
        self._stopped: bool | None = None  # after shutdown: whether the worker thread stopped
        if audio_status is None:
            from studio.audio.backend import audio_status as probe

            audio_status = probe()
        self._can_play = player is not None and audio_status.available

        self.cloneView = CloneView(player, recorder=recorder, audio_status=audio_status)
        self.designView = DesignView(player, recorder=recorder, audio_status=audio_status)
        self.voicesView = VoicesView(player)
        session = {"model/source": ("--model", model_override)} if model_override else None
        more = {"downloader": downloader} if downloader is not None else {}
        self.settingsView = SettingsView(settings, audio_status=audio_status,
                                         session_overrides=session, probe=accel_probe, **more)
        self.takesPanel = TakesPanel(player, controller=controller, audio_status=audio_status)
        self.scriptView = ScriptView(player if self._can_play else None,
                                     takes=self.takesPanel.library)
        self.statusBarWidget = StatusBar()
        self.setStatusBar(self.statusBarWidget)
        # The model state, the first-run setup card and the questions before downloads.
        self.modelSetup = ModelSetup(self, self._show_model_state,
                                     lambda: backend_config(self._settings),
                                     asr_downloader=asr_downloader, asr_on_disk=asr_on_disk,
                                     server_probe=server_probe)
        self.setupCard, self.modelStatus = self.modelSetup.card, self.modelSetup.status
        self._build()
        self._wire()
        self.undoStack = UndoStack(self)  # every destructive edit outside a script project
        for part in (self.cloneView.reference, self.designView.reference, self.takesPanel,
                     self.voicesView, self.designView.attributes):
            part.set_undo_stack(self.undoStack)
        self.voicesView.scripts_using = self._scripts_using
        self.menus = Menus(self, self.undoStack,
                           [(n, VIEW_TITLES[n], VIEW_TIPS[n].rsplit(" (", 1)[0]) for n in VIEWS])
        self.helpMenu = self.menus.helpMenu  # Help: guide, shortcuts, log, data folder, About
        # Ctrl+V outside a text field: a script or project copied in the file manager opens
        # (text fields keep their own paste: they take the key first).
        self._pasteShortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Paste), self)
        self._pasteShortcut.setWhatsThis("Open a script or project copied in the file manager")
        self._pasteShortcut.activated.connect(self._paste_script)
        self.statusBarWidget.set_accel_requested(settings.value("accel/mode"))
        self._setting_changed("audio/output_device")
        self._setting_changed("backend/kind")
        self._restore()
        self.voicesView.refresh()
        for problem in settings.problems():  # a mistyped OMNIVOICE_* variable: said, not fatal
            self.show_notice(problem)

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setAccessibleName("Views")
        self.sidebar.setToolTip("Switch views (Ctrl+1 to Ctrl+5)")
        self.sidebar.setFrameShape(QListWidget.Shape.NoFrame)
        font = self.sidebar.font()
        font.setPointSizeF(font.pointSizeF() + 1.5)
        self.sidebar.setFont(font)
        self.stack = QStackedWidget()
        self.stack.setObjectName("viewStack")
        views = (self.cloneView, self.designView, self.voicesView, self.scriptView,
                 self.settingsView)
        for name, view in zip(VIEWS, views):
            item = QListWidgetItem(VIEW_TITLES[name])
            item.setToolTip(VIEW_TIPS[name])
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{VIEW_TITLES[name]} view")
            self.sidebar.addItem(item)
            self.stack.addWidget(view)
        self.stack.addWidget(self.setupCard)
        self.sidebar.currentRowChanged.connect(self._show_page)
        panel = QFrame()
        panel.setObjectName("sidebarPanel")
        panel.setFixedWidth(SIDEBAR_WIDTH)
        panel.setStyleSheet(SIDEBAR_STYLE)
        brand = heading_label("OmniVoice", size_delta=4)
        brand.setContentsMargins(18, 0, 0, 0)
        tagline = hint_label("Desktop studio")
        tagline.setContentsMargins(18, 0, 0, 0)
        version = hint_label(f"Version {__version__}")
        version.setContentsMargins(18, 0, 0, 0)
        column = QVBoxLayout(panel)
        column.setContentsMargins(0, 18, 0, 12)
        column.setSpacing(2)
        column.addWidget(brand)
        column.addWidget(tagline)
        column.addSpacing(14)
        column.addWidget(self.sidebar, 1)
        column.addWidget(version)
        # Ctrl+1 … Ctrl+5 are the View menu's (studio/views/menus.py).

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.takesPanel)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.takesPanel.setMinimumWidth(260)
        self.stack.setMinimumWidth(VIEW_MIN_WIDTH)

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(panel)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

    def _wire(self) -> None:
        worker = self._controller.worker
        for view in (self.cloneView, self.designView):
            view.render_requested.connect(lambda request, v=view: self._render(v, request))
            view.cancel_requested.connect(lambda v=view: self._cancel(v))
            view.transcribe_requested.connect(lambda path, v=view: self._transcribe(v, path))
        self.cloneView.save_voice_requested.connect(self._save_voice)
        script = self.scriptView
        script.render_requested.connect(self._render_lines)
        script.cancel_requested.connect(lambda: self._cancel(self.scriptView))
        script.compare_requested.connect(self._compare_takes)
        script.line_takes_shown.connect(self._show_line_takes)
        script.message.connect(self.statusBarWidget.show_message)
        # The takes panel files script takes under their project: it follows the view.
        script.project_changed.connect(lambda _path: self._follow_project())
        self.sidebar.currentRowChanged.connect(lambda _row: self._follow_project())
        script.play_failed.connect(self.statusBarWidget.show_error)
        self.modelSetup.wire()  # the worker's model signals, first: the state is set by then
        worker.model_loaded.connect(self._model_loaded)
        worker.accel_changed.connect(self._accel_changed)
        worker.cache_cleared.connect(self._cache_cleared)
        self._controller.accel_availability.connect(self._accel_availability)
        self.settingsView.reload_requested.connect(self.load_model)
        self.settingsView.accel_requested.connect(self._accel_requested)
        self.settingsView.clear_cache_requested.connect(self._clear_cache)
        self._settings.changed.connect(self._setting_changed)
        self.takesPanel.play_failed.connect(self.statusBarWidget.show_error)
        self.takesPanel.message.connect(self.statusBarWidget.show_message)
        self.takesPanel.rerender_requested.connect(self._rerender)
        self.takesPanel.copy_settings_requested.connect(self._copy_settings)
        self.takesPanel.use_as_voice_requested.connect(self._take_as_voice)
        worker.takes_failed.connect(self._takes_failed)
        worker.voices_changed.connect(self._voices_changed)
        worker.voices_failed.connect(self._voices_failed)
        worker.voices_note.connect(self.statusBarWidget.show_message)
        voices = self.voicesView
        voices.rename_requested.connect(self._controller.rename_voice)
        voices.transcript_requested.connect(self._controller.set_voice_transcript)
        voices.update_requested.connect(self._controller.update_voice)
        voices.duplicate_requested.connect(self._controller.duplicate_voice)
        voices.delete_requested.connect(self._controller.delete_voice)
        voices.undelete_requested.connect(self._controller.undelete_voice)
        voices.import_requested.connect(self._controller.import_voice)
        voices.export_requested.connect(self._controller.export_voice)
        voices.use_requested.connect(self._use_voice)
        voices.new_voice_requested.connect(self._new_voice)
        voices.show_takes_requested.connect(self._show_voice_takes)
        voices.play_failed.connect(self.statusBarWidget.show_error)
        self._uncaught.connect(self._show_uncaught)

    # ------------------------------------------------------------------ views
    def show_view(self, name: str) -> None:
        self.sidebar.setCurrentRow(VIEWS.index(name))

    def current_view(self) -> str:
        return VIEWS[max(0, self.sidebar.currentRow())]

    @Slot(int)
    def _show_page(self, row: int) -> None:
        """The row's page, or the setup card while that page cannot render."""
        if self.modelSetup.covers(VIEWS[max(0, row)]):
            self.stack.setCurrentWidget(self.setupCard)
        else:
            self.stack.setCurrentIndex(max(0, row))

    def _show_model_state(self, state: ModelState) -> None:
        """Every widget that shows the one model state."""
        self.statusBarWidget.set_model_state(state, self.modelSetup.info)
        for view in (self.cloneView, self.designView):
            view.form.set_model_state(state.label, state.generate_reason())
        self.setupCard.set_state(state)
        # Device / Precision ask before a reload only while a working model would unload.
        self.settingsView.set_model_ready(self.modelStatus.local.phase is Phase.READY)
        self._show_page(self.sidebar.currentRow())

    def _paste_script(self) -> None:
        mime = QApplication.clipboard().mimeData()
        if mime is not None and script_file_of(mime) is not None:
            self.show_view("script")
            self.scriptView.handle_drop(mime)

    def _follow_project(self) -> None:
        project = self.scriptView.project
        self.takesPanel.follow_project(str(project.path) if project is not None else None,
                                       self.current_view() == "script")

    # A script or project dropped anywhere on the window (where no view takes it, such as
    # the Clone view's clip panel) opens in the Script view.
    def dragEnterEvent(self, event) -> None:
        if script_file_of(event.mimeData()) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        if script_file_of(event.mimeData()) is not None:
            self.show_view("script")
            self.scriptView.handle_drop(event.mimeData())
            event.acceptProposedAction()

    # ------------------------------------------------------------------ intents -> controller
    def load_model(self) -> None:
        """Load (or reload) the model the settings describe, on the worker thread; while
        Generate renders on a speech server, only when a job needs it there."""
        request = load_request(self._settings, self._model_override)
        config = backend_config(self._settings)
        self.modelSetup.loading(request.source, config)
        if config is not None:
            self._controller.defer_model(request)
            return
        self._controller.load_model(request)

    def _render(self, view, request: RenderRequest) -> None:
        if (request.reference is not None and not (request.ref_text or "").strip()
                and request.voice_id is None and self.modelStatus.server_url is None
                and not self.modelSetup.asr_ready(view, lambda: self._render(view, request))):
            return  # an empty transcript is transcribed first: asked before a download
        if self._can_play and self._settings.value("audio/play_while_rendering"):
            request = dataclasses.replace(request, stream=True)
        job = self._watch(view, self._controller.render(request))
        job.chunk.connect(lambda chunk: view.on_chunk(job.number, chunk))
        job.done.connect(lambda result: self._finished(view, job, result))
        self.statusBarWidget.show_message("Rendering …")

    @Slot(object)
    def _render_lines(self, request: LinesRequest) -> None:
        job = self._watch(self.scriptView, self._controller.render_lines(request))
        job.line.connect(self._line_rendered)
        job.done.connect(lambda result: self._lines_finished(job, result))
        if self._can_play and self._settings.value("audio/play_while_rendering"):
            self.scriptView.listen(request.keys)
        self.statusBarWidget.show_message(f"Rendering {len(request.lines)} line"
                                          f"{'s' if len(request.lines) != 1 else ''} …")

    @Slot(object, object)
    def _show_line_takes(self, take_ids, chosen) -> None:
        """The script line selected (or just rendered): its takes, the chosen one current."""
        if self.current_view() != "script":
            return
        panel = self.takesPanel
        if any(panel.model.row_of_id(i) < 0 for i in take_ids):
            panel.refresh()  # a take just rendered may not be read yet
        if any(panel.model.row_of_id(i) >= 0 for i in take_ids):  # (filtered out: left be)
            panel.select_ids(take_ids, current=chosen)

    @Slot(object)
    def _compare_takes(self, take_ids) -> None:
        """A script line's two takes, in the takes panel's A/B."""
        self.takesPanel.refresh()
        self.takesPanel.select_ids(take_ids, current=take_ids[0])
        if len(self.takesPanel.selected_takes()) != 2:
            self.statusBarWidget.show_error("The line's takes are hidden by the takes panel's "
                                            "search or filter; clear it to compare them.")
            return
        self.takesPanel.compare()

    def _mode_view(self, mode: str):
        return self.designView if mode == "design" else self.cloneView

    @Slot(object, int)
    def _rerender(self, take, seed: int) -> None:
        """Render a take again (its own seed: identical audio) through Generate's path."""
        from studio.service.snapshot import request_from_take

        try:
            request = request_from_take(take, seed)
        except UserError as exc:
            self.statusBarWidget.show_error(str(exc))
            return
        view = self._mode_view(take.settings.mode)
        self.show_view("design" if view is self.designView else "clone")
        self._render(view, request)

    @Slot(object)
    def _copy_settings(self, take) -> None:
        """A take's settings into its form (one Edit ▸ Undo puts the form back), saying
        what changed: the seed is locked, so Generate renders that take again."""
        view = self._mode_view(take.settings.mode)
        page = "Design" if view is self.designView else "Clone"
        snapshot_edit(self.undoStack, view, "Use a take's settings",
                      lambda: view.apply_take(take.settings))
        self.show_view(page.lower())
        self.statusBarWidget.show_message(
            f"The {page} form now holds the take's text and settings, with its variation locked "
            "so Generate renders it again; Edit ▸ Undo (Ctrl+Z) puts your form back.")

    def _scripts_using(self, voice) -> dict[str, list[str]]:
        """The open script's speakers who speak in ``voice`` (a saved voice, by name)."""
        project = self.scriptView.project
        if project is None:
            return {}
        speakers = [s.name for s in project.speakers()
                    if s.kind == "voice" and (s.voice or "").lower() == voice.name.lower()]
        return {project.path.stem: speakers} if speakers else {}

    @Slot(str)
    def _takes_failed(self, sentence: str) -> None:
        self.takesPanel.refresh()  # drop the optimistic edit the worker refused
        self.statusBarWidget.show_error(sentence)

    def _cancel(self, view) -> None:
        view.stop_live()
        for owner, job in self._renders:
            if owner is view:
                self._controller.cancel(job)

    def _transcribe(self, view, path) -> None:
        if not self.modelSetup.asr_ready(view, view.reference.transcribeButton.click):
            return
        job = self._controller.transcribe(path)
        job.done.connect(lambda text: self._transcribed(view, path, text))
        job.failed.connect(lambda sentence: (view.on_transcribe_failed(sentence, path),
                                             self.statusBarWidget.show_error(sentence)))
        job.cancelled.connect(lambda: (view.on_transcribe_failed("Transcription cancelled.",
                                                                 path),
                                       self.statusBarWidget.show_message("Cancelled.")))
        self.statusBarWidget.show_message(f"Transcribing {path.name} …")

    def _save_voice(self, request) -> None:
        job = self._controller.save_voice(request)
        job.done.connect(self._voice_saved)
        job.failed.connect(lambda sentence: (self.cloneView.voice_save_failed(sentence),
                                             self.statusBarWidget.show_error(sentence)))
        self.cloneView.voices.set_can_save(False)  # until this save ends
        self.statusBarWidget.show_message(f"Saving the voice '{request.name}' …")

    def _voice_saved(self, voice_id: str) -> None:
        self.cloneView.voice_saved(voice_id)
        voice = self.cloneView.voices.current_voice()
        if voice is not None:
            self.statusBarWidget.show_message(f"Saved the voice '{voice.name}'.")

    @Slot()
    def _voices_changed(self) -> None:
        self.cloneView.voices.refresh()
        self.voicesView.refresh()
        self.takesPanel.refresh()  # takes name their saved voice

    @Slot(str)
    def _voices_failed(self, sentence: str) -> None:
        self.voicesView.refresh()  # drop what the view showed of the refused edit
        self.statusBarWidget.show_error(sentence)

    def _use_voice(self, voice) -> None:
        self.show_view("clone")
        self.cloneView.pick_voice(voice.id)

    def _new_voice(self, clip: Path) -> None:
        """An audio clip dropped on the Voices view: the Clone view, ready to name it."""
        self.show_view("clone")
        self.cloneView.start_voice(clip)

    def _take_as_voice(self, take) -> None:
        """A take's audio and text as the Clone reference, named like the take, ready to be
        saved: how a designed voice stops drifting from line to line."""
        self.show_view("clone")
        name = take.name or take.settings.instruct or "Designed voice"
        self.cloneView.start_voice(take.audio_path, name=name, transcript=take.settings.text,
                                   to_save=True)

    def _show_voice_takes(self, voice_id: str) -> None:
        if not self.takesPanel.filter_voice(voice_id):
            self.statusBarWidget.show_message("No takes have been rendered in this voice yet.")

    @Slot(str)
    def _accel_requested(self, mode: str) -> None:
        self.statusBarWidget.set_accel_requested(mode)
        self._controller.set_accel(mode)

    @Slot()
    def _clear_cache(self) -> None:
        self._controller.clear_cache()  # the worker owns the cache; it reports back

    @Slot(int)
    def _cache_cleared(self, removed: int) -> None:
        self.statusBarWidget.show_message(f"Voice prompt cache cleared ({removed} removed).")

    @Slot(str)
    def _setting_changed(self, key: str) -> None:
        if key == "audio/output_device" and self._player is not None:
            index = self._settings.value(key)
            self._player.set_device(None if index < 0 else index)
        elif key == "takes/asr_check":
            self._controller.set_asr_check(self._settings.value(key))
        elif key.startswith("backend/"):
            config = backend_config(self._settings)
            self._controller.set_backend(config)
            if (config.url if config else None) != self.modelStatus.server_url:
                # A server's error said on a view no longer applies once renders go elsewhere.
                for message in (self.cloneView.form.message, self.designView.form.message,
                                self.scriptView.notice):
                    if message.is_error():
                        message.clear_message()
                if self.statusBarWidget.is_error():
                    self.statusBarWidget.show_message("")
            self.modelSetup.use_backend(config)

    def show_notice(self, sentence: str) -> None:
        """An error sentence for the start of the session (the last one crashed, an
        environment variable is ignored), kept on the status bar until the next message,
        past the model-ready line; notices of one start are shown together."""
        self._notices.append(sentence)
        self.statusBarWidget.show_error(" ".join(self._notices))

    def report_uncaught(self) -> None:
        """An exception nobody caught was logged (any thread): say so on the status bar."""
        self._uncaught.emit()

    @Slot()
    def _show_uncaught(self) -> None:
        self.statusBarWidget.show_error(UNCAUGHT_ERROR)

    # ------------------------------------------------------------------ worker -> views
    @Slot(object)
    def _model_loaded(self, info: ModelInfo) -> None:
        if not self._notices and self.modelStatus.server_url is None:
            self.statusBarWidget.show_message(f"Model ready on {info.device} ({info.precision}).")
        self._notices = []  # shown past the first load; the next message replaces them

    @Slot(object)
    def _accel_availability(self, availability: dict) -> None:
        """The worker checks the machine after each load (CUDA is its thread's); a plain dict."""
        self.settingsView.set_availability(availability)

    @Slot(object)
    def _accel_changed(self, state: AccelState) -> None:
        self.statusBarWidget.set_accel(state)
        self.settingsView.set_accel_state(state)

    def _watch(self, view, job):
        """A render job of ``view`` (a Generate or a script's lines): its progress and its
        end go to that view alone, and the view stays busy while it has one running."""
        self._renders.append((view, job))
        view.set_busy(True)
        job.progress.connect(view.on_progress)
        job.failed.connect(lambda sentence: self._render_failed(view, job, sentence))
        job.cancelled.connect(lambda: self._render_cancelled(view, job))
        return job

    def _render_ended(self, view, job) -> None:
        """``job`` is over: ``view`` is told whether it still has others."""
        self._renders = [(v, j) for v, j in self._renders if j is not job]
        view.set_busy(any(owner is view for owner, _job in self._renders))

    def _finished(self, view, job, result: RenderResult) -> None:
        self._render_ended(view, job)
        self.takesPanel.show_result(result)
        # After the takes are listed: the live playback becomes the take's.
        first = self.takesPanel.current_take()
        view.on_finished(self.takesPanel.model.key_of(first) if first is not None else None)
        takes = len(result.takes)
        audio = result.audio_seconds
        rtf = result.seconds / audio if audio > 0 else 0.0
        text = (f"Rendered {takes} take{'s' if takes != 1 else ''} ({audio:.1f} s of audio) "
                f"in {result.seconds:.1f} s, {real_time_text(rtf)}.")
        if result.first_audio_seconds is not None:
            text += f" First audio after {result.first_audio_seconds:.1f} s."
            self.statusBarWidget.set_first_audio(result.first_audio_seconds)
        if result.warnings:
            text += " " + " ".join(result.warnings)
        self.statusBarWidget.show_message(text)

    @Slot(object)
    def _line_rendered(self, done: LineDone) -> None:
        self.takesPanel.refresh()  # the line's take is in the library: list it now
        self.scriptView.on_line(done)

    def _lines_finished(self, job, result: LinesResult) -> None:
        self._render_ended(self.scriptView, job)
        self.takesPanel.refresh()  # the lines' takes are in the library now
        self.scriptView.on_lines_finished(result)

    def _render_failed(self, view, job, sentence: str) -> None:
        if self.modelStatus.server_url is not None:
            self.modelSetup.probe_server()  # a render the server refused: does it still answer?
        self._render_ended(view, job)
        view.on_failed(sentence)
        self.statusBarWidget.show_error(sentence)

    def _render_cancelled(self, view, job) -> None:
        self._render_ended(view, job)
        view.on_cancelled()
        self.statusBarWidget.show_message("Cancelled.")

    def _transcribed(self, view, clip: Path, text: str) -> None:
        if not view.set_transcript(text, clip):
            # The user picked another clip meanwhile: this transcript describes the old one.
            self.statusBarWidget.show_message(f"The transcript of {clip.name} was not used: "
                                              "the clip changed while it was transcribed.")
            return
        self.statusBarWidget.show_message("Transcription ready.")

    # ------------------------------------------------------------------ persistence
    def _restore(self) -> None:
        geometry = self._settings.state("window/geometry")
        if not (isinstance(geometry, QByteArray) and not geometry.isEmpty()
                and self.restoreGeometry(geometry)):
            self.setGeometry(first_geometry(self._available()))
        if not (self.windowState() & (Qt.WindowState.WindowMaximized
                                      | Qt.WindowState.WindowFullScreen)):
            self.setGeometry(fit_within(self.geometry(), self._available()))
        splitter = self._settings.state("window/splitter")
        if isinstance(splitter, QByteArray) and not splitter.isEmpty():
            self.splitter.restoreState(splitter)
        else:
            # A narrower takes panel on a small screen leaves the page room to fit.
            takes = TAKES_WIDTH if self.width() >= 1200 else TAKES_NARROW
            self.splitter.setSizes([self.width() - SIDEBAR_WIDTH - takes, takes])
        view = self._settings.state("window/view")
        self.show_view(view if view in VIEWS else "clone")
        for page in (self.cloneView, self.designView, self.scriptView):
            page.restore_state(self._settings)

    def _available(self) -> QRect:
        """The screen's room for windows (less panels and docks): the window's screen,
        else the primary one."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry()

    def save_state(self) -> None:
        self._settings.set_state("window/geometry", self.saveGeometry())
        self._settings.set_state("window/splitter", self.splitter.saveState())
        self._settings.set_state("window/view", self.current_view())
        for page in (self.cloneView, self.designView, self.scriptView):
            page.save_state(self._settings)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.takesPanel.commit_notes()  # typed just before closing: not lost to the pause
        self.voicesView.commit_notes()
        self.save_state()
        super().closeEvent(event)

    def shutdown(self) -> bool:
        """Quitting (``aboutToQuit``): keep what the user has, stop sound, stop the worker.

        A recording in progress is saved and used, notes being typed are sent, the
        player and the recorders let go of their devices at once, and then the worker
        finishes its current step and releases the model. Returns whether the worker
        thread stopped; called again, it answers the same without doing anything."""
        if self._stopped is None:
            self.takesPanel.commit_notes()
            self.voicesView.commit_notes()
            for view in (self.cloneView, self.designView):
                view.reference.finish()
            if self._player is not None:
                self._player.close()
            self.scriptView.close_project()
            self.modelSetup.shutdown()
            self._stopped = bool(self._controller.shutdown())
        return self._stopped
