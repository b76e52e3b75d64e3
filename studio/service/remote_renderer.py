"""A render sent to a speech server instead of the engine (the window's remote path).

A RenderRequest becomes one server call per take (servers render one take a call)
and per part between pause tags: the silence of a ``[pause]`` is put in here, and
the pronunciation dictionary applies before the text leaves, so a remote take says
the same words as a local one. A setting the server cannot take is said once, as a
warning. No Qt, so it is tested against real servers without threads.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from studio.errors import UserError
from studio.remote.client import DEFAULT_TIMEOUT_S

SEED_RANGE = 2**31  # a take always records the seed it was asked for
PIECE_S = 0.25  # streamed audio goes to the player in pieces at least this long


@dataclass(frozen=True)
class BackendConfig:
    """Settings → Backend: Remote. ``dialect`` None: detected from the server;
    ``timeout``: the deadline for each answer, from connecting to its last byte."""

    url: str
    api_key: str | None = None
    dialect: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S


@dataclass
class RemoteRender:
    """One remote take, shaped like an engine render (audio, sample_rate, seed)."""

    audio: np.ndarray
    sample_rate: int
    seed: int
    model: str | None
    dialect: str
    reported: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Voice:
    """What identifies the voice to a server: a design, or a clip and its transcript."""

    instruct: str | None = None
    clip: bytes | None = None
    clip_name: str = "reference.wav"
    transcript: str | None = None


def voice_of(request, saved=None, clip_path=None, transcribe: Callable | None = None) -> Voice:
    """The request's voice for a server: a saved voice's clip (``clip_path``) and
    transcript, a reference clip (transcribed locally when no transcript was typed),
    or a design."""
    if saved is not None:
        return Voice(request.instruct, clip_path.read_bytes(), clip_path.name, saved.transcript)
    if request.reference is None:
        return Voice(request.instruct)
    transcript = (request.ref_text or "").strip()
    if not transcript:
        if transcribe is None:
            raise UserError("A remote render needs the reference clip's transcript; type it "
                            "in the transcript box, or load a local model to transcribe it.")
        transcript = transcribe(request.reference)
    try:
        data = request.reference.read_bytes()
    except OSError as exc:
        raise UserError(f"The reference clip {request.reference} cannot be read "
                        f"({exc.strerror}).") from None
    return Voice(request.instruct, data, request.reference.name, transcript)


class RemoteRenderer:
    """One server, as Settings names it; ``backend`` is made lazily (no network yet)."""

    def __init__(self, config: BackendConfig):
        from studio.remote.client import RemoteBackend

        if not config.url.strip():
            raise UserError("Settings → Backend is set to a speech server but has no address; "
                            "type the server's address, or choose This computer.")
        self.config = config
        self.backend = RemoteBackend(config.url, config.api_key or None, config.dialect,
                                     config.timeout)

    def close(self) -> None:
        self.backend.close()

    def seeds(self, request) -> list[int]:
        return [s if s is not None else random.randrange(SEED_RANGE) for s in request.seeds]

    def render(self, request, voice: Voice, seed: int, *, lexicon=None,
               cancel: threading.Event | None = None,
               on_piece: Callable[[np.ndarray, int], None] | None = None,
               warn: Callable[[str], None] = lambda _s: None) -> RemoteRender:
        """One take of ``request`` in ``voice``; ``on_piece(samples, rate)`` as a stream
        arrives (silences included), when given."""
        from studio.engine.decode import Cancelled
        from studio.remote.client import RemoteCancelled
        from studio.remote.dialects import RemoteRequest
        from studio.service.remote import render_between_pauses

        decode = request.options.decode
        pieces: list[np.ndarray] = []

        def part(said: str):
            call = RemoteRequest(
                text=said, language=request.language, instruct=voice.instruct,
                ref_audio=voice.clip, ref_name=voice.clip_name, ref_text=voice.transcript,
                steps=decode.num_step, guidance=decode.guidance_scale, seed=seed,
                speed=request.speed, position_temperature=decode.position_temperature,
                class_temperature=decode.class_temperature, stream=on_piece is not None)
            try:
                return self.backend.render(call, on_chunk=on_piece, cancel=cancel)
            except RemoteCancelled:
                raise Cancelled() from None

        def silence(zeros: np.ndarray, rate: int) -> None:
            pieces.append(zeros)
            if on_piece is not None:
                on_piece(zeros, rate)

        result = render_between_pauses(request.text, request.language, lexicon,
                                       self.backend.url, part,
                                       lambda result: pieces.append(result.audio), silence)
        self._warn_ignored(request, result.dialect, warn)
        return RemoteRender(np.concatenate(pieces), result.sample_rate, seed, result.model,
                            result.dialect, result.reported)

    @staticmethod
    def _warn_ignored(request, dialect_name: str, warn) -> None:
        from studio.engine.options import DecodeOptions
        from studio.remote.dialects import dialect

        default = DecodeOptions()
        decode = request.options.decode
        ignored = dialect(dialect_name).ignores
        if ignored and (decode.position_temperature, decode.class_temperature) != (
                default.position_temperature, default.class_temperature):
            warn(f"{dialect_name} does not take the {' or the '.join(ignored)}; the server "
                 "used its own.")
        if request.duration is not None:
            warn("A remote server chooses the length itself; the target duration was not used.")


class Pieces:
    """Streamed samples gathered into pieces of at least ``PIECE_S`` for the player, as
    ``StreamChunk``s of item 0 whose count is not known (``chunks`` 0) until the end."""

    def __init__(self, send: Callable[[object], None]):
        self._send = send
        self._held: list[np.ndarray] = []
        self._index = 0
        self._start = 0
        self._rate = 0

    def add(self, samples: np.ndarray, rate: int) -> None:
        self._rate = rate
        self._held.append(samples)
        if sum(p.size for p in self._held) >= PIECE_S * rate:
            self._flush()

    def end(self) -> None:
        if self._held:
            self._flush()

    def _flush(self) -> None:
        from studio.engine.stream import StreamChunk

        audio = np.concatenate(self._held).astype(np.float32, copy=False)
        self._held = []
        self._send(StreamChunk(item=0, index=self._index, chunks=0, audio=audio,
                               start=self._start, sample_rate=self._rate))
        self._index += 1
        self._start += audio.size
