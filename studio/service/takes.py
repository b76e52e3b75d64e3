"""Keeping takes: the take library's one writer (opened lazily, on the thread that
renders: the window's worker, or ``script render``), each render's takes saved with
their badges and loudness, and the optional ASR round trip. No Qt, so it is tested
without threads.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from studio import __version__
from studio.errors import UserError
from studio.library.suspect import cer, inspect
from studio.library.take_record import TakeRun
from studio.library.takes import TakeLibrary
from studio.service.requests import RenderRequest
from studio.service.snapshot import settings_of

log = logging.getLogger(__name__)

Warn = Callable[[str], None]
UNEXPECTED = "An unexpected error stopped the save; the log file has the details."
Transcribe = Callable[[np.ndarray, int], str]


def take_run(model_source: str, device: str, precision: str, accel, seconds: float,
             audio_seconds: float) -> TakeRun:
    return TakeRun(
        model_source=model_source,
        device=device,
        precision=precision,
        accel_requested=accel.requested,
        accel_active=accel.active,
        fallback_reason=accel.reason,
        engine_version=__version__,
        seconds=seconds,
        rtf=seconds / audio_seconds if audio_seconds > 0 else 0.0,
    )


class TakeKeeper:
    """Owns the writer :class:`TakeLibrary` of one data folder; one thread uses it."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder  # None: the data folder, looked up when opening
        self._library: TakeLibrary | None = None
        self.asr_problem: str | None = None  # why the ASR check cannot run, once known

    def library(self) -> TakeLibrary:
        """The writer, opened on first use (a failed open is retried next time)."""
        if self._library is None:
            self._library = TakeLibrary(self.folder)
        return self._library

    def close(self) -> None:
        if self._library is not None:
            self._library.close()
            self._library = None

    def check_asr(self, text: str, renders: Sequence, transcribe: Transcribe | None,
                  warn: Warn) -> list[float | None]:
        """The character error rate of each rendering against ``text``; None where the
        ASR model is unavailable (said once per render in a warning)."""
        cers: list[float | None] = [None] * len(renders)
        if self.asr_problem is None and transcribe is None:
            self.asr_problem = "no transcription model is set up"
        if self.asr_problem is None:
            try:
                for i, r in enumerate(renders):
                    cers[i] = cer(text, transcribe(r.audio, r.sample_rate))
            except UserError as exc:
                self.asr_problem = str(exc).rstrip(".")
            except Exception as exc:  # an ASR failure must never cost the take
                log.exception("ASR check failed")
                self.asr_problem = f"the transcription model failed ({type(exc).__name__})"
        if self.asr_problem is not None:
            warn(f"The ASR check of the takes was skipped: {self.asr_problem}.")
        return cers

    def save(self, request: RenderRequest, renders: Sequence, run: TakeRun,
             reference_sha256: str | None, cers: Sequence[float | None],
             warn: Warn, batch: str | None = None) -> tuple[str, list[str | None]]:
        """Save every rendering as a take of one batch (``batch``, or a new one); returns
        the batch id and each take's id (None for one that could not be saved, with a
        warning)."""
        batch = batch or uuid.uuid4().hex
        ids: list[str | None] = [None] * len(renders)
        problem = None
        try:
            library = self.library()
        except UserError as exc:
            library, problem = None, str(exc)
        except Exception:  # the render's audio must still reach the user
            log.exception("opening the take library failed")
            library, problem = None, UNEXPECTED
        for i, r in enumerate(renders):
            if library is None:
                break
            try:
                take = library.add(
                    settings_of(request, r.seed, reference_sha256, request.voice_id),
                    run, r.audio, r.sample_rate, batch=batch,
                    suspects=inspect(r.audio, r.sample_rate), asr_cer=cers[i],
                )
                ids[i] = take.id
            except UserError as exc:
                problem = problem or str(exc)
            except Exception:
                log.exception("saving a take failed")
                problem = problem or UNEXPECTED
        lost = sum(take_id is None for take_id in ids)
        if lost:
            warn(f"{lost} of {len(ids)} takes were not saved to the take library; they stay in "
                 f"the takes list, marked Not saved, until the studio closes (export them to "
                 f"keep them): {problem}")
        return batch, ids
