"""The one thread that owns the model, and the bounded queue in front of it.

Requests become :class:`Ticket`\\ s. ``submit`` admits a ticket while fewer than
``limit`` are admitted and unfinished, else raises :class:`QueueFull` (the app
answers 429 with Retry-After). The worker takes the oldest ticket and every other
waiting one whose decoding settings are the same (up to ``batch``), and renders them
in one ``Engine.synthesize`` call: one batch, one pass per chunk index. Each
ticket's chunks and result go back to its own asyncio queue. A ticket whose client
went away is skipped if it still waits; a running batch stops between two steps
once every one of its tickets has gone. Either way its slot is free again. Each
batch reads the data folder's pronunciation dictionary afresh, as the studio does.
A request's ref_audio is decoded and encoded here, on this thread, after admission:
before the queue only its header was read, so a request refused with 429 cost no decode.
One asking for ``clean`` has its clip cleaned here first, by the server's one ClipCleaner
(studio.service.cleanup, shared with the MCP tools), into the data folder's cleaned clips:
a clip sent again is found there, not cleaned again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path

from studio.engine.options import DEFAULT_REPO
from studio.errors import UserError
from studio.serve.request import SpeechRequest, read_ref_audio
from studio.serve.voices import ResolvedVoice
from studio.service.cleanup import ClipCleaner

log = logging.getLogger(__name__)

PROMPT_MEMO = 16  # encoded ref_audio clips kept, by digest: a client resends the same clip


def model_id(model: str | None) -> str:
    """The id ``/v1/models`` reports: a repo id as given, a folder by its name only
    (the server's paths are nobody's business)."""
    if not model:
        return DEFAULT_REPO
    path = Path(model).expanduser()
    return path.name if path.exists() or str(model).count("/") != 1 else str(model)


def prompt_key(request: SpeechRequest) -> str:
    """What PROMPT_MEMO keys a ref_audio's encoded prompt on: the clip's digest, the
    cleanup steps (a cleaned and an uncleaned clip never share a prompt) and the
    transcript."""
    return f"{request.ref_key}:{','.join(request.clean)}:{request.ref_text}"


class QueueFull(Exception):
    def __init__(self, retry_after: int):
        super().__init__(retry_after)
        self.retry_after = retry_after


@dataclass
class Ticket:
    """One admitted request: what to render and where its events go."""

    request: SpeechRequest
    voice: ResolvedVoice
    loop: asyncio.AbstractEventLoop
    events: asyncio.Queue = field(default_factory=asyncio.Queue)
    gone: threading.Event = field(default_factory=threading.Event)  # the client left
    batch: RunningBatch | None = None  # set in ONE write by the model's thread, once it runs
    cleanup: object = None  # the CleanupReport of its ref_audio's cleaning: set by the
    # model's thread before the ticket's first event, so the response's headers can say

    def send(self, kind: str, payload=None) -> None:
        if not self.gone.is_set():
            self.loop.call_soon_threadsafe(self.events.put_nowait, (kind, payload))

    def leave(self) -> None:
        """The client went away (disconnected, or stopped reading)."""
        self.gone.set()
        batch = self.batch  # one read: the batch and its cancel event arrive together
        if batch is not None:
            batch.cancel_if_abandoned()


@dataclass(frozen=True)
class RunningBatch:
    """The tickets one engine call renders and the event that stops it.

    No lock is needed: a ticket gets its batch in one write, and the model's thread checks
    for abandonment after writing them all. A client sets ``gone`` before it reads
    ``batch``, so either it sees the batch (and checks) or the thread's later check sees
    it gone; the last client to leave is never missed."""

    tickets: tuple[Ticket, ...]
    cancel: threading.Event

    def cancel_if_abandoned(self) -> None:
        if all(t.gone.is_set() for t in self.tickets):
            self.cancel.set()


@dataclass
class Rendered:
    audio: object  # (T,) float32
    sample_rate: int
    seed: int
    batch_size: int
    seconds: float
    judgement: dict | None = None  # when the request asked (studio.serve.scores)


class Renderer:
    def __init__(self, model: str | None, device: str = "auto", precision: str = "auto",
                 limit: int = 16, batch: int = 8, data_root: Path | None = None,
                 asr_model: str | None = None):
        self.model, self.device, self.precision = model, device, precision
        self.asr_model = asr_model  # the words judge's recogniser (None: the default)
        self._judges = None  # loaded on the model's thread by the first judged request
        self.limit, self.batch = limit, batch
        self.data_root = data_root
        self.engine = None  # set on the worker thread; read-only elsewhere (info)
        self.model_id = model_id(model)
        self._lock = threading.Condition()
        self._pending: deque[Ticket] = deque()
        self._calls: deque[tuple[object, concurrent.futures.Future]] = deque()
        self._admitted = 0
        self._stopping = False
        self._ready = threading.Event()
        self._load_error: BaseException | None = None
        self._batch_seconds = 1.0  # a running estimate, for Retry-After
        self._prompts: OrderedDict[str, object] = OrderedDict()
        self.cleaner = ClipCleaner(data_root)  # its models load with the first clean
        self._thread = threading.Thread(target=self._run, name="omnivoice-serve-model",
                                        daemon=True)

    # ------------------------------------------------------------- any thread

    def start(self) -> None:
        """Start the worker and wait for the model; a load failure is raised here."""
        self._thread.start()
        self._ready.wait()
        if self._load_error is not None:
            raise self._load_error

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            for ticket in self._pending:
                ticket.leave()
            self._lock.notify_all()
        self._thread.join(timeout=30)

    @property
    def admitted(self) -> int:
        with self._lock:
            return self._admitted

    def submit(self, ticket: Ticket) -> None:
        with self._lock:
            if self._admitted >= self.limit or self._stopping:
                waves = math.ceil((self._admitted + 1) / self.batch)
                raise QueueFull(max(1, math.ceil(waves * self._batch_seconds)))
            self._admitted += 1
            self._pending.append(ticket)
            self._lock.notify()

    def call(self, work) -> concurrent.futures.Future:
        """Run ``work(engine)`` on the model's thread, between two batches (encoding a
        voice to save, keeping a take): the model has one owner whoever asks."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            if self._stopping:
                raise QueueFull(1)
            self._calls.append((work, future))
            self._lock.notify()
        return future

    # --------------------------------------------------------- worker thread

    def _run(self) -> None:
        from studio.engine.engine import Engine

        try:
            self.engine = Engine.load(self.model, device=self.device, precision=self.precision)
        except BaseException as exc:  # reported by start() on the caller's thread
            self._load_error = exc
            self._ready.set()
            return
        self._ready.set()
        while True:
            with self._lock:
                while not self._pending and not self._calls and not self._stopping:
                    self._lock.wait()
                if self._stopping:
                    for _work, future in self._calls:
                        future.cancel()
                    return
                call = self._calls.popleft() if self._calls else None
                batch = [] if call else self._take()
            if call is not None:
                self._run_call(*call)
            if batch:
                self._render(batch)

    def _run_call(self, work, future: concurrent.futures.Future) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(work(self.engine))
        except BaseException as exc:  # the caller's to report; this thread goes on
            future.set_exception(exc)

    def _take(self) -> list[Ticket]:
        """The oldest waiting ticket and those that can share its batch (lock held)."""
        while self._pending and self._pending[0].gone.is_set():
            self._pending.popleft()
            self._admitted -= 1
        if not self._pending:
            return []
        first = self._pending.popleft()
        batch, rest = [first], deque()
        while self._pending:
            ticket = self._pending.popleft()
            if ticket.gone.is_set():
                self._admitted -= 1
            elif len(batch) < self.batch and ticket.request.options == first.request.options:
                batch.append(ticket)
            else:
                rest.append(ticket)
        self._pending = rest
        return batch

    def _release(self, count: int) -> None:
        with self._lock:
            self._admitted -= count

    def _render(self, tickets: list[Ticket]) -> None:
        from studio.engine.decode import Cancelled

        started = time.perf_counter()
        try:
            lexicon = self._lexicon()
        except UserError as exc:  # the server's file, not the client's fault: a 500
            log.error("%s", exc)
            for ticket in tickets:
                ticket.send("error", (500, "The server's pronunciation dictionary cannot be "
                                           "used; the details are in its log file."))
            self._release(len(tickets))
            return
        ready, items = [], []
        for ticket in tickets:
            try:
                items.append(self._item(ticket, lexicon))
                ready.append(ticket)
            except UserError as exc:  # a RequestError has its own status (413: a clip too long)
                ticket.send("error", (getattr(exc, "status", 422), str(exc)))
            except Exception:  # a bug must not end this thread: every later request would hang
                log.exception("a request's voice could not be prepared")
                ticket.send("error", (500, "The server failed to prepare this request's voice; "
                                           "the details are in its log file."))
        cancel = threading.Event()
        running = RunningBatch(tuple(ready), cancel)
        for ticket in ready:
            ticket.batch = running
        running.cancel_if_abandoned()  # a client that left before its ticket's write
        try:
            if ready:
                results = self.engine.synthesize(
                    items, ready[0].request.options, cancel=cancel,
                    on_chunk=lambda chunk: ready[chunk.item].send("chunk", chunk.audio))
                seconds = time.perf_counter() - started
                for ticket, result in zip(ready, results):
                    judgement = self._judge(ticket, result) \
                        if ticket.request.judge and not ticket.gone.is_set() else None
                    ticket.send("done", Rendered(result.audio, result.sample_rate, result.seed,
                                                 len(ready), seconds, judgement))
                self._batch_seconds = 0.7 * self._batch_seconds + 0.3 * seconds
        except Cancelled:
            log.info("a batch of %d stopped: every client went away", len(ready))
        except UserError as exc:
            for ticket in ready:
                ticket.send("error", (422, str(exc)))
        except Exception:
            log.exception("a batch of %d failed", len(ready))
            for ticket in ready:
                ticket.send("error", (500, "The server failed to render this request; the "
                                           "details are in its log file."))
        finally:
            self._release(len(tickets))

    def _judge(self, ticket: Ticket, result) -> dict:
        """The take's judgement, by judges this thread loads once and keeps."""
        from studio.serve.scores import judge_take
        from studio.service.judging import judges_for

        if self._judges is None:
            self._judges = judges_for(str(self.engine.device), self.asr_model)
        return judge_take(self._judges, ticket.request, ticket.voice, result.audio,
                          result.sample_rate)

    def _lexicon(self):
        """The data folder's pronunciations.json, read for each batch as the studio reads
        it for each render: an edit applies to the next request, no restart."""
        from studio.engine.lexicon import load_pronunciations

        return load_pronunciations(root=self.data_root)

    def _item(self, ticket: Ticket, lexicon):
        from studio.service.voices import read_prompt, synthesis_items

        request, voice = ticket.request, ticket.voice
        prompt = None
        if voice.prompt_path is not None:
            prompt = read_prompt(self.engine, voice.prompt_path)
        elif request.ref_audio is not None:
            if request.clean:
                self._clean(ticket)
            key = prompt_key(request)
            prompt = self._prompts.get(key)
            if prompt is None:  # decoded here, once admitted: a refused request paid no decode
                prompt = self.engine.create_prompt(read_ref_audio(request.ref_audio),
                                                   request.ref_text)
                self._prompts[key] = prompt
                while len(self._prompts) > PROMPT_MEMO:
                    self._prompts.popitem(last=False)
            self._prompts.move_to_end(key)
        [item] = synthesis_items(request.text, [request.seed], language=request.language,
                                 instruct=voice.instruct, prompt=prompt, speed=request.speed,
                                 lexicon=lexicon, saved=voice)
        return item

    def _clean(self, ticket: Ticket) -> None:
        """Clean the ticket's ref_audio (or find it cleaned before): from here on the
        request's clip is the cleaned file, which is encoded and which the voice judge
        compares with; its ref_key stays the sent clip's (prompt_key adds the steps)."""
        request = ticket.request
        sent = request.ref_audio
        made = self.cleaner.clean_bytes(sent, lambda: read_ref_audio(sent), request.clean)
        request.ref_audio = made.path.read_bytes()
        ticket.cleanup = made.report
        log.info("ref_audio %s: %s (%s)", request.ref_key[:12], made.report.summary(),
                 "reused" if made.reused else "cleaned")
