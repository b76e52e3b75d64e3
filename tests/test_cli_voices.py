"""`omnivoice-desktop voices ...` and `synth --voice` on the tiny random checkpoint.

In-process calls of ``studio.cli.main`` for the commands; the renders that must
show no hidden work run in a fresh interpreter with the work counted.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import soundfile as sf
from counted_cli import HEARD, counted_run

from tests.library.library_helpers import tampered_copy

FAST = ["--device", "cpu", "--precision", "fp32"]
SAME = ["--steps", "4", "--seed", "11", "--class-temperature", "0", "--position-temperature", "0"]
TEXT = "Something new in a saved voice."


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def clips(tmp_path, speech) -> dict[str, Path]:
    folder = tmp_path / "clips"
    folder.mkdir()
    made = {}
    for name, seconds in (("good", 3.0), ("short", 0.6), ("long", 31.0)):
        made[name] = folder / f"{name}.wav"
        sf.write(made[name], speech(seconds), 24000)
    made["text"] = folder / "notes.wav"
    made["text"].write_text("these are not sounds")
    return made


@pytest.fixture
def save(cli, tiny_checkpoint, clips):
    def run(name="Narrator", *extra, ref=None):
        return cli("voices", "save", name, "--ref", ref or clips["good"], "--model", tiny_checkpoint,
                   *FAST, *extra)

    return run


def one_json(lines: list[str]) -> dict:
    assert len(lines) == 1, lines
    return json.loads(lines[0])


def data() -> Path:
    return Path(os.environ["OMNIVOICE_DESKTOP_DATA_DIR"])


def library_state() -> tuple:
    """Rows and files of the library: what a refused command must leave as it was."""
    db = data() / "library.sqlite"
    rows = []
    if db.is_file():
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT id, name, transcript, tags FROM voices ORDER BY id").fetchall()
    files = sorted(str(p.relative_to(data())) for p in (data() / "voices").rglob("*")) \
        if (data() / "voices").is_dir() else []
    return rows, files


def assert_refused(result, *fragments) -> None:
    code, out, err = result
    assert code == 2, (code, err)
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert not any("Traceback" in line for line in err)
    for fragment in fragments:
        assert fragment in err[0], (fragment, err[0])


def test_save_then_list(save, cli):
    code, out, err = save("Narrator", "--ref-text", "Hello there.", "--tags", "calm, story",
                          "--lang", "English", "--json")
    assert code == 0, err
    saved = one_json(out)
    assert saved["name"] == "Narrator" and saved["transcript"] == "Hello there."
    assert saved["prompt_source"] == "encoded" and saved["encodes"] == 1

    code, out, _ = cli("voices", "list", "--json")
    [voice] = one_json(out)["voices"]
    assert voice["name"] == "Narrator" and voice["language"] == "en"
    assert voice["tags"] == ["calm", "story"] and voice["clip_seconds"] == pytest.approx(3.0)

    code, out, _ = cli("voices", "list")
    assert code == 0 and out[0].split() == ["NAME", "LANGUAGE", "CLIP", "TAGS", "CREATED"]
    assert out[1].startswith("Narrator") and "calm, story" in out[1]


def test_list_of_an_empty_library_says_how_to_save(cli):
    code, out, _ = cli("voices", "list")
    assert code == 0 and out == [
        "No saved voices yet; save one with `omnivoice-desktop voices save NAME --ref CLIP`."]


def test_saving_keeps_the_automatic_transcript_and_encodes_through_the_cache(
        tiny_checkpoint, clips, tmp_path):
    """A clip saved without a transcript is transcribed once; the saved voice keeps it and
    renders in a new process from disk, with no encode and no transcription."""
    home = tmp_path / "shared-data"
    saved, calls = counted_run(["voices", "save", "Auto", "--ref", str(clips["good"]),
                                "--model", str(tiny_checkpoint), *FAST, "--json"], home, tmp_path)
    assert calls == {"asr": 1, "encodes": 1}
    assert saved["transcript"].startswith(HEARD) and saved["transcriptions"] == 1
    assert len(list((home / "prompt_cache").glob("*.pt"))) == 1  # the encode went to the cache

    rendered, calls = counted_run(["synth", "--voice", "auto", "--model", str(tiny_checkpoint),
                                   *FAST, *SAME, "--text", TEXT, "--json",
                                   "--out", str(tmp_path / "a.wav")], home, tmp_path)
    assert rendered["prompt_source"] == "disk"
    assert (rendered["encodes"], rendered["transcriptions"]) == (0, 0)
    assert calls == {"asr": 0, "encodes": 0}


def test_export_delete_import_renders_the_same_samples(save, cli, tiny_checkpoint, tmp_path):
    assert save("Narrator", "--ref-text", "Hello there.")[0] == 0

    def render(out: Path):
        code, _, err = cli("synth", "--voice", "Narrator", "--model", tiny_checkpoint, *FAST, *SAME,
                           "--text", TEXT, "--out", out)
        assert code == 0, err
        return sf.read(out)[0]

    before = render(tmp_path / "before.wav")
    bundle = tmp_path / "narrator.ovoice"
    assert cli("voices", "export", "narrator", bundle)[0] == 0
    assert cli("voices", "delete", "NARRATOR")[0] == 0
    assert_refused(cli("synth", "--voice", "Narrator", "--model", tiny_checkpoint, *FAST,
                       "--text", TEXT, "--out", tmp_path / "gone.wav"), "No saved voice is named")
    code, out, err = cli("voices", "import", bundle, "--json")
    assert code == 0, err
    assert one_json(out)["name"] == "Narrator"
    after = render(tmp_path / "after.wav")
    assert before.shape == after.shape and (before == after).all()


def test_a_locked_language_and_seed_fill_in_for_the_command_line(save, cli, tiny_checkpoint,
                                                                  tmp_path):
    from studio.library.voices import VoiceLibrary

    assert save("Narrator", "--ref-text", "Hello there.", "--lang", "de")[0] == 0
    with VoiceLibrary() as library:
        library.update(library.find("narrator").id, seed=1234)
    code, out, err = cli("synth", "--voice", "Narrator", "--model", tiny_checkpoint, *FAST,
                         "--steps", "2", "--text", TEXT, "--out", tmp_path / "a.wav", "--json")
    assert code == 0, err
    assert one_json(out)["seed"] == 1234


def test_names_clash_ignoring_case_and_import_suggests_rename(save, cli, tmp_path):
    assert save("Narrator", "--ref-text", "Hello.")[0] == 0
    before = library_state()
    assert_refused(save("narrator", "--ref-text", "Hello."), "A voice named 'narrator' already exists")
    bundle = tmp_path / "n.ovoice"
    assert cli("voices", "export", "Narrator", bundle)[0] == 0
    assert_refused(cli("voices", "import", bundle), "--rename")
    assert library_state() == before
    code, out, _ = cli("voices", "import", bundle, "--rename", "Narrator copy", "--json")
    assert code == 0 and one_json(out)["name"] == "Narrator copy"
    assert_refused(cli("voices", "import", bundle, "--rename", "NARRATOR COPY"), "already in the library")


@pytest.mark.parametrize("clip, says", [
    ("short", "0.6 s long, too short for a voice"),
    ("long", "31.0 s long, too long for a voice"),
    ("text", "is not audio that can be read"),
])
def test_a_clip_a_voice_cannot_use_is_one_sentence_and_writes_nothing(save, clips, clip, says):
    assert save("Keep", "--ref-text", "Hello.")[0] == 0
    before = library_state()
    assert_refused(save("New", "--ref-text", "Hello.", ref=clips[clip]), says)
    assert library_state() == before


def _truncated(bundle: Path, out: Path) -> Path:
    data = bundle.read_bytes()
    out.write_bytes(data[: len(data) // 2])
    return out


@pytest.mark.parametrize("damage, says", [
    (_truncated, "damaged"),
    (tampered_copy, "cannot be imported"),
])
def test_a_damaged_bundle_is_one_sentence_and_the_library_is_intact(save, cli, tmp_path, damage,
                                                                    says):
    assert save("Narrator", "--ref-text", "Hello.")[0] == 0
    bundle = tmp_path / "n.ovoice"
    assert cli("voices", "export", "Narrator", bundle)[0] == 0
    assert cli("voices", "delete", "Narrator")[0] == 0
    assert save("Other", "--ref-text", "Hi.")[0] == 0
    before = library_state()
    assert_refused(cli("voices", "import", damage(bundle, tmp_path / "bad.ovoice")), says)
    assert library_state() == before


def test_synth_takes_one_voice_source_only(cli, tiny_checkpoint, clips, tmp_path):
    assert_refused(cli("synth", "--voice", "A", "--ref", clips["good"], "--model", tiny_checkpoint,
                       "--text", TEXT, "--out", tmp_path / "a.wav"), "Give one of --voice")


def test_unknown_voice_for_export_and_delete(cli, tmp_path):
    assert_refused(cli("voices", "export", "Nobody", tmp_path / "n.ovoice"), "No saved voice")
    assert_refused(cli("voices", "delete", "Nobody"), "No saved voice")
    assert not (tmp_path / "n.ovoice").exists()


def _with_manifest(source: Path, dest: Path, **changes) -> Path:
    """A copy of the bundle ``source`` whose manifest has ``changes``."""
    import zipfile

    with zipfile.ZipFile(source) as archive:
        files = {info.filename: archive.read(info) for info in archive.infolist()}
    manifest = json.loads(files["manifest.json"])
    manifest.update(changes)
    files["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(dest, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return dest


def _unsafe(text: str) -> list[str]:
    """Characters a terminal acts on or hides: controls (C0, DEL, C1) and format ones."""
    import unicodedata

    return [c for c in text if unicodedata.category(c) in ("Cc", "Cf")]


def test_an_imported_bundle_cannot_reach_the_terminal_with_control_characters(save, cli, tmp_path):
    assert save("Narrator", "--ref-text", "Hello.")[0] == 0
    bundle = tmp_path / "n.ovoice"
    assert cli("voices", "export", "Narrator", bundle)[0] == 0
    evil = _with_manifest(bundle, tmp_path / "evil.ovoice",
                          name="Evil\x1b]0;owned\x07\x00Name\u202e",
                          tags=["calm\x1b[31m", "\u202eevil\x9b2J", "\x00"],
                          language="en\x1b[2J")
    code, out, err = cli("voices", "import", evil)
    assert code == 0, err
    assert not _unsafe("".join(out + err)), out + err

    code, out, err = cli("voices", "list")
    assert code == 0 and not _unsafe("".join(out)), out
    assert "Evil ]0;owned Name" in out[1] and "calm [31m, evil 2J" in out[1]
    # the name as shown names the voice: export and delete work from the command line
    assert cli("voices", "export", "Evil ]0;owned Name", tmp_path / "again.ovoice")[0] == 0
    assert cli("voices", "delete", "evil ]0;OWNED name")[0] == 0


def test_a_name_given_on_the_command_line_is_cleaned_the_same_way(save, cli, tmp_path):
    assert save("Bell\x07 Ringer", "--ref-text", "Hello.", "--tags", "loud\x1b[5m")[0] == 0
    code, out, _ = cli("voices", "list", "--json")
    [voice] = one_json(out)["voices"]
    assert (voice["name"], voice["tags"]) == ("Bell Ringer", ["loud [5m"])
    bundle = tmp_path / "b.ovoice"
    assert cli("voices", "export", "Bell Ringer", bundle)[0] == 0
    assert_refused(cli("voices", "import", bundle, "--rename", "\x1b\x07"), "name is empty")
    code, out, err = cli("voices", "import", bundle, "--rename", "Copy\x1b[2J")
    assert code == 0 and not _unsafe("".join(out + err)), out + err
    assert cli("voices", "delete", "Copy [2J")[0] == 0


def test_a_name_stored_before_names_were_cleaned_is_shown_clean_and_can_be_named(save, cli):
    assert save("Old", "--ref-text", "Hello.")[0] == 0
    raw = "Old\x00Name\x1b[31m"
    with sqlite3.connect(data() / "library.sqlite") as conn:  # as an earlier import stored it
        conn.execute("UPDATE voices SET name = ?, name_key = ?, tags = ?",
                     (raw, raw.casefold(), json.dumps(["calm\x07"])))
    code, out, _ = cli("voices", "list")
    assert code == 0 and not _unsafe("".join(out)) and out[1].startswith("Old Name [31m")
    assert "calm" in out[1]
    assert cli("voices", "delete", "old name [31m")[0] == 0
    assert cli("voices", "list")[1][0].startswith("No saved voices")


def test_exporting_a_voice_onto_its_own_clip_is_refused_and_the_voice_kept(save, cli, tmp_path):
    """Issue 26: an output that resolves to an input (here a link to the voice's clip,
    which the atomic write would write through) is one sentence and nothing is written."""
    assert save("Narrator", "--ref-text", "Hello there.")[0] == 0
    clip = next((data() / "voices").rglob("*.wav"))
    kept = clip.read_bytes()
    link = tmp_path / "narrator.ovoice"
    link.symlink_to(clip)
    assert_refused(cli("voices", "export", "narrator", link), "is the voice's reference clip")
    assert clip.read_bytes() == kept
