"""The library database: ``library.sqlite`` in the data folder (stdlib sqlite3).

Schema versions are ``PRAGMA user_version``. ``MIGRATIONS[n]`` is the SQL script
that takes the schema from version ``n`` to ``n + 1``; each one runs in its own
transaction together with the version bump, so a failure leaves the schema at
the previous version. Adding a migration is appending one script to the tuple;
never edit a script that has shipped.

Threading: a :class:`Database` belongs to the thread that opened it (sqlite3's
``check_same_thread`` enforces this), and that thread is the only writer of the
file. Another thread that needs to read opens its own ``Database`` on the same
file with ``read_only=True``; WAL lets such readers run alongside the one writer.
A read-only ``Database`` opens the file with ``mode=ro``: it never creates,
migrates or changes it. While the file is missing or its schema is older than
this build's (the writer has not created or upgraded it yet), a reader sees an
empty library (an in-memory one at the newest schema) and looks at the file
again on every query, so it switches over once the writer is done.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from studio.errors import UserError
from studio.paths import data_dir

log = logging.getLogger(__name__)

DB_FILE = "library.sqlite"
BUSY_TIMEOUT_S = 10.0  # how long a connection waits for another writer's lock


def is_busy(exc: BaseException) -> bool:
    """Whether a sqlite error means another connection holds the lock (not damage)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def make_folder(path: Path, what: str) -> None:
    """Create a writer's ``what`` folder in the data folder; one sentence when it cannot."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"The {what} folder {path} cannot be created ({exc.strerror or exc}); "
                        "check that the data folder is writable.") from None


def busy_error(path: Path) -> UserError:
    return UserError(
        f"The library {path} is busy (another OmniVoice Desktop may be writing to it); "
        "try again in a moment."
    )


def database_error(path: Path, exc: sqlite3.DatabaseError) -> UserError:
    """The one sentence for a sqlite error while opening the library."""
    if is_busy(exc):
        return busy_error(path)
    return UserError(
        f"The library database {path} is damaged or not a database ({exc}); "
        "move it out of the data folder and restart to begin a new library."
    )

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

_V3_VOICE_USE = """
ALTER TABLE voices ADD COLUMN notes TEXT NOT NULL DEFAULT '';
ALTER TABLE voices ADD COLUMN last_used TEXT;  -- ISO 8601, UTC; NULL until a take uses it
ALTER TABLE voices ADD COLUMN use_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE voices ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;  -- restorable until purged
"""

_V4_TAKE_JUDGEMENTS = """
-- JSON: the take judges' verdicts (studio.service.judging); NULL until it is judged
ALTER TABLE takes ADD COLUMN judgements TEXT;
"""

# Version n + 1 is MIGRATIONS[n]. Append; never edit or reorder.
MIGRATIONS: tuple[str, ...] = (_V1_VOICES, _V2_TAKES, _V3_VOICE_USE, _V4_TAKE_JUDGEMENTS)


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
    """One connection to ``library.sqlite``, migrated to the newest schema on open
    (a ``read_only`` one only reads, see the module's docstring)."""

    def __init__(self, path: str | Path, migrations: Sequence[str] = MIGRATIONS, *,
                 read_only: bool = False, timeout: float = BUSY_TIMEOUT_S):
        self.path = Path(path)
        self.read_only = read_only
        self._placeholder = False  # True while a reader stands in for a missing file
        self._migrations = tuple(migrations)
        self._timeout = timeout
        if read_only:
            self._conn = self._open_reader() or self._empty()
            return
        self._refuse_newer()  # before anything writes: a newer app's library stays as it is
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: no implicit transactions; ours are explicit.
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(
                f"The library database {self.path} cannot be opened ({exc}); "
                "check that the data folder exists and is writable."
            ) from None
        try:
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit is on disk when it returns (one fsync; takes are few), so a
            # power loss cannot drop the rows of takes whose audio files survive.
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise database_error(self.path, exc) from None
        except BaseException:
            self._conn.close()
            raise

    def _refuse_newer(self) -> None:
        """Read the schema version of an existing file without changing anything (no WAL
        switch, no side files: ``immutable``), and refuse a newer one."""
        if not self.path.is_file():
            return
        try:
            uri = self.path.absolute().as_uri() + "?mode=ro&immutable=1"
            with contextlib.closing(sqlite3.connect(uri, uri=True)) as peek:
                version = int(peek.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.Error:
            return  # damaged or locked: the real open says so
        self._check_not_newer(version)

    def _open_reader(self) -> sqlite3.Connection | None:
        """The file opened read-only, or None while it is missing or at an older schema."""
        if not self.path.is_file():
            return None
        try:
            uri = self.path.absolute().as_uri() + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, timeout=self._timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise UserError(
                f"The library database {self.path} cannot be opened ({exc}); "
                "check that the data folder exists and is writable."
            ) from None
        try:
            conn.row_factory = sqlite3.Row
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            self._check_not_newer(version)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise database_error(self.path, exc) from None
        except BaseException:
            conn.close()
            raise
        if version < self.latest_version:
            conn.close()
            return None
        return conn

    def _empty(self) -> sqlite3.Connection:
        """An in-memory library at the newest schema: what a reader sees before the file."""
        conn = sqlite3.connect(":memory:", isolation_level=None)
        conn.row_factory = sqlite3.Row
        for script in self._migrations:
            for statement in split_statements(script):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {self.latest_version}")
        self._placeholder = True
        return conn

    @property
    def available(self) -> bool:
        """False while a reader stands in for a file that is missing or not upgraded yet."""
        return not self._placeholder

    @classmethod
    def open_in(cls, root: str | Path | None = None, *, read_only: bool = False,
                timeout: float = BUSY_TIMEOUT_S) -> Database:
        """Open ``library.sqlite`` in ``root`` (default: the data folder)."""
        return cls(Path(root if root is not None else data_dir()) / DB_FILE,
                   read_only=read_only, timeout=timeout)

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
        if self.read_only:
            raise RuntimeError("a read-only library database is never migrated")
        applied = 0
        while True:
            with self.transaction() as conn:
                version = self.schema_version
                self._check_not_newer(version)
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

    def _check_not_newer(self, version: int) -> None:
        if version > self.latest_version:
            raise UserError(
                f"The library database {self.path} was made by a newer version of "
                "OmniVoice Desktop (schema "
                f"{version}, this version knows {self.latest_version}); update the app."
            )

    # -- access ---------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``with db.transaction() as conn:`` -- commits on success, rolls back on error.

        BEGIN IMMEDIATE takes the write lock at the start, so a read-then-write
        inside the block sees no other writer in between.
        """
        if self.read_only:
            raise RuntimeError("a read-only library database takes no transactions")
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
        if self._placeholder:  # a reader before the file: has the writer made it by now?
            try:
                conn = self._open_reader()
            except UserError as exc:  # busy mid-creation, say: stay empty, look again next time
                log.warning("the library is not readable yet: %s", exc)
                conn = None
            if conn is not None:
                self._conn.close()
                self._conn, self._placeholder = conn, False
        return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
