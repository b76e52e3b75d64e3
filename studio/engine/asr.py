"""Optional auto-transcription of reference clips with Whisper (transformers' ASR pipeline).

Only ever used when the caller asks for it: an empty transcript never loads a
multi-gigabyte model behind the user's back.
"""

from __future__ import annotations

import logging

import numpy as np

from studio.engine.errors import UserError

log = logging.getLogger(__name__)

DEFAULT_ASR_MODEL = "openai/whisper-large-v3-turbo"


class Transcriber:
    """Loads the ASR pipeline on first use and keeps it for later clips."""

    def __init__(self, model: str = DEFAULT_ASR_MODEL, device: str = "cpu"):
        self.model = model
        self.device = device
        self._pipe = None

    def _load(self):
        import torch
        from transformers import pipeline

        dtype = torch.float16 if str(self.device).startswith("cuda") else torch.float32
        try:
            return pipeline("automatic-speech-recognition", model=self.model, dtype=dtype,
                            device=self.device)
        except Exception as exc:
            log.info("loading ASR model %s failed: %r", self.model, exc)
            raise UserError(
                f"Auto-transcription needs the ASR model {self.model}, which could not be loaded "
                f"({type(exc).__name__}); type the transcript of the reference clip instead."
            ) from None

    def __call__(self, wave: np.ndarray, sample_rate: int) -> str:
        if self._pipe is None:
            self._pipe = self._load()
        result = self._pipe({"array": np.squeeze(wave), "sampling_rate": sample_rate})
        return result["text"].strip()
