"""The prompt cache through the command line: ``synth --ref`` across processes, the
opt-out switch, and ``cache info|clear``.

The two-process case runs the real interpreter twice on one data folder, with
its work counted (see counted_cli).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
import soundfile as sf
import torch
from counted_cli import HEARD, counted_run

FAST = ["--device", "cpu", "--precision", "fp32", "--steps", "2"]
TEXT = "Hello there, this is a short test."


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def clip(tmp_path, speech) -> Path:
    path = tmp_path / "clips" / "voice.wav"
    path.parent.mkdir()
    sf.write(path, speech(3.0), 24000)
    os.utime(path, (1_600_000_000, 1_600_000_000))  # settled, so the hash memo keeps it
    return path


@pytest.fixture
def synth(cli, tiny_checkpoint, tmp_path):
    """``synth(*args)`` -> the --json summary of a successful render."""

    def run(*args):
        out = tmp_path / "speech.wav"
        code, lines, err = cli("synth", *FAST, "--model", tiny_checkpoint, "--text", TEXT,
                               "--out", out, "--json", *args)
        assert code == 0, err
        assert len(lines) == 1, lines
        return json.loads(lines[0])

    return run


def cache_folder() -> Path:
    return Path(os.environ["OMNIVOICE_DESKTOP_DATA_DIR"]) / "prompt_cache"


def entries() -> list[Path]:
    return sorted(cache_folder().glob("*.pt"))


# ---------------------------------------------------------------------------
# Two real processes
# ---------------------------------------------------------------------------


def test_second_process_reads_the_disk_and_does_no_work(tiny_checkpoint, clip, tmp_path):
    data = tmp_path / "shared-data"
    args = ["synth", *FAST, "--model", str(tiny_checkpoint), "--text", TEXT, "--ref", str(clip),
            "--json", "--seed", "3"]  # no --ref-text: the first run transcribes

    first, calls = counted_run([*args, "--out", str(tmp_path / "first.wav")], data, tmp_path)
    assert first["prompt_source"] == "encoded"
    assert (first["encodes"], first["transcriptions"]) == (1, 1)
    assert calls == {"asr": 1, "encodes": 1}

    second, calls = counted_run([*args, "--out", str(tmp_path / "second.wav")], data, tmp_path)
    assert second["prompt_source"] == "disk"
    assert (second["encodes"], second["transcriptions"]) == (0, 0)
    assert calls == {"asr": 0, "encodes": 0}

    # Same voice, same seed: the same audio, from the stored tokens and transcript.
    a, _ = sf.read(tmp_path / "first.wav")
    b, _ = sf.read(tmp_path / "second.wav")
    assert a.shape == b.shape and (a == b).all()
    [entry] = (data / "prompt_cache").glob("*.pt")
    stored = torch.load(entry, weights_only=True)
    assert stored["ref_text"].startswith(HEARD) and stored["auto_transcript"] is True


# ---------------------------------------------------------------------------
# In-process synth
# ---------------------------------------------------------------------------


def test_repeat_and_renamed_copy_hit(synth, clip, tmp_path):
    first = synth("--ref", clip, "--ref-text", "The reference clip.")
    assert (first["prompt_source"], first["encodes"], first["transcriptions"]) == ("encoded", 1, 0)
    again = synth("--ref", clip, "--ref-text", "The reference clip.")
    assert (again["prompt_source"], again["encodes"], again["transcriptions"]) == ("disk", 0, 0)
    copy = shutil.copy2(clip, tmp_path / "another name.wav")
    assert synth("--ref", copy, "--ref-text", "The reference clip.")["prompt_source"] == "disk"
    other_text = synth("--ref", clip, "--ref-text", "Other words.")
    assert other_text["prompt_source"] == "encoded"
    assert len(entries()) == 2


def test_no_reference_reports_no_work(synth):
    summary = synth()
    assert (summary["prompt_source"], summary["encodes"], summary["transcriptions"]) == ("none", 0, 0)


def test_opt_out_keeps_nothing_on_disk(synth, clip, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_PROMPT_DISK_CACHE", "0")
    for _ in range(2):
        assert synth("--ref", clip, "--ref-text", "The reference clip.")["prompt_source"] == "encoded"
    assert not cache_folder().exists()


def test_bad_switch_is_one_sentence_before_the_model_loads(cli, tiny_checkpoint, clip, tmp_path,
                                                           monkeypatch):
    from studio.engine.engine import Engine

    def refuse(*args, **kwargs):
        raise AssertionError("the model was loaded before the switch was checked")

    monkeypatch.setattr(Engine, "load", refuse)
    monkeypatch.setenv("OMNIVOICE_PROMPT_DISK_CACHE", "sometimes")
    out = tmp_path / "speech.wav"
    code, lines, err = cli("synth", *FAST, "--model", tiny_checkpoint, "--text", TEXT,
                           "--ref", clip, "--ref-text", "Words.", "--out", out)
    assert code == 2 and len(err) == 1 and err[0].startswith("error: ")
    assert "OMNIVOICE_PROMPT_DISK_CACHE" in err[0] and "'sometimes'" in err[0]
    assert not out.exists()


def test_saved_voice_keys_without_a_library_creates_none():
    from studio.library.db import DB_FILE
    from studio.library.voices import saved_voice_cache_keys as _saved_voice_keys

    assert _saved_voice_keys() == set()
    assert not (Path(os.environ["OMNIVOICE_DESKTOP_DATA_DIR"]) / DB_FILE).exists()


def test_saved_voice_keys_from_the_library(tmp_path):
    from studio.engine.prompt import VoicePrompt
    from studio.library.voices import VoiceLibrary
    from studio.library.voices import saved_voice_cache_keys as _saved_voice_keys
    from studio.paths import data_dir

    clip = tmp_path / "clip.wav"
    sf.write(clip, [0.1, -0.1] * 2400, 24000)
    prompt = VoicePrompt(torch.zeros(8, 5, dtype=torch.long), "Hi.", 0.1)
    with VoiceLibrary(data_dir()) as library:
        library.create("Kept", clip, prompt, cache_key="ab" * 32)
    assert _saved_voice_keys() == {"ab" * 32}


# ---------------------------------------------------------------------------
# cache info | clear
# ---------------------------------------------------------------------------


def test_cache_info_and_clear(cli, synth, clip):
    code, lines, _ = cli("cache", "info", "--json")
    assert code == 0
    assert json.loads(lines[0]) == {"folder": str(cache_folder()), "enabled": True, "entries": 0,
                                    "bytes": 0, "disk_items": 32}

    synth("--ref", clip, "--ref-text", "The reference clip.")
    code, lines, _ = cli("cache", "info", "--json")
    info = json.loads(lines[0])
    assert info["entries"] == 1 and info["bytes"] == entries()[0].stat().st_size

    code, lines, err = cli("cache", "info")
    assert code == 0 and err == []
    assert lines[0] == f"Voice prompt cache: {cache_folder()}"
    assert "on" in lines[1] and "1 voice prompt " in lines[2]

    memo = cache_folder() / "hashes.sqlite"
    with contextlib.closing(sqlite3.connect(memo)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM file_hashes").fetchone()[0] >= 1

    code, lines, _ = cli("cache", "clear")
    assert code == 0 and lines == [f"Removed 1 cached voice prompt from {cache_folder()}."]
    assert entries() == []
    code, lines, _ = cli("cache", "clear", "--json")
    assert json.loads(lines[0]) == {"folder": str(cache_folder()), "removed": 0}
    # The hash memo forgot the clip too (it names the user's files).
    with contextlib.closing(sqlite3.connect(memo)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM file_hashes").fetchone() == (0,)


def test_cache_info_reports_the_opt_out(cli, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_PROMPT_DISK_CACHE", "off")
    code, lines, _ = cli("cache", "info", "--json")
    assert code == 0 and json.loads(lines[0])["enabled"] is False
    code, lines, _ = cli("cache", "info")
    assert "off" in lines[1]


def test_cache_needs_a_subcommand(cli):
    with pytest.raises(SystemExit) as exit_info:
        cli("cache")
    assert exit_info.value.code == 2


# ---------------------------------------------------------------------------
# A data folder or cache folder that is not what it should be (issue 16)
# ---------------------------------------------------------------------------


def _one_sentence(code, out, err) -> str:
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith("error: ") and "Traceback" not in err[0], err
    return err[0]


@pytest.mark.parametrize("command", [["cache", "info"], ["cache", "clear"], ["voices", "list"],
                                     ["selftest"]])
def test_a_data_folder_that_is_a_file_is_one_sentence(cli, tmp_path, monkeypatch, command):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(blocker))
    assert "is a file, not a folder" in _one_sentence(*cli(*command))
    assert blocker.read_text() == "a file where the data folder should be"


def test_a_cache_folder_that_is_a_file_is_said_by_the_cache_commands_and_skipped_by_synth(
        cli, synth, clip):
    cache_folder().parent.mkdir(parents=True, exist_ok=True)
    cache_folder().write_text("in the way")
    for command in (["cache", "info"], ["cache", "clear"]):
        assert "The prompt cache folder" in _one_sentence(*cli(*command))
    summary = synth("--ref", clip, "--ref-text", "Some words.")  # the cache only saves time
    assert summary["prompt_source"] == "encoded"
    assert cache_folder().read_text() == "in the way"


def test_an_entry_that_cannot_be_deleted_is_said_by_cache_clear(cli):
    cache_folder().mkdir(parents=True)
    (cache_folder() / ("a" * 64 + ".pt")).mkdir()  # a folder with an entry's name
    message = _one_sentence(*cli("cache", "clear"))
    assert message.startswith("error: 1 of 1 cached voice prompts in ")
