"""The window's model state and the ways to a model, in one place.

``ModelSetup`` owns the one :class:`~studio.model_state.ModelStatus` (fed by the
worker's model signals, the download and the speech server's probe), the setup card
and its three ways on (download, choose a folder, render on a server), and the
question before Whisper downloads. The main window only tells it what happens
(a load, a backend change, a render that needs a transcript) and shows its state.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Slot

from studio.model_state import ModelState, ModelStatus, Phase
from studio.service.requests import ModelInfo
from studio.views.asr_download import AsrDownload
from studio.views.connection_test import ConnectionTest
from studio.views.model_download import looks_like_repo
from studio.views.setup_card import SetupCard

SERVER_RETRY_MS = 15_000  # a speech server that did not answer is asked again this often


class ModelSetup(QObject):
    def __init__(self, window, on_change: Callable[[ModelState], None],
                 backend: Callable[[], object], *, asr_downloader=None, asr_on_disk=None,
                 server_probe=None):
        super().__init__(window)
        self._window = window
        self._backend = backend  # Settings → Backend as a BackendConfig, or None
        self.info: ModelInfo | None = None  # where a loaded model runs
        self.status = ModelStatus(on_change)
        self.card = SetupCard()  # in place of the rendering pages while there is no model
        asr = {k: v for k, v in (("downloader", asr_downloader), ("on_disk", asr_on_disk)) if v}
        self.asr = AsrDownload(window, lambda: window._settings.value("asr/model"), **asr)
        self._asr_view = None  # the view whose transcription waits on the ASR download
        self._asr_for_render = False  # whether its Generate (not Transcribe) asked for it
        # Whether the speech server answers, before Generate is enabled for it.
        self.probe = server_probe if server_probe is not None else ConnectionTest(self)
        self.retry = QTimer(self)
        self.retry.setSingleShot(True)
        self.retry.setInterval(SERVER_RETRY_MS)

    def wire(self) -> None:
        """Connected after the window's views exist (the download is Settings' own)."""
        window, card = self._window, self.card
        worker = window._controller.worker
        worker.model_loading.connect(self._loading)
        worker.model_loaded.connect(self._loaded)
        worker.model_failed.connect(self._failed)
        worker.model_missing.connect(self._missing)
        worker.folder_checked.connect(self._folder_checked)
        download = window.settingsView.download
        card.download_requested.connect(self._download)
        card.cancel_requested.connect(download.cancel)
        card.folder_chosen.connect(self._check_folder)
        card.server_requested.connect(self._show_backend_settings)
        card.settings_requested.connect(lambda: window.show_view("settings"))
        download.progress.connect(self._download_progress)
        download.failed.connect(self._download_stopped)
        download.cancelled.connect(self._download_stopped)
        self.probe.succeeded.connect(self._server_answered)
        self.probe.failed.connect(self._server_failed)
        self.retry.timeout.connect(self.probe_server)
        self.asr.typed_instead.connect(self._type_transcript)
        self.asr.failed.connect(self._asr_failed)
        self.asr.download.done.connect(self._asr_note)
        self._asr_note()

    # ------------------------------------------------------------------ told by the window
    def loading(self, source: str, config) -> None:
        """A load (or, with a server, a deferred one) was asked for."""
        self.info = None
        self.status.loading(source)  # deferred: it loads when switched back here
        self.use_backend(config)

    def use_backend(self, config) -> None:
        """Renders go to ``config``'s server (asked whether it answers first), or here."""
        self.status.use_server(config.url if config is not None else None)
        self.probe_server()

    def asr_ready(self, view, then: Callable[[], None], *, for_render: bool = False) -> bool:
        """Whether Whisper is here; if not, the user is asked and ``then`` runs after.
        ``for_render``: a Generate asked for it, so a failed download is said by Generate."""
        if self.asr.ready_or_ask(then):
            return True
        self._asr_view = view
        self._asr_for_render = for_render
        view.reference.set_transcribing(False)
        return False

    def covers(self, view_name: str) -> bool:
        """Whether the setup card shows in place of that page."""
        return view_name in ("clone", "design", "script") and self.status.state.needs_setup

    def shutdown(self) -> None:
        for download in (self._window.settingsView.download, self.asr.download):
            download.cancel()  # stops at its next chunk; what arrived resumes next time

    # ------------------------------------------------------------------ worker
    def _source(self) -> str:
        window = self._window
        return str(window._model_override or window._settings.value("model/source"))

    @Slot(str)
    def _loading(self, _stage: str) -> None:
        self.info = None
        self.status.loading(self._source())

    @Slot(object)
    def _loaded(self, info: ModelInfo) -> None:
        self.info = info
        self.status.ready(info.source, f"{info.device} · {info.precision}")
        self._window.statusBarWidget.set_model_state(self.status.state, info)

    @Slot(str)
    def _failed(self, reason: str) -> None:
        self.info = None
        self.status.failed(self._source(), reason)
        if self.status.server_url is not None:  # rendering on a server: said, not shown
            self._window.statusBarWidget.show_error(reason)

    @Slot(str)
    def _missing(self, source: str) -> None:
        from studio.engine.hub_download import arrived_bytes

        self.info = None
        self.card.set_arrived(arrived_bytes(source))
        self.status.not_downloaded(source)

    # ------------------------------------------------------------------ the card
    @Slot()
    def _download(self) -> None:
        from studio.engine.options import DEFAULT_REPO

        source = self._source()
        repo = source if looks_like_repo(source) else DEFAULT_REPO
        if not self._window.settingsView.start_download(repo, confirmed=True):  # the card shows
            self.card.show_problem("A download is already running (Settings → Model).")
            return
        self.status.downloading(repo, 0, None)

    @Slot(str, object)
    def _download_progress(self, repo: str, progress) -> None:
        self.status.downloading(repo, progress.done, progress.total)
        self.card.set_progress(progress)

    @Slot(str, str)
    def _download_stopped(self, repo: str, sentence: str) -> None:
        """Failed or cancelled: not downloaded (yet); the card says what happened."""
        from studio.engine.hub_download import arrived_bytes

        self.card.set_arrived(arrived_bytes(repo))
        if self.status.local.phase is Phase.DOWNLOADING:
            self.status.not_downloaded(repo)
        self.card.show_problem(sentence, error="cancelled" not in sentence)

    @Slot(str)
    def _check_folder(self, folder: str) -> None:
        self.card.set_checking(True)
        self._window._controller.check_folder(folder)

    @Slot(str, str)
    def _folder_checked(self, folder: str, sentence: str) -> None:
        """A chosen folder passed the load's checks: it becomes the model and loads."""
        window = self._window
        self.card.set_checking(False)
        if sentence:
            self.card.show_problem(sentence)
            return
        self.card.clear_problem()
        self.status.loading(folder)
        if window._model_override is not None or window._settings.override("model/source"):
            window._model_override = folder  # set for this session (--model or OMNIVOICE_MODEL)
            window.load_model()
        else:  # saved; Settings shows it and reloads, as for any change of the model setting
            window._settings.set_value("model/source", folder)

    def _show_backend_settings(self) -> None:
        self._window.show_view("settings")
        self._window.settingsView.show_backend()

    # ------------------------------------------------------------------ the server
    @Slot()
    def probe_server(self) -> None:
        self.retry.stop()
        config = self._backend()
        if config is not None:
            self.probe.start(config.url, config.api_key, config.dialect)

    @Slot(str)
    def _server_answered(self, _description: str) -> None:
        if self.status.server_url is not None:
            self.status.server_answered(self.status.server_url)

    @Slot(str)
    def _server_failed(self, sentence: str) -> None:
        if self.status.server_url is not None:
            self.status.server_failed(self.status.server_url, sentence)
            self.retry.start()

    # ------------------------------------------------------------------ Whisper
    @Slot()
    def _asr_note(self, *_done) -> None:
        """The transcript hint says what leaving it empty costs the first time."""
        self._window.cloneView.reference.set_recogniser_size(self.asr.missing_size())

    @Slot()
    def _type_transcript(self) -> None:
        view = self._asr_view or self._window.cloneView
        view.reference.show_transcript_note(
            "Type what the clip says here; nothing was downloaded.")
        view.reference.refTextEdit.setFocus()

    @Slot(str)
    def _asr_failed(self, sentence: str) -> None:
        """Said in full beside the button that asked (Generate, or Transcribe by the clip)
        and on the status bar, in red unless the user cancelled."""
        view = self._asr_view or self._window.cloneView
        error = "cancelled" not in sentence
        if self._asr_for_render and error:  # about this clip: it goes when the clip changes
            view.on_failed(sentence, view.reference.reference())
        elif self._asr_for_render:
            view.form.show_message(sentence, error=False)
        else:
            view.reference.show_message(sentence, error=error)
        status = self._window.statusBarWidget
        status.show_error(sentence) if error else status.show_message(sentence)
