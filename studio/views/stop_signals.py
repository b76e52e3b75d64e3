"""SIGTERM, SIGINT and SIGHUP (a logout, a shutdown, Ctrl+C in the terminal) quit the
studio as File ▸ Quit does, so the next start does not report a crash (review 2).

Python runs a signal handler only when the interpreter next runs, which may be never
while Qt's event loop waits in C. ``signal.set_wakeup_fd`` makes the C-level handler
write the signal's number into a socket at once; a ``QSocketNotifier`` on the other end
wakes the event loop, and the number read there says which signal came.
"""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable

from PySide6.QtCore import QObject, QSocketNotifier, Slot

log = logging.getLogger("studio.signals")

STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")  # those this platform has


class StopSignals(QObject):
    """Calls ``on_stop`` (on the main thread, from the event loop) when a stop signal
    comes. :meth:`remove` puts the previous handlers and wake-up fd back."""

    def __init__(self, on_stop: Callable[[], None], parent: QObject | None = None):
        super().__init__(parent)
        self._on_stop = on_stop
        self._reader, self._writer = socket.socketpair()
        for end in (self._reader, self._writer):
            end.setblocking(False)
        self._numbers = {int(getattr(signal, name)) for name in STOP_SIGNALS
                         if hasattr(signal, name)}
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(),
                                                 warn_on_full_buffer=False)
        # A Python handler that does nothing: the wake-up byte does the work, and the
        # default action (end the process at once) is what this replaces.
        self._previous = {number: signal.signal(number, _ignore) for number in self._numbers}
        self.notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self.notifier.activated.connect(self._woken)

    @Slot()
    def _woken(self) -> None:
        try:
            numbers = self._reader.recv(64)
        except (BlockingIOError, InterruptedError):
            return
        caught = [n for n in numbers if n in self._numbers]
        if caught:
            log.info("signal %s received: quitting as File ▸ Quit does",
                     signal.Signals(caught[0]).name)
            self._on_stop()

    def remove(self) -> None:
        self.notifier.setEnabled(False)
        signal.set_wakeup_fd(self._previous_fd)
        for number, handler in self._previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self._reader.close()
        self._writer.close()


def _ignore(_number, _frame) -> None:
    """The signal is handled by the event loop (see the module's docstring)."""
