"""Helpers for the library tests: prompts and clips built without a model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf
import torch

from studio.engine.prompt import VoicePrompt
from studio.library.voices import VoiceLibrary


def make_prompt(seed: int = 0, codebooks: int = 8, text: str = "Hello.") -> VoicePrompt:
    generator = torch.Generator().manual_seed(seed)
    return VoicePrompt(torch.randint(0, 1024, (codebooks, 50), generator=generator), text, 0.05)


def write_clip(path: Path, seconds: float = 0.5, seed: int = 0) -> Path:
    audio = (0.1 * np.random.default_rng(seed).standard_normal(int(24000 * seconds))).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, audio, 24000)
    return path


def one_sentence(message: str) -> bool:
    """One sentence: no line break, ends with a full stop, no full stop inside."""
    return "\n" not in message and message.endswith(".") and ". " not in message


def snapshot(lib: VoiceLibrary) -> tuple[list, list[str]]:
    """What a refused operation must leave unchanged: the voices and every path under voices/."""
    files = sorted(str(p.relative_to(lib.voices_dir)) for p in lib.voices_dir.rglob("*"))
    return lib.list(), files


def tampered_copy(bundle: Path, out: Path) -> Path:
    """The bundle with one byte of its clip changed: the checksum it lists no longer holds."""
    import zipfile

    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.startswith("clip."):
                data = data[:-1] + bytes([data[-1] ^ 0xFF])
            target.writestr(info, data)
    return out
