"""MainWindow: the sidebar (Clone / Design / Voices / Script / Settings), the takes panel and
the status bar, and what the window itself reacts to (the model, Settings, drops, quitting).

Its parts live beside it, each owning its own state: the frame (sidebar, geometry,
splitter) in ``window_frame.py``; the jobs the views ask of the worker, each routed
back to the view that asked, in ``view_jobs.py``; the takes and voices between the
views in ``takes_voices.py``; the model state and the setup card in ``model_setup.py``.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QWidget,
)

from studio.errors import UserError
from studio.model_state import ModelState, Phase
from studio.service.requests import AccelState, LoadRequest, ModelInfo
from studio.settings import Settings, judging_settings
from studio.views.clone_view import CloneView
from studio.views.design_view import DesignView
from studio.views.menus import Menus
from studio.views.model_setup import ModelSetup
from studio.views.quit_question import QuitQuestion
from studio.views.script_files import script_file_of
from studio.views.script_view import ScriptView
from studio.views.settings_view import SettingsView
from studio.views.status_bar import StatusBar
from studio.views.takes_panel import TakesPanel
from studio.views.takes_voices import TakesAndVoices
from studio.views.text_carry import TextCarry
from studio.views.undo import UndoStack
from studio.views.view_jobs import ViewJobs
from studio.views.voices_view import VoicesView
from studio.views.widgets.wheel_guard import WheelGuard
from studio.views.window_frame import (
    VIEW_MIN_WIDTH,
    VIEW_TIPS,
    VIEW_TITLES,
    VIEWS,
    restore_frame,
    save_frame,
    sidebar_list,
    sidebar_panel,
)


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
        judging=judging_settings(settings),
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
        # Tooltips (the whole of a cut-off status message among them) show on hover even
        # while a dialog just closed has left no window active.
        self.setAttribute(Qt.WidgetAttribute.WA_AlwaysShowToolTips)
        self.setAcceptDrops(True)  # scripts and projects: see dropEvent
        self._settings = settings
        self._controller = controller
        self._player = player
        self._model_override = model_override
        self._notices: list[tuple[str, str]] = []  # start-up sentences the model-ready line must not hide
        self._stopped: bool | None = None  # after shutdown: whether the worker thread stopped
        if audio_status is None:
            from studio.audio.backend import audio_status as probe

            audio_status = probe()
        self._can_play = player is not None and audio_status.available

        self.cloneView = CloneView(player, recorder=recorder, audio_status=audio_status)
        self.designView = DesignView(player, recorder=recorder, audio_status=audio_status)
        self.voicesView = VoicesView(player, audio_status=audio_status)
        session = {"model/source": ("--model", model_override)} if model_override else None
        more = {"downloader": downloader} if downloader is not None else {}
        self.settingsView = SettingsView(settings, audio_status=audio_status,
                                         session_overrides=session, probe=accel_probe, **more)
        self.takesPanel = TakesPanel(player, controller=controller, audio_status=audio_status)
        self.scriptView = ScriptView(player, audio_status=audio_status,
                                     takes=self.takesPanel.library)
        self.statusBarWidget = StatusBar()
        self.setStatusBar(self.statusBarWidget)
        # The model state, the first-run setup card and the questions before downloads.
        self.modelSetup = ModelSetup(self, self._show_model_state,
                                     lambda: backend_config(self._settings),
                                     asr_downloader=asr_downloader, asr_on_disk=asr_on_disk,
                                     server_probe=server_probe)
        self.setupCard, self.modelStatus = self.modelSetup.card, self.modelSetup.status
        self.jobs = ViewJobs(controller, takes=self.takesPanel, status=self.statusBarWidget,
                             model_setup=self.modelSetup, parent=self,
                             stream=lambda: bool(self._can_play and self._settings.value(
                                 "audio/play_while_rendering")))
        self.takesAndVoices = TakesAndVoices(self, self.jobs)
        self.quitQuestion = QuitQuestion(self, self.running_work)
        self.textCarry = TextCarry({"clone": self.cloneView.form, "design": self.designView.form})
        self._build()
        self._wire()
        self.undoStack = UndoStack(self)  # every destructive edit outside a script project
        for part in (self.cloneView.reference, self.designView.reference, self.takesPanel,
                     self.voicesView, self.designView.attributes):
            part.set_undo_stack(self.undoStack)
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
        self.sidebar = sidebar_list()
        self.stack = QStackedWidget()
        self.stack.setObjectName("viewStack")
        for view in (self.cloneView, self.designView, self.voicesView, self.scriptView,
                     self.settingsView):  # in the order of VIEWS
            self.stack.addWidget(view)
        self.stack.addWidget(self.setupCard)
        self.sidebar.currentRowChanged.connect(self._show_page)
        panel = sidebar_panel(self.sidebar)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.takesPanel)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        # No narrower than its rows need: squeezed below that, the take buttons touched.
        self.takesPanel.setMinimumWidth(max(260, self.takesPanel.minimumSizeHint().width()))
        self.stack.setMinimumWidth(VIEW_MIN_WIDTH)

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(panel)
        layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)

    def _wire(self) -> None:
        worker, status = self._controller.worker, self.statusBarWidget
        self.jobs.wire((self.cloneView, self.designView), self.scriptView, self.cloneView)
        script = self.scriptView
        script.message.connect(status.show_message)
        script.exported.connect(status.show_written)
        # The takes panel files script takes under their project: it follows the view.
        script.project_changed.connect(lambda _path: self._follow_project())
        self.sidebar.currentRowChanged.connect(lambda _row: self._follow_project())
        self.sidebar.currentRowChanged.connect(lambda _row: self.textCarry.entered(self.current_view()))
        self.cloneView.design_requested.connect(lambda: self.show_view("design"))
        status.settings_requested.connect(self._open_setting)
        script.play_failed.connect(status.show_error)
        self.modelSetup.wire()  # the worker's model signals, first: the state is set by then
        worker.model_loaded.connect(self._model_loaded)
        worker.accel_changed.connect(self._accel_changed)
        worker.cache_cleared.connect(self._cache_cleared)
        self._controller.accel_availability.connect(self._accel_availability)
        self.settingsView.reload_requested.connect(self.load_model)
        self.settingsView.accel_requested.connect(self._accel_requested)
        self.settingsView.clear_cache_requested.connect(self._clear_cache)
        self._settings.changed.connect(self._setting_changed)
        self.takesPanel.play_failed.connect(status.show_error)
        self.takesPanel.message.connect(status.show_message)
        self.takesPanel.exported.connect(status.show_written)
        self.voicesView.play_failed.connect(status.show_error)
        self.takesAndVoices.wire(self._controller)
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

    @Slot(str)
    def _open_setting(self, key: str) -> None:
        self.show_view("settings")
        self.settingsView.show_setting(key)

    def _paste_script(self) -> None:
        mime = QApplication.clipboard().mimeData()
        if mime is not None and script_file_of(mime) is not None:
            self.show_view("script")
            self.scriptView.handle_drop(mime)

    def _follow_project(self) -> None:
        project = self.scriptView.project
        ids: set[str] = set()
        if project is not None:
            try:  # the takes its lines use, rendered for it under whatever name it had
                ids = project.take_ids()
            except UserError:  # a damaged file: the Script view says so; its path still filters
                pass
        self.takesPanel.follow_project(str(project.path) if project is not None else None,
                                       self.current_view() == "script", ids)

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
        elif key.startswith("judging/"):
            self._controller.set_judging(judging_settings(self._settings))
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

    def show_notice(self, sentence: str, details: str | None = None) -> None:
        """An error sentence for the start of the session (the last one crashed, an
        environment variable is ignored), kept on the status bar until the next message,
        past the model-ready line; notices of one start are shown together. ``details``
        (the whole story, when ``sentence`` is its short form) goes in the tooltip."""
        self._notices.append((sentence, details or sentence))
        self.statusBarWidget.show_error(" ".join(short for short, _ in self._notices),
                                        details=" ".join(whole for _, whole in self._notices))

    def report_uncaught(self) -> None:
        """An exception nobody caught was logged (any thread): say so on the status bar."""
        self._uncaught.emit()

    @Slot()
    def _show_uncaught(self) -> None:
        self.statusBarWidget.show_error(UNCAUGHT_ERROR)

    # ------------------------------------------------------------------ worker -> views
    @Slot(object)
    def _model_loaded(self, info: ModelInfo) -> None:
        reopened = self.scriptView.reopened_said()  # the start's project, not said over
        if not self._notices and self.modelStatus.server_url is None:
            self.statusBarWidget.show_message(" ".join(filter(None, (
                f"Model ready on {info.device} ({info.precision}).", reopened))))
        self._notices = []  # shown past the first load; the next message replaces them

    @Slot(object)
    def _accel_availability(self, availability: dict) -> None:
        """The worker checks the machine after each load (CUDA is its thread's); a plain dict."""
        self.settingsView.set_availability(availability)

    @Slot(object)
    def _accel_changed(self, state: AccelState) -> None:
        self.statusBarWidget.set_accel(state)
        self.settingsView.set_accel_state(state)

    # ------------------------------------------------------------------ persistence
    def _restore(self) -> None:
        restore_frame(self, self.splitter, self._settings)
        view = self._settings.state("window/view")
        self.show_view(view if view in VIEWS else "clone")
        for page in (self.cloneView, self.designView, self.scriptView, self.takesPanel):
            page.restore_state(self._settings)

    def save_state(self) -> None:
        save_frame(self, self.splitter, self._settings)
        self._settings.set_state("window/view", self.current_view())
        for page in (self.cloneView, self.designView, self.scriptView, self.takesPanel):
            page.save_state(self._settings)

    def running_work(self) -> list[tuple[str, str]]:
        """What quitting now would lose (studio.views.quit_question)."""
        work = self.jobs.running()
        if self.scriptView.exporting():
            work.append(("A script export", ""))
        if self.scriptView.importing():
            work.append(("A book import", ""))
        return work

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.quitQuestion.may_close():  # asked first while a render runs
            event.ignore()
            return
        self.takesPanel.commit_notes()  # typed just before closing: not lost to the pause
        self.voicesView.commit_notes()
        self.save_state()
        super().closeEvent(event)

    def quit_now(self) -> None:
        """Quit as File ▸ Quit does, without the question about running work: nobody
        can answer it at a logout or shutdown (SIGTERM), so a running render is lost."""
        self.quitQuestion.agree()
        self.close()
        QCoreApplication.quit()

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
