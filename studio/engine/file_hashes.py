"""sha256 of file contents, memoised across threads and processes by (resolved path,
size, mtime_ns, inode) in a small SQLite file, so an unchanged file (the 0.8 GB codec
weights included) is read once per version. The prompt cache keys clips and the codec
by these digests (:mod:`studio.engine.prompt_cache`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)

HASHES_FILE = "hashes.sqlite"  # the memo's name inside the prompt cache's folder

_HASHES_TABLE = """
CREATE TABLE IF NOT EXISTS file_hashes (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    sha256 TEXT NOT NULL
)
"""


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    name = getattr(exc, "sqlite_errorname", "")  # Python 3.11+
    text = str(exc).lower()
    return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or "not a database" in text or "malformed" in text


class FileHasher:
    """sha256 of file contents, memoised by (resolved path, size, mtime_ns, inode).

    The memo lives in this object and, with ``db_path``, in a small SQLite file
    (WAL mode, one short connection per call, so several threads and processes
    can share it). The memo is only a shortcut: if the database is deleted it
    is recreated, if it is corrupt it is replaced, and if it cannot be used at
    all files are simply hashed. A file modified in the last two seconds is
    hashed but not memoised, since a same-size rewrite within one mtime tick
    would otherwise go unnoticed.
    """

    CHUNK = 1 << 20
    RACY_NS = 2_000_000_000

    def __init__(self, db_path: Path | None):
        self.db_path = Path(db_path) if db_path is not None else None
        self.files_hashed = 0  # files actually read (tests and the benchmark look)
        self._memo: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._lock = threading.Lock()

    def file_sha256(self, path: str | os.PathLike) -> str:
        """The digest of ``path``'s bytes; OSError when it cannot be read."""
        resolved = Path(path).resolve()
        name = str(resolved)
        signature = self._signature(os.stat(resolved))
        with self._lock:
            cached = self._memo.get(name)
        if cached is not None and cached[0] == signature:
            return cached[1]
        row = self._db(lambda c: c.execute(
            "SELECT size, mtime_ns, inode, sha256 FROM file_hashes WHERE path = ?", (name,)
        ).fetchone())
        if row is not None and tuple(row[:3]) == signature:
            with self._lock:
                self._memo[name] = (signature, row[3])
            return row[3]
        for _attempt in range(3):
            digest = self._hash(resolved)
            after = self._signature(os.stat(resolved))
            if after == signature:
                break
            signature = after  # written to while we read: read it again
        else:
            return digest  # still changing: use it, remember nothing
        if time.time_ns() - signature[1] >= self.RACY_NS:
            with self._lock:
                self._memo[name] = (signature, digest)
            self._db(lambda c: c.execute(
                "INSERT OR REPLACE INTO file_hashes (path, size, mtime_ns, inode, sha256) "
                "VALUES (?, ?, ?, ?, ?)", (name, *signature, digest)))
        return digest

    def clear(self) -> None:
        with self._lock:
            self._memo.clear()
        self._db(lambda c: c.execute("DELETE FROM file_hashes"))

    @staticmethod
    def _signature(st: os.stat_result) -> tuple[int, int, int]:
        return (st.st_size, st.st_mtime_ns, st.st_ino)

    def _hash(self, path: Path) -> str:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(self.CHUNK):
                digest.update(chunk)
        self.files_hashed += 1
        return digest.hexdigest()

    def _db(self, operation):
        if self.db_path is None:
            return None
        for attempt in range(2):
            try:
                self.db_path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.db_path, timeout=10.0, isolation_level=None)
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute(_HASHES_TABLE)
                    return operation(conn)
                finally:
                    conn.close()
            except sqlite3.DatabaseError as exc:
                if attempt == 0 and _is_corrupt(exc):
                    log.warning("the hash memo %s is unreadable (%s); starting a new one",
                                self.db_path, exc)
                    self._remove_db()
                    continue
                log.warning("the hash memo %s cannot be used (%s); hashing without it",
                            self.db_path, exc)
                return None
            except OSError as exc:
                log.warning("the hash memo %s cannot be used (%s); hashing without it",
                            self.db_path, exc)
                return None
        return None

    def _remove_db(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            try:
                Path(f"{self.db_path}{suffix}").unlink(missing_ok=True)
            except OSError as exc:
                log.warning("cannot remove %s%s: %s", self.db_path, suffix, exc)
