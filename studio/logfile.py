"""The log file in the data folder, shared by the studio and the headless commands.

Size-bounded: it rolls over at ``MAX_BYTES`` and keeps ``BACKUPS`` old files, so a
long-lived install never fills the disk with logs. Several processes may append
(the studio and a command run beside it); each rolls over on its own, which at
worst loses a few lines of an old file.
"""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


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
        handler = RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                      encoding="utf-8")
    except OSError:
        handler, path = logging.NullHandler(), None
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler, path
