"""Voice prompts: an encoded reference clip with its transcript and loudness.

Files use the reference's format v1 (a plain dict saved with ``torch.save``), so
a prompt saved here loads in ``omnivoice.VoiceClonePrompt`` and the other way
round. Loading is always ``weights_only=True``: a file carrying code is refused
without running it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch

from studio.atomic import atomic_write
from studio.engine.errors import UserError

FORMAT_VERSION = 1


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
    def load(cls, path: str | os.PathLike, codebooks: int | None = None) -> VoicePrompt:
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
        return cls.from_dict(data, str(source), codebooks)

    @classmethod
    def from_dict(cls, data: object, name: str, codebooks: int | None = None) -> VoicePrompt:
        if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION:
            version = data.get("format_version") if isinstance(data, dict) else None
            raise UserError(
                f"{name} is not a voice prompt of format version {FORMAT_VERSION} "
                f"(found {version!r}); create it again from the reference clip."
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
        return cls(tokens=tokens.to(torch.long), text=text, rms=float(rms))
