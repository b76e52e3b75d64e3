"""The take library's reading API over clips held in memory (the mix and book exports
read takes through it), so export tests need no library on disk."""

from __future__ import annotations

from types import SimpleNamespace

RATE = 24000


class MemoryTakes:
    def __init__(self, folder, clips: dict):
        self.folder, self.clips = folder, clips

    def read_audio(self, take_id):
        return self.clips[take_id], RATE

    def get(self, take_id):
        return SimpleNamespace(settings=SimpleNamespace(seed=7))

    def audio_path(self, take_id):
        return self.folder / f"{take_id}.flac"
