"""Settings → Backend's Test connection: asks a speech server what it is, off the
GUI thread (a server that does not answer takes seconds to time out).

The probe runs on a short-lived Python thread and reports through Qt signals,
which Qt queues to this object's (the GUI) thread. A probe started while another
runs wins: the older one's answer is dropped.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, Signal

from studio.errors import UserError
from studio.views.thread_emit import emit_from_thread

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 15.0
SHOWN = 8  # models or voices named before "and N more"


def describe(info) -> str:
    """What a probe found, for the Settings view: what answered, its models, its voices."""
    def listed(names: list[str], what: str) -> str:
        if not names:
            return f"no {what} listed"
        more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
        return f"{what}: {', '.join(names[:SHOWN])}{more}"

    # A line each: a form row sizes a wrapped label by its hint, which guesses short.
    models, voices = listed(info.models, "models"), listed(info.voices, "voices")
    return (f"Connected to {info.dialect} at {info.url}.\n{models[0].upper()}{models[1:]}.\n"
            f"{voices[0].upper()}{voices[1:]}.")


class ConnectionTest(QObject):
    succeeded = Signal(str)  # describe(info)
    failed = Signal(str)  # one sentence

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._current = 0

    def start(self, url: str, api_key: str | None, dialect: str | None) -> None:
        self._current += 1
        threading.Thread(target=self._probe, args=(self._current, url, api_key, dialect),
                         name="backend-probe", daemon=True).start()

    def cancel(self) -> None:
        """Drop the running probe's answer (the user left the server settings)."""
        self._current += 1

    def _probe(self, ticket: int, url: str, api_key: str | None, dialect: str | None) -> None:
        from studio.remote.client import RemoteBackend

        try:
            if not url.strip():
                raise UserError("Type the server's address first, such as "
                                "http://gpu-box:8000.")
            with RemoteBackend(url, api_key, dialect, timeout=PROBE_TIMEOUT_S) as backend:
                text = describe(backend.info())
        except UserError as exc:
            self._answer(ticket, self.failed, str(exc))
        except Exception:
            log.exception("testing the connection to %s failed", url)
            self._answer(ticket, self.failed, "Testing the connection failed unexpectedly; the "
                                              "log file in the data folder has the details.")
        else:
            self._answer(ticket, self.succeeded, text)

    def _answer(self, ticket: int, signal, text: str) -> None:
        """Runs on the probe's thread; the view may have closed meanwhile."""
        if ticket == self._current:  # a newer test is running: its answer is the one to show
            emit_from_thread(signal, text)
