"""Fetching a model repo for the Settings view: the license first, then the download
on a background thread, reported back as signals on the GUI thread.

A plain daemon thread rather than a QThread: huggingface_hub cannot be stopped
mid-file, and quitting the studio must not wait for it (a rerun resumes).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from studio.engine.errors import UserError

log = logging.getLogger(__name__)

DOWNLOAD_FAILED = ("The download failed unexpectedly; the log file in the data folder "
                   "has the details.")


def looks_like_repo(source: str) -> bool:
    """'owner/name' and not an existing or explicit local path."""
    source = source.strip()
    return (source.count("/") == 1 and not source.startswith((".", "/", "~"))
            and not Path(source).expanduser().exists() and all(source.split("/")))


def confirm_license(parent: QWidget, repo: str) -> bool:
    """Show the license notice; download only on an explicit yes."""
    from studio.engine.checkpoint import LICENSE_NOTICE

    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Information)
    box.setWindowTitle("Model license")
    box.setText(f"Download {repo}?")
    box.setInformativeText(LICENSE_NOTICE)
    download = box.addButton("Accept and download", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is download


def default_downloader(repo: str) -> Path:
    from studio.engine.checkpoint import download_checkpoint

    return download_checkpoint(repo)


class ModelDownload(QObject):
    """One download at a time. ``done(repo, path)`` or ``failed(repo, sentence)`` follow
    each started one, emitted from the download thread and queued to the GUI thread."""

    done = Signal(str, str)  # repo, local path
    failed = Signal(str, str)  # repo, one sentence

    def __init__(self, downloader: Callable[[str], Path] = default_downloader,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._downloader = downloader
        self._thread: threading.Thread | None = None
        # Connected first, so the view's slots already see the download as over.
        self.done.connect(self._over)
        self.failed.connect(self._over)

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, repo: str) -> bool:
        if self.is_running():
            return False
        self._thread = threading.Thread(target=self._run, args=(repo,), name="model-download",
                                        daemon=True)
        self._thread.start()
        return True

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    @Slot(str, str)
    def _over(self, _repo: str, _what: str) -> None:
        self._thread = None

    def _run(self, repo: str) -> None:
        """Runs on the download thread; only emits."""
        try:
            path = self._downloader(repo)
        except UserError as exc:
            outcome = (self.failed, repo, str(exc))
        except Exception:  # the studio must survive any download failure
            log.exception("download of %s failed", repo)
            outcome = (self.failed, repo, DOWNLOAD_FAILED)
        else:
            outcome = (self.done, repo, str(path))
        try:
            outcome[0].emit(*outcome[1:])
        except RuntimeError:  # the view was closed while the download ran
            log.info("download of %s finished after its view closed", repo)
