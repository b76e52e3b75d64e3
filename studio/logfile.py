"""The log file in the data folder, shared by the studio and the headless commands.

Size-bounded: it rolls over at ``MAX_BYTES`` and keeps ``BACKUPS`` old files, so a
long-lived install never fills the disk with logs. Several processes may append
(the studio and a command run beside it); each rolls over on its own, which at
worst loses a few lines of an old file.

A fatal signal (a crash in native code) is written into the same file by
faulthandler, with every thread's Python stack, so the evidence sits where the
error sentences point.
"""

from __future__ import annotations

import faulthandler
import logging
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class LogFile(RotatingFileHandler):
    """The rotating log file, which also receives faulthandler's report of a fatal signal
    (after a rollover too). Closing it hands faulthandler back to where it wrote before
    (stderr), or turns it off, so an in-process caller is left as it was."""

    def __init__(self, path: Path):
        self.failed = False  # a record or the closing flush could not be written
        self._faults_before = faulthandler.is_enabled()
        super().__init__(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        self._catch_faults()

    def _catch_faults(self) -> None:
        if self.stream is not None:
            faulthandler.enable(file=self.stream, all_threads=True)

    def doRollover(self) -> None:
        super().doRollover()
        self._catch_faults()

    def handleError(self, record: logging.LogRecord) -> None:
        # The log is evidence, not the job: a full disk or a vanished folder must not
        # print logging's tracebacks (one per record) or fail a command that worked.
        self.failed = True

    def close(self) -> None:
        if self.stream is not None and faulthandler.is_enabled():
            if self._faults_before and sys.__stderr__ is not None:
                faulthandler.enable(file=sys.__stderr__, all_threads=True)
            else:
                faulthandler.disable()
        try:
            super().close()  # flushes: on a full disk that raises
        except OSError:
            self.failed = True
            stream, self.stream = self.stream, None
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def attach() -> tuple[logging.Handler, Path | None]:
    """Attach the log file to the root logger; returns the handler and the file's path.

    Without a writable data folder records go to a NullHandler rather than to
    logging's last-resort handler, which would print them on the terminal.
    """
    from studio.paths import log_file

    path: Path | None = log_file()
    handler: logging.Handler
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = LogFile(path)
    except OSError:
        handler, path = logging.NullHandler(), None
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler, path
