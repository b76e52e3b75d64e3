"""Renderer.call: work that needs the model (encoding a voice, keeping a take) runs on the
model's one thread, between batches, and its failure reaches the caller."""

from __future__ import annotations

import concurrent.futures
import threading

import pytest

from studio.serve.renderer import QueueFull, Renderer


@pytest.fixture
def renderer(tiny_checkpoint):
    renderer = Renderer(str(tiny_checkpoint), device="cpu", precision="fp32")
    renderer.start()
    yield renderer
    renderer.stop()


def test_work_runs_on_the_model_thread_with_its_engine(renderer):
    seen = renderer.call(lambda engine: (threading.current_thread().name, engine)).result(60)
    assert seen == ("omnivoice-serve-model", renderer.engine)
    assert threading.current_thread().name != seen[0]


def test_a_failure_reaches_the_caller_and_the_thread_goes_on(renderer):
    def fail(_engine):
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        renderer.call(fail).result(60)
    assert renderer.call(lambda engine: 7).result(60) == 7


def test_calls_run_in_order_and_none_after_stop(renderer):
    order: list[int] = []
    futures = [renderer.call(lambda engine, n=n: order.append(n)) for n in range(5)]
    concurrent.futures.wait(futures, timeout=60)
    assert order == list(range(5))
    renderer.stop()
    with pytest.raises(QueueFull):
        renderer.call(lambda engine: None)
