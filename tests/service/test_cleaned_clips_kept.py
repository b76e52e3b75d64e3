"""Cleaned reference clips are pruned to the newest few, but never one a take still renders
from (issue 28's new-user review: a take made from a pruned cleaned clip could not be
rendered again). A cleaned clip that is gone anyway (deleted by hand, or by an older
version) is named in one sentence that says how to make it again."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from studio.errors import UserError
from studio.judges.cleanup import TRIM, CleanupReport
from studio.library.takes import TakeLibrary
from studio.service import cleanup
from studio.service.cleanup import cleaned_clip, default_folder
from studio.service.snapshot import request_from_take
from studio.sound.files import write_audio_atomic
from tests.views.take_fixtures import add

RATE = 24000


class Halver:
    """Stands in for the real cleaner (tested in tests/judges): halves the clip."""

    def clean(self, audio, rate, steps, progress=None):
        mono = audio.mean(axis=0) if audio.ndim == 2 else audio  # channels first
        return mono * 0.5, CleanupReport(tuple(steps), rate)


@pytest.fixture
def sources(tmp_path):
    paths = []
    for i in range(6):
        t = np.arange(RATE) / RATE
        path = tmp_path / f"clip{i}.wav"
        write_audio_atomic(path, (0.3 * np.sin(2 * np.pi * (150 + 20 * i) * t)).astype(
            np.float32), RATE)
        paths.append(path)
    return paths


def clean(source: Path, age: int) -> Path:
    made = cleaned_clip(source, (TRIM,), Halver()).path
    os.utime(made, ns=(age * 10**9, age * 10**9))  # older ones first
    return made


def test_a_cleaned_clip_a_take_renders_from_is_never_pruned(sources, monkeypatch):
    used, restorable, loose, loose2 = (clean(s, i + 1) for i, s in enumerate(sources[:4]))
    monkeypatch.setattr(cleanup, "KEEP", 1)
    assert all(p.parent == default_folder() for p in (used, restorable, loose, loose2))
    with TakeLibrary() as library:
        take = add(library, "From a cleaned clip.", mode="clone", reference=str(used))
        deleted = add(library, "Deleted, not purged.", mode="clone", reference=str(restorable))
        library.delete(deleted.id)  # Ctrl+Z can still bring it back

        newest = clean(sources[4], 100)  # prunes to the newest one, and what takes use
        left = {p.name for p in default_folder().glob("*.wav")}
        assert left == {used.name, restorable.name, newest.name}
        assert not loose.with_suffix(".json").exists()
        assert request_from_take(library.get(take.id)).reference == used

        library.purge_deleted()  # gone for good: its clip may go too
        clean(sources[5], 200)
        assert not restorable.exists() and used.exists()


def test_a_cleaned_clip_gone_anyway_says_how_to_make_it_again(sources):
    made = clean(sources[0], 1)
    with TakeLibrary() as library:
        take = add(library, "From a cleaned clip.", mode="clone", reference=str(made))
        made.unlink()
        with pytest.raises(UserError) as failed:
            request_from_take(library.get(take.id))
    said = str(failed.value)
    assert said.count(". ") == 0 and said.endswith(".")  # one sentence
    assert "cleaned copy" in said and "same steps" in said, said


def test_an_unreadable_take_library_prunes_nothing(sources, monkeypatch):
    monkeypatch.setattr(cleanup, "KEEP", 1)
    first = clean(sources[0], 1)
    monkeypatch.setattr(cleanup, "clips_in_use", lambda root: None)  # could not be read
    clean(sources[1], 2)
    assert first.exists()
