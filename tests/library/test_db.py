"""The library database: pragmas, schema version, migrations."""

from __future__ import annotations

import sqlite3

import pytest

from studio.errors import UserError
from studio.library.db import DB_FILE, MIGRATIONS, Database, split_statements
from studio.paths import data_dir

V2 = "CREATE TABLE future (id TEXT PRIMARY KEY, voice_id TEXT REFERENCES voices(id) ON DELETE CASCADE);"


def test_opens_in_the_data_folder_with_wal_foreign_keys_and_the_latest_schema():
    with Database.open_in() as db:
        assert db.path == data_dir() / DB_FILE and db.path.is_file()
        assert db.schema_version == db.latest_version == len(MIGRATIONS) >= 1
        assert db.query("PRAGMA journal_mode")[0][0] == "wal"
        assert db.query("PRAGMA foreign_keys")[0][0] == 1
        assert db.query("SELECT name FROM sqlite_master WHERE name = 'voices'")


def test_migrations_are_idempotent(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path) as db:
        assert db.migrate() == 0  # already at the latest version
    with Database(path) as db:  # opening again applies nothing and keeps the data
        assert db.schema_version == len(MIGRATIONS)
        assert db.migrate() == 0


def test_a_new_migration_is_one_more_script_applied_once_in_order(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path) as db:
        with db.transaction() as conn:
            conn.execute(
                "INSERT INTO voices (id, name, name_key, transcript, created, updated, clip) "
                "VALUES ('a', 'A', 'a', '', 't', 't', 'clip.wav')"
            )
    with Database(path, (*MIGRATIONS, V2)) as db:
        assert db.schema_version == len(MIGRATIONS) + 1
        assert db.migrate() == 0
        with db.transaction() as conn:
            conn.execute("INSERT INTO future VALUES ('t1', 'a')")
            conn.execute("DELETE FROM voices WHERE id = 'a'")
        assert db.query("SELECT count(*) FROM future")[0][0] == 0  # foreign keys are enforced
    with Database(path, (*MIGRATIONS, V2)) as db:
        assert db.schema_version == len(MIGRATIONS) + 1


def test_a_failing_migration_rolls_back_to_the_previous_version(tmp_path):
    path = tmp_path / DB_FILE
    broken = "CREATE TABLE half (x); CREATE TABLE voices (x);"  # the second statement fails
    with pytest.raises(UserError, match=f"cannot be upgraded to schema version {len(MIGRATIONS) + 1}"):
        Database(path, (*MIGRATIONS, broken))
    with Database(path) as db:
        assert db.schema_version == len(MIGRATIONS)
        assert not db.query("SELECT name FROM sqlite_master WHERE name = 'half'")


def test_a_newer_schema_is_refused_with_one_sentence(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path, (*MIGRATIONS, V2)):
        pass
    with pytest.raises(UserError, match="newer version of OmniVoice Desktop") as info:
        Database(path)
    assert str(info.value).endswith("update the app.")


def test_a_damaged_file_is_refused_with_one_sentence(tmp_path):
    path = tmp_path / DB_FILE
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(UserError, match="damaged or not a database"):
        Database(path)


def test_transactions_roll_back_on_error_and_do_not_nest(tmp_path):
    with Database(tmp_path / DB_FILE) as db:
        with pytest.raises(ZeroDivisionError), db.transaction() as conn:
            conn.execute(
                "INSERT INTO voices (id, name, name_key, transcript, created, updated, clip) "
                "VALUES ('a', 'A', 'a', '', 't', 't', 'clip.wav')"
            )
            1 / 0  # noqa: B018
        assert db.query("SELECT count(*) FROM voices")[0][0] == 0
        with pytest.raises(RuntimeError), db.transaction(), db.transaction():
            pass


def test_the_connection_belongs_to_the_opening_thread(tmp_path):
    import threading

    errors = []
    with Database(tmp_path / DB_FILE) as db:
        thread = threading.Thread(target=lambda: errors.append(_try(db)))
        thread.start()
        thread.join()
    assert isinstance(errors[0], sqlite3.ProgrammingError)


def _try(db):
    try:
        db.query("SELECT 1")
    except Exception as exc:
        return exc
    return None


