"""The take library: persistence, search and filters, soft delete, retention,
read-only access, integrity, and refusals in one sentence."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
import soundfile as sf
from library_helpers import make_prompt, one_sentence, write_clip
from takes_helpers import RATE, RUN, add, make_settings, tone

from studio.errors import UserError
from studio.library.db import DB_FILE, MIGRATIONS, Database
from studio.library.take_record import MAX_TAKE_NAME_CHARS
from studio.library.takes import ReadOnlyLibrary, TakeLibrary, TakeNotFound
from studio.library.voices import VoiceLibrary


@pytest.fixture
def lib(tmp_path):
    library = TakeLibrary(tmp_path / "data")
    yield library
    library.close()


def test_takes_persist_across_a_reopen_with_their_snapshot_and_audio(tmp_path):
    folder = tmp_path / "data"
    audio = tone(1.5, seed=3)
    with TakeLibrary(folder) as lib:
        first = add(lib, "First take.", seed=3, audio=audio, suspects=("too-quiet",), asr_cer=0.125)
        lib.rename(first.id, "Keeper")
        lib.set_notes(first.id, "warm, slightly fast")
        lib.set_starred(first.id, True)
        add(lib, "Second take.", seed=4)
        before = lib.list()
    with TakeLibrary(folder) as lib:  # a new library object: what a restart sees
        after = lib.list()
        assert after == before and len(after) == 2
        take = lib.get(first.id)
        assert (take.name, take.notes, take.starred) == ("Keeper", "warm, slightly fast", True)
        assert take.settings == make_settings("First take.", 3) and take.run == RUN
        assert take.suspects == ("too-quiet",) and take.asr_cer == 0.125
        assert take.audio_path == folder.absolute() / "takes" / f"{take.id}.flac"
        assert take.audio_seconds == pytest.approx(1.5) and take.sample_rate == RATE
        assert take.loudness_lufs is not None and -40 < take.loudness_lufs < -5
        wave, rate = lib.read_audio(take.id)
        assert rate == RATE and wave.dtype == np.float32
        assert np.abs(wave - audio).max() < 1e-6  # 24-bit FLAC
        assert lib.check_integrity() == []
    with sqlite3.connect(folder / DB_FILE) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_list_is_newest_first_and_filters_by_search_voice_starred_and_deleted(lib):
    a = add(lib, "Bonjour le Monde", seed=1, voice_id="a" * 32)
    b = add(lib, "Good morning", seed=2, reference="/clips/ref.wav", sha="f" * 64)
    c = add(lib, "Good night", seed=3)
    lib.rename(b.id, "Morning CALL")
    lib.set_notes(c.id, "use for the ÉPILOGUE")
    lib.set_starred(a.id, True)
    ids = lambda takes: [t.id for t in takes]  # noqa: E731
    assert ids(lib.list()) == [c.id, b.id, a.id]
    assert ids(lib.list("monde")) == [a.id]
    assert ids(lib.list("good")) == [c.id, b.id]
    assert ids(lib.list("call morning")) == [b.id]  # every word, in text or name
    assert ids(lib.list("épilogue")) == [c.id]  # notes, case folded beyond ASCII
    assert ids(lib.list("good monde")) == []
    assert ids(lib.list(voice="a" * 32)) == [a.id]
    assert ids(lib.list(voice="ref:" + "f" * 64)) == [b.id]
    assert ids(lib.list(voice="design")) == [c.id]
    assert ids(lib.list(starred=True)) == [a.id]
    assert ids(lib.list(starred=False)) == [c.id, b.id]
    lib.delete([c.id])
    assert ids(lib.list()) == [b.id, a.id]
    assert ids(lib.list(include_deleted=True)) == [c.id, b.id, a.id]
    assert lib.get(c.id).deleted


def test_voices_name_saved_voices_clips_and_design(tmp_path):
    folder = tmp_path / "data"
    with VoiceLibrary(folder) as voices, TakeLibrary(folder) as lib:
        voice = voices.create("Narrator", write_clip(tmp_path / "v.wav"), make_prompt())
        add(lib, seed=1, voice_id=voice.id)
        add(lib, seed=2, reference="/a/ref.wav", sha="1" * 64)
        add(lib, seed=3, reference="/b/ref.wav", sha="2" * 64)
        add(lib, seed=4)
        hidden = add(lib, seed=5, reference="/c/gone.wav", sha="3" * 64)
        lib.delete([hidden.id])
        assert lib.voices() == [
            ("design", "Voice design"),
            ("ref:" + "2" * 64, "ref.wav · 222222"),
            ("ref:" + "1" * 64, "ref.wav · 111111"),
            (voice.id, "Narrator"),
        ]
        voices.rename(voice.id, "Storyteller")  # the label follows the voice library
        assert (voice.id, "Storyteller") in lib.voices()
        voices.delete(voice.id)
        assert (voice.id, "Narrator") in lib.voices()  # the name it had when the take was made


def test_soft_delete_undelete_and_purge(lib):
    a, b = add(lib, seed=1), add(lib, seed=2)
    lib.delete([a.id, b.id])
    assert lib.list() == []
    lib.undelete([a.id])
    assert [t.id for t in lib.list()] == [a.id]
    assert lib.purge_deleted() == 1
    assert not b.audio_path.exists() and a.audio_path.exists()
    with pytest.raises(TakeNotFound):
        lib.get(b.id)
    assert lib.check_integrity() == []


def test_prune_removes_old_unstarred_takes_and_never_starred_ones(lib):
    old, kept_starred = add(lib, seed=1), add(lib, seed=2)
    lib.set_starred(kept_starred.id, True)
    later = datetime.now(timezone.utc) + timedelta(days=10)
    assert lib.prune(0, now=later) == 0  # 0 keeps everything
    assert lib.prune(30, now=later) == 0  # not old enough
    fresh_then = add(lib, seed=3)
    lib.delete([kept_starred.id])  # deleted but starred: still never pruned
    assert lib.prune(9.5, now=later) == 2  # old and fresh_then are both over 9.5 days old then
    assert {t.id for t in lib.list(include_deleted=True)} == {kept_starred.id}
    assert not old.audio_path.exists() and not fresh_then.audio_path.exists()
    assert kept_starred.audio_path.exists()


def test_read_only_library_sees_takes_and_refuses_every_write(tmp_path):
    folder = tmp_path / "data"
    with TakeLibrary(folder) as writer, TakeLibrary(folder, read_only=True) as reader:
        take = add(writer, seed=1)
        assert [t.id for t in reader.list()] == [take.id]
        assert np.array_equal(reader.read_audio(take.id)[0], writer.read_audio(take.id)[0])
        writes = [
            lambda: add(reader, seed=2),
            lambda: reader.set_starred(take.id, True),
            lambda: reader.rename(take.id, "x"),
            lambda: reader.set_notes(take.id, "x"),
            lambda: reader.delete([take.id]),
            lambda: reader.undelete([take.id]),
            lambda: reader.purge_deleted(),
            lambda: reader.prune(1),
        ]
        for write in writes:
            with pytest.raises(ReadOnlyLibrary):
                write()
        assert reader.list() == writer.list() and not reader.get(take.id).starred


def test_bad_input_is_refused_with_one_sentence_and_changes_nothing(lib):
    take = add(lib, seed=1)
    before = lib.list()
    for call in (
        lambda: lib.get("0" * 32),
        lambda: lib.get("../../etc/passwd"),
        lambda: lib.rename(take.id, "   "),
        lambda: lib.rename(take.id, "x" * (MAX_TAKE_NAME_CHARS + 1)),
        lambda: lib.set_notes(take.id, "n" * 10_001),
        lambda: lib.delete([take.id, "f" * 32]),
        lambda: lib.set_starred("nope", True),
        lambda: lib.add(make_settings(), RUN, np.zeros(0, np.float32), RATE, batch="b"),
    ):
        with pytest.raises(UserError) as info:
            call()
        assert one_sentence(str(info.value)), str(info.value)
    assert lib.list() == before
    assert isinstance(pytest.raises(TakeNotFound, lib.get, "0" * 32).value, UserError)
    assert lib.rename(take.id, "  two   words ").name == "two words"


def test_audio_is_clipped_and_cleaned_before_it_is_stored(lib):
    wild = np.array([0.5, 2.0, -3.0, np.nan, np.inf] * 2000, dtype=np.float32)
    take = lib.add(make_settings(), RUN, wild, RATE, batch="b")
    wave, _ = lib.read_audio(take.id)
    assert np.isfinite(wave).all() and np.abs(wave).max() <= 1.0
    assert wave[1] == pytest.approx(1.0, abs=1e-6) and wave[3] == 0.0


def test_integrity_check_reports_missing_and_damaged_audio(lib):
    a, b, c = add(lib, seed=1), add(lib, seed=2), add(lib, seed=3)
    assert lib.check_integrity() == []
    a.audio_path.unlink()
    data = b.audio_path.read_bytes()
    b.audio_path.write_bytes(data[: len(data) // 2])
    problems = lib.check_integrity()
    assert len(problems) == 2 and all(one_sentence(p) for p in problems)
    assert a.id in problems[0] + problems[1] and b.id in problems[0] + problems[1]
    with pytest.raises(UserError, match="missing or damaged"):
        lib.read_audio(a.id)
    assert sf.info(c.audio_path).frames == round(c.audio_seconds * RATE)


def test_opening_a_writer_deletes_temp_files_and_moves_audio_without_a_row_aside(tmp_path):
    folder = tmp_path / "data"
    with TakeLibrary(folder) as lib:
        take = add(lib, seed=1)
    takes = folder / "takes"
    temp = takes / f".{take.id}.flac.0123456789ab.tmp"
    orphan = takes / f"{'e' * 32}.flac"  # a complete take whose row was lost (power loss)
    temp.write_bytes(b"partial")
    orphan.write_bytes(take.audio_path.read_bytes())
    with TakeLibrary(folder, read_only=True):
        assert temp.exists() and orphan.exists()  # readers never sweep
    with TakeLibrary(folder) as lib:
        assert not temp.exists() and not orphan.exists()
        recovered = takes / "recovered" / orphan.name  # kept, never deleted
        assert recovered.read_bytes() == take.audio_path.read_bytes()
        assert take.audio_path.exists() and lib.check_integrity() == []
        assert [t.id for t in lib.list()] == [take.id]
    with TakeLibrary(folder):  # the next sweep leaves the recovered folder alone
        assert recovered.exists()


def test_a_second_writer_leaves_young_files_of_a_live_writer_alone(tmp_path):
    folder = tmp_path / "data"
    with TakeLibrary(folder):
        in_flight = folder / "takes" / f".{'a' * 32}.flac.0123456789ab.tmp"
        in_flight.write_bytes(b"being written")
        with TakeLibrary(folder):
            assert in_flight.exists()
    with TakeLibrary(folder):  # alone again: now it goes
        assert not in_flight.exists()


def test_a_read_only_library_before_the_writer_is_empty_and_creates_nothing(tmp_path):
    folder = tmp_path / "data"
    with TakeLibrary(folder, read_only=True) as reader:
        assert reader.list() == [] and reader.voices() == [] and reader.check_integrity() == []
        assert not folder.exists()
        with TakeLibrary(folder) as writer:  # the worker's writer creates the library
            take = add(writer, seed=1)
        assert [t.id for t in reader.list()] == [take.id]  # the next reload sees it
        assert [key for key, _ in reader.voices()] == ["design"]


def test_a_read_only_library_of_an_older_schema_is_empty_until_the_writer_upgrades(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    with Database(folder / DB_FILE, MIGRATIONS[:1]):  # a library from before takes existed
        pass
    with TakeLibrary(folder, read_only=True) as reader:
        assert reader.list() == [] and reader.voices() == []
        with Database(folder / DB_FILE) as db:
            assert db.schema_version == len(MIGRATIONS)  # the reader did not upgrade it
        with TakeLibrary(folder) as writer:
            take = add(writer, seed=1)
        assert [t.id for t in reader.list()] == [take.id]


def test_a_failed_writer_open_closes_its_database_and_releases_the_writer_lock(tmp_path, monkeypatch):
    fcntl = pytest.importorskip("fcntl")
    folder = tmp_path / "data"
    closed = []
    real_close = Database.close
    monkeypatch.setattr(Database, "close", lambda db: (closed.append(db), real_close(db)))

    def broken_sweep(self, alone):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(TakeLibrary, "_sweep", broken_sweep)
    with pytest.raises(UserError, match="cannot be locked or read") as info:
        TakeLibrary(folder)
    assert one_sentence(str(info.value)) and len(closed) == 1
    fd = os.open(folder / "takes" / ".writers", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody holds the lock any more
    finally:
        os.close(fd)


def test_a_take_added_while_another_writer_holds_the_lock_says_busy(lib):
    lib._db._conn.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(lib._db.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(UserError, match="is busy") as info:
            add(lib, seed=1)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert one_sentence(str(info.value))
    assert not list(lib.takes_dir.glob("*.flac"))  # the audio went with the failed save
