"""Voice prompts: an encoded reference clip with its transcript and loudness.

Files use the reference's format v1 (a plain dict saved with ``torch.save``), so
a prompt saved here loads in ``omnivoice.VoiceClonePrompt`` and the other way
round. Loading is always ``weights_only=True``: a file carrying code is refused
without running it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from studio.atomic import atomic_write
from studio.engine.text import check_code_points
from studio.errors import UserError

FORMAT_VERSION = 1


TOKEN_DTYPES = frozenset({torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8})
MAX_PROMPT_FRAMES = 1500  # a minute at the codec's 25 frames a second
MAX_PROMPT_TEXT_CHARS = 10_000  # as a saved voice's transcript


@dataclass(frozen=True)
class VoicePrompt:
    tokens: torch.Tensor  # (C, T) int64 codec tokens of the reference clip
    text: str  # its transcript
    rms: float  # loudness of the original clip, used to match the output level

    def to_dict(self) -> dict:
        return {
            "format_version": FORMAT_VERSION,
            "ref_audio_tokens": self.tokens.detach().to("cpu", torch.long),
            "ref_text": self.text,
            "ref_rms": float(self.rms),
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically (a crash never leaves a half-written prompt)."""
        target = Path(path)
        if not target.parent.is_dir():
            raise UserError(f"Cannot save the voice prompt: the folder {target.parent} does not exist.")
        with atomic_write(target) as handle:
            torch.save(self.to_dict(), handle)

    @classmethod
    def load(cls, path: str | os.PathLike, codebooks: int | None = None,
             codebook_size: int | None = None) -> VoicePrompt:
        """Read a v1 prompt file; every way it can be wrong is one UserError sentence."""
        source = Path(path)
        if source.is_dir():
            raise UserError(f"{source} is a folder; pass a voice prompt file (.pt).")
        if not source.is_file():
            raise UserError(f"The voice prompt file {source} does not exist.")
        try:
            data = torch.load(source, map_location="cpu", weights_only=True)
        except Exception as exc:
            # Only a pickle that names code to import says "Unsupported global".
            unsafe = "Unsupported global" in str(exc)
            why = "it holds objects other than plain data" if unsafe else "it is damaged or not a prompt"
            raise UserError(
                f"The voice prompt file {source} cannot be loaded because {why}; "
                "create it again from the reference clip."
            ) from None
        return cls.from_dict(data, str(source), codebooks, codebook_size)

    @classmethod
    def from_dict(cls, data: object, name: str, codebooks: int | None = None,
                  codebook_size: int | None = None) -> VoicePrompt:
        """Check everything a render would trip on: dtype, shape and range of the tokens,
        a finite positive loudness, and bounded sizes (``codebook_size``: every token
        must be below it)."""
        version = data.get("format_version") if isinstance(data, dict) else None
        # An exact int: a tensor here compares elementwise (found by tests/test_fuzz.py).
        if type(version) is not int or version != FORMAT_VERSION:
            found = repr(version) if type(version) in (int, str) and len(repr(version)) < 40 \
                else type(version).__name__
            raise UserError(
                f"{name} is not a voice prompt of format version {FORMAT_VERSION} "
                f"(found {found}); create it again from the reference clip."
            )
        tokens, text, rms = data.get("ref_audio_tokens"), data.get("ref_text"), data.get("ref_rms")
        if (
            not isinstance(tokens, torch.Tensor)
            or tokens.dim() != 2
            or tokens.shape[1] == 0
            or tokens.dtype.is_floating_point
            or not isinstance(text, str)
            or not isinstance(rms, (int, float))
        ):
            raise UserError(f"{name} is an incomplete voice prompt; create it again from the reference clip.")
        if codebooks is not None and tokens.shape[0] != codebooks:
            raise UserError(
                f"{name} was made for a codec with {tokens.shape[0]} codebooks, but this model uses "
                f"{codebooks}; create it again with this model."
            )
        again = "create it again from the reference clip"
        if tokens.dtype not in TOKEN_DTYPES or tokens.layout != torch.strided:
            raise UserError(f"{name} holds tokens that are not whole numbers; {again}.")
        if tokens.shape[1] > MAX_PROMPT_FRAMES:
            raise UserError(f"{name} holds {tokens.shape[1]:,} frames of reference audio, more than "
                            f"the {MAX_PROMPT_FRAMES:,} (a minute) a prompt may hold; create it "
                            "again from a clip of 3 to 10 seconds.")
        low, high = int(tokens.min()), int(tokens.max())
        if low < 0 or (codebook_size is not None and high >= codebook_size):
            raise UserError(f"{name} holds tokens outside the codec's range ({low} to {high}); "
                            f"{again}.")
        if isinstance(rms, bool) or not (math.isfinite(rms) and 0 < rms <= 1):
            raise UserError(f"{name} has an invalid loudness value ({rms!r}); {again}.")
        if len(text) > MAX_PROMPT_TEXT_CHARS:
            raise UserError(f"{name} has a transcript of {len(text):,} characters, more than the "
                            f"{MAX_PROMPT_TEXT_CHARS:,} allowed; {again}.")
        check_code_points(text, "voice prompt's transcript")
        return cls(tokens=tokens.to(torch.long), text=text, rms=float(rms))
