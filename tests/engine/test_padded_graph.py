"""CUDA graphs on the padded path ("graph" mode) on the CPU, behind a fake CUDA
platform whose "graph" recomputes from its static buffers when replayed: the
standard padded tokens, one capture per render shape, a bounded LRU sharing one
pool, a new length captured anew, a failed capture finished eagerly with its
reason, and no thread but the owner's."""

from __future__ import annotations

import threading

import pytest
import torch

from studio.engine.accel.accelerator import Accelerator
from studio.engine.accel.graph_cache import GraphCache, GraphThreadError
from studio.engine.accel.padded_graph import PaddedGraphRunner
from studio.engine.decode import DecodeItem, DecodeOptions, _padded_batch
from studio.engine.engine import GenerationOptions, SynthesisItem
from tests.accel_fakes import FakeCudaPlatform

TAIL = ", rendered on the standard path"
OPTIONS = GenerationOptions(
    decode=DecodeOptions(num_step=5, position_temperature=0.0, class_temperature=0.0),
    decode_mode="padded", chunking="reference",
)
SHORT = [SynthesisItem("A short line.", seed=1)]
# The same batch size, a longer padded length: only the length tells the shapes apart.
LONG = [SynthesisItem("A much longer line than the first one, so its batch is wider.", seed=2)]


def tokens(engine, items, run=None):
    call = lambda: [t for r in engine.synthesize(items, OPTIONS) for t in r.tokens]  # noqa: E731
    return run(call) if run is not None else call()


def same(a, b):
    return len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))


@pytest.fixture(scope="module")
def standard(engine):
    return {"short": tokens(engine, SHORT), "long": tokens(engine, LONG)}


class FailingCapture(FakeCudaPlatform):
    def __init__(self, error):
        super().__init__()
        self.error = error

    def capture_graph(self, fn, pool=None):
        self.captures += 1
        raise self.error


def test_graph_mode_gives_the_padded_tokens_capturing_once_per_shape(engine, standard):
    acc = Accelerator("graph", platform=FakeCudaPlatform())
    try:
        report = acc.prepare(engine)
        assert (report.active, report.reason) == ("graph", None) and engine.layers is acc.runner
        runner = acc.runner
        assert same(tokens(engine, SHORT, acc.run), standard["short"])
        # Step 1 eager (warm-up), step 2 captured, steps 2..5 replayed.
        assert acc.platform.captures == 1 and runner.eager_steps == 1
        assert same(tokens(engine, SHORT, acc.run), standard["short"])
        assert acc.platform.captures == 1 and runner.eager_steps == 1  # replayed from step 1
        # A new length captures anew and never replays the other shape's graph.
        assert same(tokens(engine, LONG, acc.run), standard["long"])
        assert acc.platform.captures == 2 and runner.eager_steps == 2
        assert len(runner.graphs) == 2 and len({k[0] for k in runner.graphs}) == 2
        assert same(tokens(engine, SHORT, acc.run), standard["short"])
        assert acc.platform.captures == 2 and acc.report.active == "graph"
        assert len(set(map(id, acc.platform.pools))) == 1  # one pool for every shape
    finally:
        acc.release()
    assert engine.layers is None


def _inputs(engine, length: int, count: int = 1):
    spec = engine.net.audio
    items = [DecodeItem(torch.full((spec.codebooks, length), spec.mask_id), 0, length // 2)
             for _ in range(count)]
    return _padded_batch(items, spec.codebooks, spec.mask_id, "cpu")


def _steps(runner, engine, inputs, n: int = 2):
    step = runner(engine.net, *inputs)
    with torch.inference_mode():
        return [step().clone() for _ in range(n)]


def test_the_cache_is_bounded_and_least_recently_used_goes(engine):
    platform = FakeCudaPlatform()
    runner = PaddedGraphRunner(engine.net, platform, max_graphs=2)
    runner.apply()
    try:
        for length in (8, 12, 8, 16):
            _steps(runner, engine, _inputs(engine, length))
        assert [k[0][2] for k in runner.graphs] == [8, 16]  # padded length; 12 went first
        assert platform.captures == 3
        _steps(runner, engine, _inputs(engine, 12))  # evicted: captured again
        assert platform.captures == 4 and [k[0][2] for k in runner.graphs] == [16, 12]
    finally:
        runner.unapply()
    assert not runner.graphs and runner.graphs.pool is None


def test_replayed_logits_are_the_eager_logits_of_the_current_ids(engine):
    """Each replay reads the ids as they are now: a graph keeps no stale input."""
    runner = PaddedGraphRunner(engine.net, FakeCudaPlatform())
    runner.apply()
    ids, mask, attn = _inputs(engine, 10, count=2)
    step = runner(engine.net, ids, mask, attn)
    with torch.inference_mode():
        for value in (3, 5, 7):  # the first call eager, then capture, then replay
            ids[:, :, -2:] = value
            assert torch.equal(step(), engine.net(ids, mask, attn))
    assert runner.platform.captures == 1


@pytest.mark.parametrize("error, code, text", [
    (RuntimeError("operation not permitted when stream is capturing"), "graph_capture_failed",
     "graph: CUDA graph capture failed (RuntimeError)"),
    (torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB"),
     "out_of_memory", "graph: CUDA out of memory"),
], ids=["capture-failed", "out-of-memory"])
def test_a_failed_capture_finishes_the_render_eagerly_named_and_latched(engine, standard, error,
                                                                        code, text):
    acc = Accelerator("graph", platform=FailingCapture(error))
    assert acc.prepare(engine).active == "graph"
    runner = acc.runner
    assert same(tokens(engine, SHORT, acc.run), standard["short"])
    assert acc.platform.captures == 1 and runner.eager_steps == OPTIONS.decode.num_step
    assert acc.report.active == "off" and acc.report.codes == (code,)
    assert acc.report.reason == text + TAIL
    assert engine.layers is None and not runner.graphs
    assert acc.prepare(engine).codes == (code,)  # latched: not tried again
    assert same(tokens(engine, SHORT, acc.run), standard["short"])


def test_another_thread_is_refused(engine):
    runner = PaddedGraphRunner(engine.net, FakeCudaPlatform())
    runner.apply()
    inputs = _inputs(engine, 8)
    step = runner(engine.net, *inputs)
    errors = []

    def other(call):
        try:
            call()
        except GraphThreadError as exc:
            errors.append(exc)

    for call in (lambda: runner(engine.net, *inputs), step):
        thread = threading.Thread(target=other, args=(call,))
        thread.start()
        thread.join()
    assert len(errors) == 2 and "thread" in str(errors[0])
    assert runner.platform.captures == 0 and not runner.graphs


def test_graph_cache_alone():
    platform = FakeCudaPlatform()
    cache = GraphCache(platform, max_graphs=2)
    for key in "abc":
        replay, out = cache.capture(lambda: torch.zeros(1))
        cache.put(key, (replay, out))
    assert list(cache) == ["b", "c"] and cache.get("a") is None
    cache.get("b")
    cache.put("d", None)
    assert list(cache) == ["b", "d"]
    assert platform.pools[0] is platform.pools[2] is cache.pool
    assert cache.clear() and cache.pool is None and not cache.clear()
