"""The one model state the whole window shows: status bar, Generate, the setup card.

Qt-free and owned by one :class:`ModelStatus` (the main window's); every widget reads
the same :class:`ModelState`, so no two of them can disagree, and nothing says
"Ready" unless a model is loaded (or renders go to a speech server).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum


class Phase(Enum):
    NOT_DOWNLOADED = "not downloaded"
    DOWNLOADING = "downloading"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    SERVER = "server"


@dataclass(frozen=True)
class ModelState:
    phase: Phase
    source: str = ""  # the model setting (a folder or a repo id), or the server's address
    detail: str = ""  # FAILED: the sentence; READY: where it runs ("cpu · fp32")
    percent: int | None = None  # DOWNLOADING: 0-100 once the size is known
    answered: bool = True  # SERVER: the server answered (False while it is being asked)

    @property
    def label(self) -> str:
        """The words every widget shows: Not downloaded · Downloading 34 % · Loading ·
        Ready · Failed: sentence · Server: host."""
        if self.phase is Phase.DOWNLOADING:
            return "Downloading" if self.percent is None else f"Downloading {self.percent} %"
        if self.phase is Phase.FAILED or (self.phase is Phase.SERVER and self.detail):
            return f"Failed: {self.detail}"
        if self.phase is Phase.SERVER:
            host = server_host(self.source)
            return f"Server: {host}" if self.answered else f"Connecting: {host}"
        return {Phase.NOT_DOWNLOADED: "Not downloaded", Phase.LOADING: "Loading",
                Phase.READY: "Ready"}[self.phase]

    @property
    def can_generate(self) -> bool:
        if self.phase is Phase.SERVER:
            return self.answered and not self.detail
        return self.phase is Phase.READY

    @property
    def needs_setup(self) -> bool:
        """No model on disk, or it would not load: the setup card shows the ways on."""
        return self.phase in (Phase.NOT_DOWNLOADED, Phase.DOWNLOADING, Phase.FAILED)

    def generate_reason(self) -> str:
        """Why Generate is disabled, as one sentence; empty when it is enabled."""
        if self.phase is Phase.NOT_DOWNLOADED:
            return "Generate needs the model: download it or choose its folder."
        if self.phase is Phase.DOWNLOADING:
            return "Generate is available when the model has downloaded and loaded."
        if self.phase is Phase.LOADING:
            return "Generate is available when the model has loaded."
        if self.phase is Phase.FAILED:
            return "Generate needs a model that loads: choose another folder or download it."
        if self.phase is Phase.SERVER and self.detail:
            return (f"Generate waits for the server at {server_host(self.source)} to answer; "
                    "it is asked again every 15 seconds (Settings → Backend).")
        if self.phase is Phase.SERVER and not self.answered:
            return f"Generate is available when the server at {server_host(self.source)} answers."
        return ""


def server_host(url: str) -> str:
    return url.split("://", 1)[-1].rstrip("/") or url


class ModelStatus:
    """The owner of the model state; ``on_change(state)`` after each change it shows.

    It keeps the local model's state even while renders go to a speech server, so
    switching back to This computer shows what is true here at once. A download's
    progress never hides a model that is loading or loaded.
    """

    def __init__(self, on_change: Callable[[ModelState], None] | None = None):
        self._on_change = on_change
        self.local = ModelState(Phase.LOADING)
        self.server_url: str | None = None
        self._server = ModelState(Phase.SERVER, answered=False)

    @property
    def state(self) -> ModelState:
        return self._server if self.server_url else self.local

    def _change(self, local: ModelState | None = None, server: str | None | bool = False) -> None:
        before = self.state
        if local is not None:
            self.local = local
        if server is not False:
            self.server_url = server or None
        if self.state != before and self._on_change is not None:
            self._on_change(self.state)

    def use_server(self, url: str | None) -> None:
        """Renders go to the server at ``url`` (asked whether it answers); None: this
        computer renders again."""
        if url and url != self.server_url:
            self._server = ModelState(Phase.SERVER, url, answered=False)
        self._change(server=url)

    def server_answered(self, url: str) -> None:
        self._set_server(url, ModelState(Phase.SERVER, url))

    def server_failed(self, url: str, sentence: str) -> None:
        self._set_server(url, ModelState(Phase.SERVER, url, sentence))

    def _set_server(self, url: str, state: ModelState) -> None:
        if url != self.server_url:  # an answer about a server no longer used
            return
        before = self.state
        self._server = state
        if self.state != before and self._on_change is not None:
            self._on_change(self.state)

    def loading(self, source: str) -> None:
        self._change(ModelState(Phase.LOADING, source))

    def ready(self, source: str, where: str = "") -> None:
        self._change(ModelState(Phase.READY, source, where))

    def not_downloaded(self, source: str) -> None:
        self._change(ModelState(Phase.NOT_DOWNLOADED, source))

    def failed(self, source: str, sentence: str) -> None:
        self._change(ModelState(Phase.FAILED, source, sentence))

    def downloading(self, source: str, done: int, total: int | None) -> None:
        if self.local.phase in (Phase.READY, Phase.LOADING):
            return
        percent = None if not total else max(0, min(100, int(100 * done / total)))
        self._change(ModelState(Phase.DOWNLOADING, source, percent=percent))
