"""Optional auto-transcription of reference clips with Whisper (transformers' ASR pipeline).

Only ever used when the caller asks for it: an empty transcript never loads a
multi-gigabyte model behind the user's back.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from studio.errors import UserError

log = logging.getLogger(__name__)

DEFAULT_ASR_MODEL = "openai/whisper-large-v3-turbo"
KNOWN_SIZES = {DEFAULT_ASR_MODEL: "about 1.6 GB", "openai/whisper-tiny": "about 150 MB",
               "openai/whisper-base": "about 290 MB", "openai/whisper-small": "about 970 MB"}


def asr_size(model: str) -> str:
    return KNOWN_SIZES.get(model, "a large download")


def asr_source(model: str) -> str | None:
    """What to load the ASR model from: a folder as is, the studio's own download of a
    repo id, or the repo id when the hub cache holds it; None when it is not on this
    computer (the studio asks before downloading it)."""
    path = Path(model).expanduser()
    if path.exists() or model.startswith((".", "/", "~")) or model.count("/") != 1:
        return model
    from studio.engine.hub_download import downloaded_folder

    own = downloaded_folder(model)
    if own is not None:
        return str(own)
    from huggingface_hub import snapshot_download

    try:
        snapshot_download(model, local_files_only=True)
    except Exception:  # LocalEntryNotFoundError, or a cache it cannot read: not here
        return None
    return model


def not_downloaded(model: str) -> str:
    return (f"Transcribing needs the speech recognition model {model} ({asr_size(model)}), "
            "which is not on this computer; press Transcribe to download it, or type the "
            "transcript of the reference clip.")


class Transcriber:
    """Loads the ASR pipeline on first use and keeps it for later clips."""

    def __init__(self, model: str = DEFAULT_ASR_MODEL, device: str = "cpu"):
        self.model = model
        self.device = device
        self._pipe = None

    def _load(self):
        import torch
        from transformers import pipeline

        source = asr_source(self.model)
        if source is None:  # never a silent download of gigabytes: the window asks first
            raise UserError(not_downloaded(self.model))
        dtype = torch.float16 if str(self.device).startswith("cuda") else torch.float32
        try:
            return pipeline("automatic-speech-recognition", model=source, dtype=dtype,
                            device=self.device)
        except Exception as exc:
            log.info("loading ASR model %s failed: %r", self.model, exc)
            raise UserError(
                f"The speech recognition model {self.model} could not be loaded; type the "
                "transcript of the reference clip instead, or pick another transcription "
                "model in Settings (the log file in the data folder has the details)."
            ) from None

    def __call__(self, wave: np.ndarray, sample_rate: int) -> str:
        if self._pipe is None:
            self._pipe = self._load()
        result = self._pipe({"array": np.squeeze(wave), "sampling_rate": sample_rate})
        return result["text"].strip()

    def words(self, wave: np.ndarray, sample_rate: int, language: str | None = None
              ) -> list[tuple[str, float | None, float | None]]:
        """The transcript as (word, start s, end s), for the take judges' word diff."""
        if self._pipe is None:
            self._pipe = self._load()
        kwargs = {"language": language} if language else {}
        result = self._pipe({"array": np.squeeze(wave), "sampling_rate": sample_rate},
                            return_timestamps="word", generate_kwargs=kwargs)
        return [(c["text"].strip(), *c["timestamp"]) for c in result.get("chunks", [])]


def whisper_covers(language: str | None) -> bool:
    """Whether Whisper knows the language id (None: it detects the language itself)."""
    if language is None:
        return True
    from transformers.models.whisper.tokenization_whisper import LANGUAGES

    return language.lower() in LANGUAGES
