"""Evidence of what went wrong, for the log file: exceptions nobody caught, and a marker
that tells the next studio start that the last session ended abnormally.

Fatal signals (SIGSEGV, SIGABRT, ...) are written into the log by faulthandler, which
``logfile.LogFile`` points at the file it writes. No Qt here: the command line uses the
hooks too; the Qt message handler lives with the app.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path

log = logging.getLogger("studio.crash")

MARKER_NAME = "session.lock"
RUNNING, CLOSED = "running", "closed"


ABNORMAL_END = "The last session ended abnormally; Help ▸ Open log file shows why."


def abnormal_end_message(log_path: Path | None) -> str:
    """The whole sentence, for the status bar's tooltip (``ABNORMAL_END`` is what fits)."""
    where = f"the log file {log_path}" if log_path else "the log file in the data folder"
    return (f"The last session ended abnormally (a crash or a forced quit); {where} has what "
            "it left behind.")


class UncaughtHooks:
    """``sys.excepthook`` and ``threading.excepthook`` that log the traceback, with the
    previous hooks restored by :meth:`remove` (so an in-process caller is left as it was).

    ``notify`` (optional) hears one call per uncaught exception, e.g. to tell the user.
    """

    def __init__(self, notify=None):
        self.notify = notify
        self._previous = (sys.excepthook, threading.excepthook)
        sys.excepthook = self._on_exception
        threading.excepthook = self._on_thread_exception

    def _on_exception(self, kind, value, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            self._previous[0](kind, value, tb)
            return
        log.error("uncaught exception", exc_info=(kind, value, tb))
        self._tell()

    def _on_thread_exception(self, args) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        log.error("uncaught exception in thread %s", name,
                  exc_info=(args.exc_type, args.exc_value, args.exc_traceback))
        self._tell()

    def _tell(self) -> None:
        if self.notify is not None:
            try:
                self.notify()
            except Exception:  # the hook must never raise
                log.exception("reporting an uncaught exception failed")

    def remove(self) -> None:
        if sys.excepthook == self._on_exception:
            sys.excepthook = self._previous[0]
        if threading.excepthook == self._on_thread_exception:
            threading.excepthook = self._previous[1]


class SessionMarker:
    """``session.lock`` in the data folder: "running" while a studio runs, "closed" after a
    clean quit. A file still saying "running" that no process holds locked was left by a
    session that crashed or was killed. The lock is the operating system's, released when
    the process ends however it ends, so a second studio running beside this one is never
    mistaken for a crash."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / MARKER_NAME
        self._handle = None

    def begin(self) -> bool:
        """Claim the marker for this session; True when the last session ended abnormally.

        Never raises: without a writable data folder there is no marker, and no claim."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(self.path, "a+b")
        except OSError:
            log.warning("no session marker: %s cannot be opened", self.path)
            return False
        if not _try_lock(handle):
            handle.close()  # another studio holds it: it is running, not crashed
            return False
        handle.seek(0)
        previous = handle.read().decode("utf-8", "replace").split()
        abnormal = bool(previous) and previous[0] == RUNNING
        self._write(handle, f"{RUNNING} {os.getpid()}\n")
        self._handle = handle
        return abnormal

    def end(self) -> None:
        """A clean quit: the next start has nothing to report."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            self._write(handle, f"{CLOSED}\n")
        except OSError:
            log.warning("the session marker %s could not be closed", self.path)
        finally:
            handle.close()  # releases the lock

    @staticmethod
    def _write(handle, text: str) -> None:
        handle.seek(0)
        handle.truncate()
        handle.write(text.encode())
        handle.flush()
        os.fsync(handle.fileno())


def _try_lock(handle) -> bool:
    """An exclusive, non-blocking lock on the open file; False when someone holds it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True
