"""Job objects: each job's signals reach its own receivers only, on the main thread,
in the order the worker reported them; cancelling one job leaves the others."""

from __future__ import annotations

import threading
import time

import pytest

from studio.service.requests import RenderRequest
from studio.worker.controller import WorkerController
from studio.worker.job import Job
from studio.worker.worker import InferenceWorker

STEPS = 5


class StepWorker(InferenceWorker):
    """A render of STEPS steps that checks its job's stop between them, as the decode
    loop does; the first step waits for ``go`` so a test can act while it runs."""

    def __init__(self, data_dir):
        super().__init__(data_dir=data_dir)
        self.go = threading.Event()
        self.ran: list[str] = []

    def render(self, job, request) -> None:
        self.ran.append(request.text)
        for step in range(1, STEPS + 1):
            if step == 2:
                assert self.go.wait(10)
            if job.stop.is_set():
                job.report("cancelled")
                return
            job.report("progress", step, STEPS, 0, 1)
            time.sleep(0.01)
        job.report("done", request.text)


class Seen:
    """Everything one job said, and on which thread."""

    def __init__(self, job: Job):
        self.said: list[tuple] = []
        self.threads: set[str] = set()
        for name in ("progress", "done", "failed", "cancelled", "ended"):
            getattr(job, name).connect(lambda *args, n=name: self._note(n, args))

    def _note(self, name: str, args: tuple) -> None:
        self.said.append((name, *args))
        self.threads.add(threading.current_thread().name)

    def names(self) -> list[str]:
        return [s[0] for s in self.said]


@pytest.fixture
def controller(qapp, tmp_path):
    made = WorkerController(StepWorker(tmp_path / "data"))
    yield made
    made.worker.go.set()
    assert made.shutdown(10_000)


def test_two_jobs_each_reach_only_their_own_receivers(qtbot, controller):
    first = controller.render(RenderRequest("first"))
    second = controller.render(RenderRequest("second"))
    assert first is not second and controller.busy
    a, b = Seen(first), Seen(second)
    controller.worker.go.set()
    qtbot.waitUntil(lambda: "ended" in b.names(), timeout=10_000)
    for seen, text in ((a, "first"), (b, "second")):
        assert seen.said == [("progress", step, STEPS, 0, 1) for step in range(1, STEPS + 1)] + [
            ("done", text), ("ended",)]
        assert seen.threads == {threading.main_thread().name}  # whatever thread reported
    assert controller.worker.ran == ["first", "second"]  # one worker thread, in order
    qtbot.waitUntil(lambda: not controller.busy, timeout=5_000)


def test_cancelling_the_running_job_leaves_the_queued_one(qtbot, controller):
    first = controller.render(RenderRequest("first"))
    second = controller.render(RenderRequest("second"))
    a, b = Seen(first), Seen(second)
    qtbot.waitUntil(lambda: a.names() == ["progress"], timeout=10_000)  # running, at step 1
    controller.cancel(first)
    controller.worker.go.set()
    qtbot.waitUntil(lambda: "ended" in b.names(), timeout=10_000)
    assert a.names() == ["progress", "cancelled", "ended"]
    assert b.said[-2:] == [("done", "second"), ("ended",)]


def test_cancelling_a_queued_job_leaves_the_running_one(qtbot, controller):
    first = controller.render(RenderRequest("first"))
    second = controller.render(RenderRequest("second"))
    a, b = Seen(first), Seen(second)
    qtbot.waitUntil(lambda: a.names() == ["progress"], timeout=10_000)
    second.cancel()
    controller.worker.go.set()
    qtbot.waitUntil(lambda: "ended" in b.names(), timeout=10_000)
    assert a.said[-2:] == [("done", "first"), ("ended",)]
    assert b.names() == ["cancelled", "ended"]  # the worker never started it


def test_a_job_says_its_end_once_and_nothing_after_it(qapp):
    job = Job("render")
    seen = Seen(job)
    job.report("progress", 1, 2, 0, 1)
    job.report("failed", "The server refused it.")
    job.report("done", "late")  # a second end, and a late progress: not delivered
    job.report("progress", 2, 2, 0, 1)
    assert seen.said == [("progress", 1, 2, 0, 1), ("failed", "The server refused it."),
                         ("ended",)]
    with pytest.raises(ValueError):
        job.report("finished", None)  # not one of a job's signals
