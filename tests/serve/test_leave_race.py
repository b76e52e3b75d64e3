"""A client that leaves while the model's thread hands its ticket the running batch is
still cancelled: the batch must not render for nobody. Before, the batch and its cancel
event were two writes with no lock while ``Ticket.leave`` read both, so a leave between
(or just before) them was lost. The test pauses the model's thread at its first write to
the ticket and lets the client leave right there, before or after that write."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest

from studio.serve.renderer import Renderer, Ticket


class PausingTicket(Ticket):
    """Lets the client leave (on its own thread) at the model thread's first write."""

    when: str = "after"
    armed: bool = False

    def __setattr__(self, name, value):
        leave_now = self.armed and threading.current_thread().name == "model"
        if leave_now:
            object.__setattr__(self, "armed", False)
        if leave_now and self.when == "before":
            self._leave_elsewhere()
        super().__setattr__(name, value)
        if leave_now and self.when == "after":
            self._leave_elsewhere()

    def _leave_elsewhere(self):
        client = threading.Thread(target=self.leave, name="client")
        client.start()
        client.join()


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_client_leaving_as_its_batch_starts_cancels_it(when):
    from studio.engine.decode import Cancelled

    loop = asyncio.new_event_loop()
    seen = []

    def synthesize(items, options, cancel, on_chunk):
        seen.append(cancel.is_set())
        if cancel.is_set():
            raise Cancelled()
        return [SimpleNamespace(audio=[0.0], sample_rate=24000, seed=1)]

    renderer = Renderer(None)
    renderer.engine = SimpleNamespace(synthesize=synthesize)
    renderer._lexicon = lambda: None
    renderer._item = lambda ticket, lexicon: object()
    ticket = PausingTicket(request=SimpleNamespace(options=None), voice=None, loop=loop)
    object.__setattr__(ticket, "when", when)
    object.__setattr__(ticket, "armed", True)
    renderer._admitted = 1
    model = threading.Thread(target=renderer._render, args=([ticket],), name="model")
    model.start()
    model.join(10)
    loop.close()
    assert ticket.gone.is_set() and not ticket.armed  # the client did leave mid-hand-over
    assert seen == [True], "the batch rendered for a client that had left"
    assert renderer.admitted == 0
