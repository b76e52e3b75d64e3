"""Job: one operation asked of the worker, with its own signals.

The controller makes a Job for each render, script render, transcription or voice
save and hands it to whoever asked, who connects to that job's signals alone: no
job ids to route, and two views can never see each other's progress.

The worker reports from its thread through ``report``; the job carries each report
to its own thread (where it lives: the main thread) over one queued connection and
emits the public signal there, in the order reported. So a receiver of a job's
signals always runs on the main thread, a lambda included, and a job's end is
said once: nothing reaches its receivers after ``done``, ``failed`` or
``cancelled`` (each followed by ``ended``).
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal, Slot

ENDS = frozenset({"done", "failed", "cancelled"})


class Job(QObject):
    progress = Signal(int, int, int, int)  # step, steps, chunk (or line), chunks (or lines)
    chunk = Signal(object)  # studio.engine.stream.StreamChunk: the first take as it decodes
    line = Signal(object)  # LineDone: one line of a script render kept as a take
    stage = Signal(str)  # what the job does besides decoding: "Judging take 2 of 4 …"
    done = Signal(object)  # the result: RenderResult, LinesResult, a transcript, a voice id
    failed = Signal(str)  # one sentence
    cancelled = Signal()
    ended = Signal()  # after done, failed or cancelled: the job is over

    # (signal name, its arguments) as reported, on the reporting thread: queued to the
    # job's own thread for the signals above. A receiver that must act before the
    # worker's next step (a test that cancels at a given step) connects here directly.
    reported = Signal(str, object)

    def __init__(self, kind: str, number: int = 0, parent: QObject | None = None):
        super().__init__(parent)
        self.kind = kind  # "render", "lines", "transcribe", "save-voice": for the log
        self.number = number  # the controller's count: a stable key for a stream's chunks
        # Set by cancel() on the main thread, read by the decode loop between steps: a
        # queued "cancel" would wait behind the busy worker.
        self.stop = threading.Event()
        self.over = False
        self.reported.connect(self._deliver)

    def cancel(self) -> None:
        """Ask the job to stop: before it starts, or at the worker's next step."""
        self.stop.set()

    def report(self, signal: str, *args) -> None:
        """The worker's side, from any thread: emit ``signal`` with ``args`` on the
        job's thread."""
        if signal not in ENDS and signal not in {"progress", "chunk", "line", "stage"}:
            raise ValueError(f"a job has no signal {signal!r}")
        self.reported.emit(signal, args)

    @Slot(str, object)
    def _deliver(self, signal: str, args: tuple) -> None:
        if self.over:
            return
        if signal in ENDS:
            self.over = True
        getattr(self, signal).emit(*args)
        if signal in ENDS:
            self.ended.emit()

    def __repr__(self) -> str:
        return f"<Job {self.kind} {self.number}>"
