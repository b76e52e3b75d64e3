"""A studio render with CUDA graphs on ("graph" mode, behind a fake CUDA platform): the
worker's own thread captures and replays, a second render of a new length captures
anew (no stale graph), and the audio is the standard padded path's."""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np

from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions
from tests.accel_fakes import FakeCudaPlatform
from tests.job_log import job_for
from tests.worker.test_worker_accel import REQUEST, make_worker

PADDED = replace(REQUEST, options=GenerationOptions(
    decode=DecodeOptions(num_step=3, position_temperature=0.0, class_temperature=0.0),
    decode_mode="padded"))
LONGER = replace(PADDED, text="The worker keeps every render, and this one is a good deal longer.")


def on_a_thread(fn):
    """``fn()`` on a thread of its own (as the studio's worker thread), its result or error."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # handed back to the test's thread
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def renders(tiny_checkpoint, accel, platform=None):
    worker, seen = make_worker(tiny_checkpoint, accel, platform)
    try:
        results = []
        for request in (PADDED, LONGER):
            worker.render(job_for(done=seen["results"], failed=seen["failed"]), request)
            assert not seen["failed"], seen["failed"]
            results.append(seen["results"][-1])
        runner = worker.accelerator.runner
        keys = list(runner.graphs) if runner is not None else []
        return results, keys, seen["accel"][-1]
    finally:
        worker.release()


def test_graph_renders_on_the_worker_thread_and_a_new_length_captures_anew(qapp, tiny_checkpoint):
    standard, _, _ = renders(tiny_checkpoint, "off")
    platform = FakeCudaPlatform()
    results, keys, state = on_a_thread(lambda: renders(tiny_checkpoint, "graph", platform))
    assert (state.requested, state.active, state.reason) == ("graph", "graph", None)
    assert [r.accel_active for r in results] == ["graph", "graph"]
    assert [r.fallback_reason for r in results] == [None, None]
    assert platform.captures == 2 and len({k[0] for k in keys}) == 2  # one graph per length
    for ours, theirs in zip(results, standard):
        assert np.array_equal(ours.takes[0].audio, theirs.takes[0].audio)
