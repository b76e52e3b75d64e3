"""Exporting takes: every format reads back, a sidecar holds the snapshot, nothing is
overwritten, and bad input writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile as sf
from library_helpers import one_sentence
from takes_helpers import RATE, add, tone

from studio.errors import UserError
from studio.library.export import export_formats, export_takes
from studio.library.takes import TakeLibrary, TakeNotFound


@pytest.fixture
def lib(tmp_path):
    library = TakeLibrary(tmp_path / "data")
    yield library
    library.close()


def test_wav_flac_ogg_always_and_mp3_where_libsndfile_has_it():
    assert export_formats()[:3] == ["WAV", "FLAC", "OGG"]
    assert ("MP3" in export_formats()) == ("MP3" in sf.available_formats())


@pytest.mark.parametrize("fmt", export_formats())
def test_every_format_reads_back_with_the_same_length_and_rate(lib, tmp_path, fmt):
    takes = [add(lib, "One.", seed=1, audio=tone(1.3, seed=1)), add(lib, "Two.", seed=2, audio=tone(0.7, seed=2))]
    lib.rename(takes[0].id, "Hero: take/1?")
    paths = export_takes(lib, [t.id for t in takes], tmp_path / "out", fmt)
    assert [p.suffix for p in paths] == [f".{fmt.lower()}"] * 2
    assert paths[0].name == f"Hero take 1.{fmt.lower()}"  # refused characters replaced
    for path, take in zip(paths, takes):
        audio, rate = sf.read(path, dtype="float32")
        assert rate == RATE and audio.shape == (round(take.audio_seconds * RATE),)
        side = json.loads(path.with_suffix(".json").read_text("utf-8"))
        assert side["id"] == take.id and side["audio_file"] == path.name
        assert side["settings"]["seed"] == take.settings.seed and side["run"]["device"] == "cpu"
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.endswith(".tmp")]


def test_export_never_overwrites_and_numbers_new_files(lib, tmp_path):
    take = add(lib, seed=1)
    first = export_takes(lib, [take.id], tmp_path, "wav")
    second = export_takes(lib, [take.id], tmp_path, "WAV")
    assert first[0] != second[0] and second[0].stem == f"{first[0].stem} (2)"
    assert second[0].with_suffix(".json").is_file()


def test_bad_format_or_unknown_take_writes_nothing(lib, tmp_path):
    take = add(lib, seed=1)
    out = tmp_path / "out"
    with pytest.raises(UserError) as info:
        export_takes(lib, [take.id], out, "aiff-ish")
    assert one_sentence(str(info.value))
    with pytest.raises(TakeNotFound):
        export_takes(lib, [take.id, "0" * 32], out, "FLAC")
    assert not out.exists()


def test_an_unnamed_take_is_named_by_its_first_words_or_the_chosen_name(lib, tmp_path):
    """Issue 25 (13): never take-…-seed1211874011.wav."""
    take = add(lib, "Good morning, and welcome to the first chapter of the book.", seed=1211874011)
    silent = add(lib, "   ", seed=3)
    paths = export_takes(lib, [take.id, silent.id], tmp_path, "wav")
    assert paths[0].name == "Good morning.wav"  # cut where the clause ends
    assert paths[1].name.startswith("take-") and "seed" not in paths[1].name
    chosen = export_takes(lib, [take.id], tmp_path, "wav", stems=["Intro: final/2"])
    assert chosen[0].name == "Intro final 2.wav"


def test_a_take_is_named_by_its_first_sentence_its_voice_and_its_place(lib):
    """Review 5 (9): "Chapter two. The rain had not.wav", the text cut mid-sentence."""
    from dataclasses import replace

    from studio.library.export import default_stem

    take = add(lib, "Chapter two. The rain had not stopped for three days.")
    assert default_stem(take) == "Chapter two"
    voiced = replace(take, voice_name="Margaret (elderly British)")
    assert default_stem(voiced, "take 2") == "Chapter two - Margaret (elderly British) - take 2"
    assert default_stem(add(lib, "The rain had not stopped for three whole days")) \
        == "The rain had not stopped"
    assert default_stem(replace(voiced, name="Opening")) == "Opening"  # a name wins


def test_without_sidecars_only_the_audio_is_written(lib, tmp_path):
    take = add(lib, "Just the audio.")
    paths = export_takes(lib, [take.id], tmp_path / "new" / "folder", "wav", sidecars=False)
    assert [p.name for p in (tmp_path / "new" / "folder").iterdir()] == ["Just the audio.wav"]
    assert paths == [tmp_path / "new" / "folder" / "Just the audio.wav"]


def test_a_folder_that_cannot_be_made_is_named_with_why_and_what_to_do(lib, tmp_path):
    """Review 8: "/proc/nope" gave "… ([Errno 2] No such file or directory: '/proc/nope');
    choose another folder or free some disk space": no word on why, a wrong way out."""
    take = add(lib, seed=1)
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file where a folder would go")
    with pytest.raises(UserError) as info:
        export_takes(lib, [take.id], blocker / "out", "WAV")
    said = str(info.value)
    assert said == (f"The folder {blocker / 'out'} cannot be made: {blocker} is a file, not a "
                    "folder; choose another folder.")
    assert one_sentence(said) and "Errno" not in said


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="Linux's /proc takes no folders")
def test_a_place_that_takes_no_folders_is_named(lib):
    take = add(lib, seed=1)
    with pytest.raises(UserError) as info:
        export_takes(lib, [take.id], Path("/proc/nope/deeper"), "WAV")
    assert str(info.value) == ("The folder /proc/nope/deeper cannot be made: /proc does not "
                               "take new folders; choose another folder.")
