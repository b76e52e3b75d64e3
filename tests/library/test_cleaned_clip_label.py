"""A take rendered from a cleaned clip is labelled by the clip it was cleaned from
("noisy.wav, cleaned"), the same in every session and place: the cards and details
(voice_text), the voice filter (voices()) and the session's unsaved takes; never by the
cleaned file's hash or its modification time (which each reuse refreshes)."""

from __future__ import annotations

import dataclasses
import json
import os

from library_helpers import write_clip
from takes_helpers import add

from studio.judges.cleanup import TRIM, CleanupReport
from studio.library.session_takes import SessionTakes, new_unsaved_id
from studio.library.takes import TakeLibrary
from studio.paths import data_dir
from studio.service.cleanup import cleaned_clip
from studio.views.takes_model import voice_text


class FakeCleaner:
    """Cleans by leaving the clip as it is (the label is what is tested, not the cleaning)."""

    def clean(self, audio, rate, steps, progress=None):
        return audio.reshape(-1), CleanupReport(steps=steps, sample_rate=rate, trimmed_start=0,
                                    trimmed_end=0)


def test_takes_of_a_cleaned_clip_are_labelled_by_the_source_in_every_session(tmp_path):
    source = write_clip(tmp_path / "noisy.wav", 1.0, 0)
    folder = data_dir() / "cleaned_clips"
    made = cleaned_clip(source, (TRIM,), FakeCleaner(), folder)
    clip = str(made.path)
    with TakeLibrary(data_dir()) as lib:
        add(lib, "Rendered from the cleaned clip.", reference=clip, sha="c1ea")
    with TakeLibrary(data_dir(), read_only=True) as reader:
        take = reader.list()[0]
        assert voice_text(take) == "noisy.wav, cleaned"
        assert [label for _key, label in reader.voices()] == ["noisy.wav, cleaned"]
    # A later session reuses the clip, which refreshes its time: the label stays.
    os.utime(made.path, (1_000_000_000, 1_000_000_000))
    assert cleaned_clip(source, (TRIM,), FakeCleaner(), folder).reused
    with TakeLibrary(data_dir(), read_only=True) as reader:
        assert voice_text(reader.list()[0]) == "noisy.wav, cleaned"
        assert reader.get(take.id).clip_label == "noisy.wav, cleaned"


def test_a_clip_cleaned_before_sources_were_named_is_named_when_next_reused(tmp_path):
    source = write_clip(tmp_path / "noisy.wav", 1.0, 0)
    folder = data_dir() / "cleaned_clips"
    made = cleaned_clip(source, (TRIM,), FakeCleaner(), folder)
    side = made.path.with_suffix(".json")
    old = {k: v for k, v in json.loads(side.read_text()).items() if k != "source_name"}
    side.write_text(json.dumps(old))  # as an earlier version wrote it
    with TakeLibrary(data_dir()) as lib:
        add(lib, "Rendered before.", reference=str(made.path), sha="c1ea")
        assert lib.list()[0].clip_label == "A cleaned clip"  # not known yet: never the time
    again = cleaned_clip(source, (TRIM,), FakeCleaner(), folder)
    assert again.reused and again.report == made.report
    with TakeLibrary(data_dir(), read_only=True) as reader:
        assert voice_text(reader.list()[0]) == "noisy.wav, cleaned"
        assert [label for _key, label in reader.voices()] == ["noisy.wav, cleaned"]


def test_an_unsaved_take_of_a_cleaned_clip_has_the_same_label(tmp_path):
    source = write_clip(tmp_path / "noisy.wav", 1.0, 0)
    made = cleaned_clip(source, (TRIM,), FakeCleaner(), data_dir() / "cleaned_clips")
    with TakeLibrary(data_dir()) as lib:
        saved = add(lib, "A take.", reference=str(made.path), sha="c1ea")
    session = SessionTakes()
    unsaved = session.add(dataclasses.replace(saved, id=new_unsaved_id(), clip_label=None),
                          [0.0], 24000)
    assert voice_text(unsaved) == "noisy.wav, cleaned"
    assert [label for _key, label in session.voices()] == ["noisy.wav, cleaned"]
