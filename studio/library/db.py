"""The library database: ``library.sqlite`` in the data folder (stdlib sqlite3).

Schema versions are ``PRAGMA user_version``. ``MIGRATIONS[n]`` is the SQL script
that takes the schema from version ``n`` to ``n + 1``; each one runs in its own
transaction together with the version bump, so a failure leaves the schema at
the previous version. Adding a migration is appending one script to the tuple;
never edit a script that has shipped.

Threading: a :class:`Database` belongs to the thread that opened it (sqlite3's
``check_same_thread`` enforces this), and that thread is the only writer of the
file. Another thread that needs to read opens its own ``Database`` on the same
file; WAL lets such readers run alongside the one writer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from studio.engine.errors import UserError
from studio.paths import data_dir

DB_FILE = "library.sqlite"

_V1_VOICES = """
CREATE TABLE voices (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,  -- the name folded for case-insensitive uniqueness
    transcript TEXT NOT NULL,
    instruct TEXT,
    seed INTEGER,
    tags TEXT NOT NULL DEFAULT '[]',  -- a JSON array of strings
    language TEXT,
    created TEXT NOT NULL,  -- ISO 8601, UTC, microseconds
    updated TEXT NOT NULL,
    clip TEXT NOT NULL,  -- the clip's file name inside voices/<id>/
    cache_key TEXT  -- the prompt cache's key for the reference, if any
);
CREATE INDEX voices_by_created ON voices (created);
"""

_V2_TAKES = """
CREATE TABLE takes (
    id TEXT PRIMARY KEY NOT NULL,  -- uuid4 hex, also the audio file's name: takes/<id>.flac
    created TEXT NOT NULL,  -- ISO 8601, UTC, microseconds
    name TEXT NOT NULL DEFAULT '',
    notes TEXT NOT NULL DEFAULT '',
    starred INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,  -- soft delete: restorable until purged
    batch TEXT NOT NULL,  -- shared by the takes of one render
    voice_key TEXT NOT NULL,  -- the voice filter: a voice id, 'ref:<sha256>' or 'design'
    voice_label TEXT NOT NULL,
    search_key TEXT NOT NULL,  -- text, name and notes folded for case-insensitive search
    settings TEXT NOT NULL,  -- JSON: how to render it again (TakeSettings)
    run TEXT NOT NULL,  -- JSON: how it was made (TakeRun)
    sample_rate INTEGER NOT NULL,
    frames INTEGER NOT NULL,
    loudness_lufs REAL,
    suspects TEXT NOT NULL DEFAULT '[]',  -- a JSON array of badge codes
    asr_cer REAL
);
CREATE INDEX takes_by_created ON takes (created);
CREATE INDEX takes_by_voice ON takes (voice_key);
"""

# Version n + 1 is MIGRATIONS[n]. Append; never edit or reorder.
MIGRATIONS: tuple[str, ...] = (_V1_VOICES, _V2_TAKES)


def split_statements(script: str) -> list[str]:
    """Split a SQL script into statements (a ``;`` inside a string or trigger stays)."""
    statements, pending = [], ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if _has_code(pending):
                statements.append(pending.strip())
            pending = ""
    if _has_code(pending):
        raise ValueError(f"incomplete SQL statement at the end of the script: {pending.strip()!r}")
    return statements


def _has_code(sql: str) -> bool:
    lines = (line.split("--", 1)[0] for line in sql.splitlines())
    return bool("".join(lines).strip(" \t;"))


class Database:
    """One connection to ``library.sqlite``, migrated to the newest schema on open."""

    def __init__(self, path: str | Path, migrations: Sequence[str] = MIGRATIONS):
        self.path = Path(path)
        self._migrations = tuple(migrations)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: no implicit transactions; ours are explicit.
            self._conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(
                f"The library database {self.path} cannot be opened ({exc}); "
                "check that the data folder exists and is writable."
            ) from None
        try:
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")  # durable enough with WAL
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise UserError(
                f"The library database {self.path} is damaged or not a database ({exc}); "
                "move it out of the data folder and restart to begin a new library."
            ) from None
        except BaseException:
            self._conn.close()
            raise

    @classmethod
    def open_in(cls, root: str | Path | None = None) -> Database:
        """Open ``library.sqlite`` in ``root`` (default: the data folder)."""
        return cls(Path(root if root is not None else data_dir()) / DB_FILE)

    # -- schema ---------------------------------------------------------------

    @property
    def latest_version(self) -> int:
        return len(self._migrations)

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> int:
        """Apply pending migrations, one transaction each; returns how many ran.

        Safe to call again (and from a second process at once): the version is
        read inside each write transaction, so no migration runs twice.
        """
        applied = 0
        while True:
            with self.transaction() as conn:
                version = self.schema_version
                if version > self.latest_version:
                    raise UserError(
                        f"The library database {self.path} was made by a newer version of "
                        "OmniVoice Desktop (schema "
                        f"{version}, this version knows {self.latest_version}); update the app."
                    )
                if version == self.latest_version:
                    return applied
                try:
                    for statement in split_statements(self._migrations[version]):
                        conn.execute(statement)
                    conn.execute(f"PRAGMA user_version = {version + 1}")
                except sqlite3.Error as exc:
                    raise UserError(
                        f"The library database {self.path} cannot be upgraded to schema "
                        f"version {version + 1} ({exc}); free some disk space and restart, "
                        "or report this as a bug."
                    ) from None
            applied += 1

    # -- access ---------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``with db.transaction() as conn:`` -- commits on success, rolls back on error.

        BEGIN IMMEDIATE takes the write lock at the start, so a read-then-write
        inside the block sees no other writer in between.
        """
        if self._conn.in_transaction:
            raise RuntimeError("library transactions do not nest")
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.rollback()
            raise
        self._conn.commit()

    def query(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        """Run a read and return every row."""
        return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
