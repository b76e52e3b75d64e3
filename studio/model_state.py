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

    @property
    def label(self) -> str:
        """The words every widget shows: Not downloaded · Downloading 34 % · Loading ·
        Ready · Failed: sentence · Server: host."""
        if self.phase is Phase.DOWNLOADING:
            return "Downloading" if self.percent is None else f"Downloading {self.percent} %"
        if self.phase is Phase.FAILED:
            return f"Failed: {self.detail}"
        if self.phase is Phase.SERVER:
            return f"Server: {server_host(self.source)}"
        return {Phase.NOT_DOWNLOADED: "Not downloaded", Phase.LOADING: "Loading",
                Phase.READY: "Ready"}[self.phase]

    @property
    def can_generate(self) -> bool:
        return self.phase in (Phase.READY, Phase.SERVER)

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

    @property
    def state(self) -> ModelState:
        return ModelState(Phase.SERVER, self.server_url) if self.server_url else self.local

    def _change(self, local: ModelState | None = None, server: str | None | bool = False) -> None:
        before = self.state
        if local is not None:
            self.local = local
        if server is not False:
            self.server_url = server or None
        if self.state != before and self._on_change is not None:
            self._on_change(self.state)

    def use_server(self, url: str | None) -> None:
        """Renders go to the server at ``url``; None: this computer renders again."""
        self._change(server=url)

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
