"""Where a clone's voice prompt comes from: the prompt cache, or a fresh encode.

:class:`PromptSource` is what the CLI and the studio's worker call with a
reference clip. It keys the request by content (see :mod:`prompt_cache`),
answers from memory or disk when it can, and otherwise encodes the clip (and
transcribes it when no transcript was given) and stores the result. A
transcript-less request keys on the auto-transcription marker, so a known voice
skips both the encode and the ASR pass: the stored transcript is reused.

Like the Engine it wraps, a PromptSource belongs to one thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from pathlib import Path

import numpy as np

from studio.engine import audio as audio_ops
from studio.engine.engine import Engine, Warn, long_reference_note
from studio.engine.file_hashes import HASHES_FILE, FileHasher
from studio.engine.prompt import VoicePrompt
from studio.engine.prompt_cache import PromptCache, codec_identity, prompt_key, waveform_sha256
from studio.engine.text import check_code_points, is_blank
from studio.errors import UserError

log = logging.getLogger(__name__)

Reference = str | Path | tuple[np.ndarray, int]
Transcribe = Callable[[np.ndarray, int], str]


class PromptSource:
    """Voice prompts for one engine, through a cache.

    ``hasher`` memoises file hashes; by default it keeps its memo beside the
    cache's files (in memory only when the disk layer is off).
    ``transcriber_factory`` makes the ASR callable on the first clip that needs
    one (so Whisper is never loaded for a cache hit); without it, ``asr_model``
    names the Whisper model for a :class:`~studio.engine.asr.Transcriber`; with
    neither, a clip without a transcript is a UserError. ``keep_keys`` names the
    keys pruning must spare (the saved voices', e.g. ``VoiceLibrary.cache_keys``);
    if it fails, nothing is pruned that time.

    ``encodes`` and ``transcriptions`` count the work actually done.
    """

    def __init__(
        self,
        engine: Engine,
        cache: PromptCache,
        hasher: FileHasher | None = None,
        transcriber_factory: Callable[[], Transcribe] | None = None,
        keep_keys: Callable[[], Collection[str]] | None = None,
        asr_model: str | None = None,
    ):
        if hasher is None:
            hasher = FileHasher(cache.folder / HASHES_FILE if cache.folder is not None else None)
        if transcriber_factory is None and asr_model:
            transcriber_factory = _whisper(asr_model, str(engine.device))
        self.engine = engine
        self.cache = cache
        self.hasher = hasher
        self.transcriber_factory = transcriber_factory
        self.keep_keys = keep_keys
        self.encodes = 0
        self.transcriptions = 0
        self._transcriber: Transcribe | None = None
        self._codec_identity: str | None = None

    # -- keys --------------------------------------------------------------------

    def codec_identity(self) -> str:
        """Computed once per source: the engine's codec cannot change under it."""
        if self._codec_identity is None:
            self._codec_identity = codec_identity(
                self.engine.info.root / "audio_tokenizer", self.hasher, content=self.cache.enabled
            )
        return self._codec_identity

    def audio_sha256(self, reference: Reference) -> str:
        if not isinstance(reference, (str, Path)):
            waveform, rate = reference
            return waveform_sha256(waveform, rate)
        path = Path(reference)
        try:
            return self.hasher.file_sha256(path)
        except FileNotFoundError:
            raise UserError(f"The reference clip {path} does not exist.") from None
        except IsADirectoryError:
            raise UserError(f"The reference clip {path} is a folder; pass an audio file.") from None
        except OSError as exc:
            raise UserError(
                f"The reference clip {path} cannot be read ({exc.strerror or exc})."
            ) from None

    def key_for(self, reference: Reference, ref_text: str | None, preprocess: bool) -> str:
        """The cache key of a request (the studio stores it as ``Voice.cache_key``)."""
        return prompt_key(
            self.audio_sha256(reference), _transcript(ref_text), preprocess, self.codec_identity()
        )

    # -- prompts -----------------------------------------------------------------

    def obtain(
        self,
        reference: Reference,
        ref_text: str | None = None,
        preprocess: bool = True,
        warn: Warn | None = None,
    ) -> tuple[VoicePrompt, str]:
        """The prompt for a clip, and its source: ``"memory"``, ``"disk"`` or ``"encoded"``."""
        text = _transcript(ref_text)
        key = self.key_for(reference, text, preprocess)
        spec = self.engine.info.audio
        hit = self.cache.lookup(key, codebooks=spec.codebooks, codebook_size=spec.mask_id)
        if hit is not None:
            prompt, source = hit
            note = long_reference_note(prompt.tokens.shape[-1] / self.engine.info.frame_rate)
            if note and warn is not None:
                warn(note)
            return prompt, source
        transcribe = self._transcribe if text is None and self.transcriber_factory else None
        prompt = self.engine.create_prompt(
            reference, text, preprocess=preprocess, transcribe=transcribe, warn=warn
        )
        self.encodes += 1
        keep, prune = self._keep()
        self.cache.store(key, prompt, auto_transcript=text is None, keep=keep, prune=prune)
        return prompt, "encoded"

    def transcribe_file(self, reference: str | Path) -> str:
        """The ASR transcript of a clip (the studio's "transcribe" button); no cache."""
        rate = self.engine.sample_rate
        wave = audio_ops.load_reference(reference, rate)
        if self.transcriber_factory is None:
            raise UserError("Auto-transcription is not set up; type the transcript of the clip.")
        return self._transcribe(wave, rate)

    def transcribe_audio(self, wave: np.ndarray, sample_rate: int) -> str:
        """The ASR transcript of a waveform (the takes' ASR check); no cache."""
        if self.transcriber_factory is None:
            raise UserError("Auto-transcription is not set up; pick a transcription model in Settings.")
        return self._transcribe(wave, sample_rate)

    def transcribe_words(self, wave: np.ndarray, sample_rate: int, language: str | None = None
                         ) -> list[tuple[str, float | None, float | None]]:
        """The transcript as (word, start s, end s) with the same ASR model (the takes' ASR
        check and the words judge share one pass); a transcriber that gives no word
        times gives its words without them."""
        if self.transcriber_factory is None:
            raise UserError("Auto-transcription is not set up; pick a transcription model in Settings.")
        if self._transcriber is None:
            self._transcriber = self.transcriber_factory()
        self.transcriptions += 1
        words = getattr(self._transcriber, "words", None)
        if words is not None:
            return list(words(wave, sample_rate, language))
        return [(w, None, None) for w in self._transcriber(wave, sample_rate).split()]

    def _transcribe(self, wave: np.ndarray, sample_rate: int) -> str:
        if self._transcriber is None:
            self._transcriber = self.transcriber_factory()
        self.transcriptions += 1
        return self._transcriber(wave, sample_rate)

    def _keep(self) -> tuple[Collection[str], bool]:
        if self.keep_keys is None:
            return (), True
        try:
            return set(self.keep_keys()), True
        except Exception as exc:  # never prune blind
            log.warning("the saved voices' cache keys cannot be read (%r); not pruning the "
                        "prompt cache this time", exc)
            return (), False


def _whisper(model: str, device: str) -> Callable[[], Transcribe]:
    def make() -> Transcribe:
        from studio.engine.asr import Transcriber

        return Transcriber(model, device)

    return make


def _transcript(ref_text: str | None) -> str | None:
    """None (auto-transcription) for a missing or blank transcript, as the engine treats it;
    checked first, since the cache key hashes it."""
    if ref_text is None:
        return None
    check_code_points(ref_text, "transcript")
    return None if is_blank(ref_text) else ref_text


__all__ = ["PromptSource"]
