"""Fetching a model repo for the setup card and the Settings view: the license first,
then the download on a background thread (bytes, speed, time left, Cancel), reported
back as signals on the GUI thread.

A plain daemon thread rather than a QThread: quitting the studio must not wait for a
download, and what arrived is kept for the next one to resume.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QMessageBox, QWidget

from studio.errors import UserError
from studio.views.thread_emit import emit_from_thread

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


def default_downloader(repo: str, on_progress=None, cancel=None) -> Path:
    """The repo into the studio's own model folder (resumable), not the hub cache."""
    from studio.engine.hub_download import download_folder, download_repo

    return download_repo(repo, download_folder(repo), on_progress=on_progress, cancel=cancel)


class ModelDownload(QObject):
    """One download at a time. ``done(repo, path)``, ``failed(repo, sentence)`` or
    ``cancelled(repo, sentence)`` follow each started one, and ``progress(repo,
    DownloadProgress)`` while it runs; all emitted from the download thread and queued
    to the GUI thread."""

    done = Signal(str, str)  # repo, local path
    failed = Signal(str, str)  # repo, one sentence
    cancelled = Signal(str, str)  # repo, one sentence (what arrived is kept)
    progress = Signal(str, object)  # repo, studio.engine.hub_download.DownloadProgress

    def __init__(self, downloader: Callable[..., Path] = default_downloader,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._downloader = downloader
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self.repo = ""
        # Connected first, so the view's slots already see the download as over.
        self.done.connect(self._over)
        self.failed.connect(self._over)
        self.cancelled.connect(self._over)

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, repo: str) -> bool:
        if self.is_running():
            return False
        self.repo = repo
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(repo, self._cancel),
                                        name="model-download", daemon=True)
        self._thread.start()
        return True

    def cancel(self) -> None:
        """Stop before the next chunk; ``cancelled`` follows."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    @Slot(str, str)
    def _over(self, _repo: str, _what: str) -> None:
        self._thread = None

    def _run(self, repo: str, cancel: threading.Event) -> None:
        """Runs on the download thread; only emits."""
        from studio.engine.hub_download import DownloadCancelled

        def report(progress) -> None:  # the window may close: the download goes on
            emit_from_thread(self.progress, repo, progress)

        try:
            path = self._downloader(repo, on_progress=report, cancel=cancel)
        except DownloadCancelled as exc:
            outcome = (self.cancelled, repo, str(exc))
        except UserError as exc:
            outcome = (self.failed, repo, str(exc))
        except Exception:  # the studio must survive any download failure
            log.exception("download of %s failed", repo)
            outcome = (self.failed, repo, DOWNLOAD_FAILED)
        else:
            outcome = (self.done, repo, str(path))
        if not emit_from_thread(*outcome):
            log.info("download of %s finished after its view closed", repo)
