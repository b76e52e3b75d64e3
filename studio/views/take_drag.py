"""The files a drag out of the takes list carries: WAV copies with readable names.

Never the library's own FLAC: a file manager may move what is dropped, and
``<uuid>.flac`` says nothing to anyone browsing the folder later.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTemporaryDir

from studio.views.takes_model import Row


def file_stem(name: str) -> str:
    """A take name as a file name every file manager accepts."""
    stem = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", name).replace("·", "-")
    stem = " ".join(stem.split()).strip(" .")
    return stem[:80] or "take"


class DragFiles:
    """Writes the dragged takes into a private temp folder, made at the first drag.

    Each drag gets its own subfolder, so a drop target still reading an earlier drag's
    files never sees them overwritten. The folder goes when this object does.
    ``audio_of``: a take's (audio, sample rate), or None when it cannot be read.
    """

    def __init__(self, audio_of: Callable[[object], tuple[np.ndarray, int] | None]):
        self._audio_of = audio_of
        self._dir: QTemporaryDir | None = None
        self._drags = 0

    def __call__(self, rows: list[Row]) -> list[Path]:
        from studio.sound.files import write_audio_atomic

        if self._dir is None:
            self._dir = QTemporaryDir()
        self._drags += 1
        folder = Path(self._dir.path()) / f"drag-{self._drags}"
        folder.mkdir(parents=True, exist_ok=True)
        paths: list[Path] = []
        for row in rows:
            audio = self._audio_of(row.take)
            if audio is None:
                continue
            path = folder / f"{file_stem(row.name)}.wav"
            n = 2
            while path in paths:
                path = folder / f"{file_stem(row.name)} ({n}).wav"
                n += 1
            write_audio_atomic(path, audio[0], audio[1])
            paths.append(path)
        return paths
