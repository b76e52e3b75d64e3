"""A worker job for tests that call the worker's methods on their own thread: each of
its signals appends to the list given for it, at once (the job lives on the test's
thread, so its reports are delivered directly)."""

from __future__ import annotations

import threading

from studio.worker.job import Job


def job_for(number: int = 1, *, stop: threading.Event | None = None, done: list | None = None,
            failed: list | None = None, cancelled: list | None = None,
            chunks: list | None = None, lines: list | None = None,
            progress: list | None = None, stages: list | None = None) -> Job:
    """A Job numbered ``number``; ``cancelled`` gets its number; ``stop``: the test's own
    cancel event, set from wherever the test likes."""
    job = Job("test", number)
    if stop is not None:
        job.stop = stop
    for signal, into in ((job.done, done), (job.failed, failed), (job.chunk, chunks),
                         (job.line, lines), (job.stage, stages)):
        if into is not None:
            signal.connect(into.append)
    if cancelled is not None:
        job.cancelled.connect(lambda: cancelled.append(number))
    if progress is not None:
        job.progress.connect(lambda *step: progress.append(step))
    return job