def test_split_statements_keeps_semicolons_in_strings_and_triggers():
    script = """
    -- a comment
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET x = 'c;d'; END;
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].endswith("END;")
    with pytest.raises(ValueError):
        split_statements("CREATE TABLE t (x TEXT DEFAULT 'open")


def _raw(path, **kw):
    return sqlite3.connect(path, isolation_level=None, **kw)


def test_the_writer_commits_with_synchronous_full(tmp_path):
    with Database(tmp_path / DB_FILE) as db:
        assert db.query("PRAGMA synchronous")[0][0] == 2  # FULL: a returned commit is on disk


def test_a_reader_of_a_missing_file_sees_an_empty_library_until_the_writer_makes_it(tmp_path):
    path = tmp_path / "data" / DB_FILE
    with Database(path, read_only=True) as reader:
        assert not reader.available and reader.query("SELECT * FROM voices") == []
        assert not path.parent.exists()  # a reader creates nothing
        with pytest.raises(RuntimeError):
            reader.migrate()
        with pytest.raises(RuntimeError), reader.transaction():
            pass
        with Database(path) as writer, writer.transaction() as conn:
            conn.execute("INSERT INTO voices (id, name, name_key, transcript, created, updated, clip)"
                         " VALUES ('a', 'A', 'a', '', 't', 't', 'clip.wav')")
        assert [row["id"] for row in reader.query("SELECT id FROM voices")] == ["a"]
        assert reader.available


def test_a_reader_never_upgrades_an_older_schema_and_waits_for_the_writer(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path, MIGRATIONS[:1]):
        pass
    with Database(path, read_only=True) as reader:
        assert not reader.available and reader.query("SELECT * FROM takes") == []
        with _raw(path) as raw:
            assert raw.execute("PRAGMA user_version").fetchone()[0] == 1  # untouched
        with Database(path):  # the writer upgrades it
            pass
        assert reader.query("SELECT count(*) FROM takes")[0][0] == 0 and reader.available


def test_a_reader_never_writes_changes_the_journal_mode_or_takes_the_write_lock(tmp_path):
    path = tmp_path / DB_FILE
    raw = _raw(path)  # a library at the newest schema, left in rollback-journal mode
    for script in MIGRATIONS:
        raw.executescript(script)
    raw.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    with Database(path, read_only=True) as reader:
        assert reader.available and reader.query("SELECT count(*) FROM voices")[0][0] == 0
        raw.execute("BEGIN IMMEDIATE")  # the write lock is free while the reader is open
        raw.execute("ROLLBACK")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    raw.close()


def test_a_reader_refuses_a_newer_schema_with_one_sentence(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path, (*MIGRATIONS, V2)):
        pass
    with pytest.raises(UserError, match="newer version of OmniVoice Desktop") as info:
        Database(path, read_only=True)
    assert str(info.value).endswith("update the app.") and "\n" not in str(info.value)


def test_a_busy_library_is_reported_as_busy_not_damaged(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path):
        pass
    other = _raw(path)
    other.execute("BEGIN IMMEDIATE")  # another instance in the middle of a write
    try:
        with pytest.raises(UserError) as info:
            Database(path, timeout=0.05)
    finally:
        other.execute("ROLLBACK")
        other.close()
    message = str(info.value)
    assert "is busy" in message and "damaged" not in message and "move it" not in message
    assert message.endswith("try again in a moment.") and "\n" not in message
    with Database(path) as db:  # once the other writer is done, it opens
        assert db.schema_version == len(MIGRATIONS)


def test_a_reader_that_cannot_switch_to_the_file_yet_stays_empty_instead_of_failing(tmp_path):
    path = tmp_path / DB_FILE
    with Database(path, read_only=True) as reader:
        other = _raw(path)  # a writer still creating the file, in rollback-journal mode
        other.execute("PRAGMA user_version = 0")
        other.execute("BEGIN EXCLUSIVE")
        try:
            reader._timeout = 0.05
            assert reader.query("SELECT * FROM voices") == [] and not reader.available
        finally:
            other.execute("ROLLBACK")
            other.close()


def test_a_newer_library_is_refused_without_being_touched(tmp_path):
    """Issue 16: the refusal came after the file was switched to WAL and side files made."""
    import sqlite3

    path = tmp_path / "library.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE future (x)")
        conn.execute("PRAGMA user_version = 99")
    before = (path.read_bytes(), sorted(p.name for p in tmp_path.iterdir()))
    with pytest.raises(UserError) as refused:
        Database(path)
    assert "made by a newer version" in str(refused.value)
    assert (path.read_bytes(), sorted(p.name for p in tmp_path.iterdir())) == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
