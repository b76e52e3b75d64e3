"""Takes: every render, kept as ``takes/<id>.flac`` plus a row in ``library.sqlite``.

A row holds the full snapshot of how the take was made (``TakeSettings`` and ``TakeRun``
of :mod:`studio.library.take_record`, as JSON) and the columns the takes panel filters on.

Crash safety: the audio is written to a hidden temp file, fsync'd and renamed
to ``<id>.flac`` (and the folder fsync'd) *before* the row is inserted in one
transaction, so a crash at any moment leaves either a complete take or a file
without a row. Temp files are deleted, and complete audio files without a row
are moved into ``takes/recovered/`` (never deleted: a power loss or a failed
delete could leave one, and the sound is the user's), when a writer opens --
but only when no other writer is alive (an exclusive lock on ``takes/.writers``,
held shared for a writer's lifetime), so a second studio instance never touches
a take that is being written. Deleting removes the row first, then the file.

Threading: a ``TakeLibrary`` belongs to the thread that opened it. The studio's
worker thread holds the one writer; the GUI opens its own ``read_only`` one.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from studio.atomic import atomic_write, fsync_dir
from studio.errors import UserError
from studio.library.clip_source import clip_label
from studio.library.db import Database, busy_error, is_busy, make_folder
from studio.library.fields import format_time, is_voice_id, name_key
from studio.library.project_takes import ProjectTakes
from studio.library.take_record import (
    Take,
    TakeRun,
    TakeSettings,
    clean_notes,
    clean_take_name,
    known_fields,
    voice_key,
)
from studio.paths import data_dir
from studio.sound import files
from studio.sound.loudness import loudness_lufs

TAKES_DIR = "takes"
LOCK_FILE = ".writers"
RECOVERED_DIR = "recovered"  # inside takes/: complete audio files that had no row
AUDIO_SUFFIX = ".flac"
AUDIO_SUBTYPE = "PCM_24"
UNLOCKED_ORPHAN_AGE_S = 3600.0  # without file locks, only sweep what is surely abandoned
NO_PROJECT = ""  # list(project=NO_PROJECT): the Clone and Design takes, no script's


class TakeNotFound(UserError):
    """The id names no take (deleted, pruned, or never saved)."""


class ReadOnlyLibrary(RuntimeError):
    """A write through a read-only TakeLibrary: a programming error, not the user's."""


# Every take read names its saved voice as it is called now (renamed voices follow).
_SELECT = ("SELECT *, (SELECT name FROM voices v WHERE v.id = takes.voice_key AND v.deleted = 0)"
           " AS voice_now FROM takes")

def _search_key(text: str, name: str, notes: str) -> str:
    return "\n".join(name_key(part) for part in (text, name, notes))



class TakeLibrary:
    def __init__(self, folder: str | Path | None = None, *, read_only: bool = False):
        self.root = Path(folder if folder is not None else data_dir()).absolute()
        self.takes_dir = self.root / TAKES_DIR
        self.read_only = read_only
        self._lock_fd: int | None = None
        if not read_only:
            make_folder(self.takes_dir, "take")
        self._db = Database.open_in(self.root, read_only=read_only)
        if not read_only:
            try:
                self._sweep(self._lock_writer())
            except BaseException as exc:
                self.close()  # the connection and the lock go with the failed open
                if isinstance(exc, OSError):
                    raise UserError(
                        f"The take folder {self.takes_dir} cannot be locked or read "
                        f"({exc.strerror or exc}); check that the data folder is writable."
                    ) from None
                raise

    def close(self) -> None:
        self._db.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the writer lock
            self._lock_fd = None

    def __enter__(self) -> TakeLibrary:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------

    def audio_path(self, take_id: str) -> Path:
        return self.takes_dir / f"{take_id}{AUDIO_SUFFIX}"

    def get(self, take_id: str) -> Take:
        rows = []
        if is_voice_id(take_id):  # checked before the id ever becomes a path
            rows = self._db.query(f"{_SELECT} WHERE id = ?", (take_id,))
        if not rows:
            raise TakeNotFound(
                f"The take {str(take_id)[:40]!r} is not in the library (it may have been deleted "
                "or pruned); refresh the takes list."
            )
        return self._take(rows[0])

    def list(
        self,
        search: str = "",
        *,
        voice: str | None = None,
        starred: bool | None = None,
        include_deleted: bool = False,
        project: str | ProjectTakes | None = None,
    ) -> list[Take]:
        """Newest first. ``search`` keeps takes whose text, name or notes contain every word;
        ``project`` a script project's takes (its file's path, or a ProjectTakes that adds
        the takes its lines use), or with NO_PROJECT the takes of no project (Clone and
        Design)."""
        where, params = [], []
        if not include_deleted:
            where.append("deleted = 0")
        if voice is not None:
            where.append("voice_key = ?")
            params.append(voice)
        if project is not None:
            condition, values = ProjectTakes.of(project).where()
            where.append(condition)
            params.extend(values)
        if starred is not None:
            where.append("starred = ?")
            params.append(int(bool(starred)))
        for term in name_key(search or "").split():
            where.append("instr(search_key, ?) > 0")
            params.append(term)
        sql = _SELECT
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._db.query(sql + " ORDER BY created DESC, rowid DESC", params)
        labels: dict[str, str | None] = {}  # a clip's label, read once per listing
        return [self._take(row, labels) for row in rows]

    def voices(self) -> list[tuple[str, str]]:
        """``(filter key, label)`` of the voices the listed (not deleted) takes used."""
        rows = self._db.query(
            "SELECT t.voice_key AS key, t.voice_label AS label, v.name AS current,"
            " MAX(t.created) AS latest, json_extract(t.settings, '$.reference_path') AS clip"
            " FROM takes t LEFT JOIN voices v ON v.id = t.voice_key AND v.deleted = 0"
            " WHERE t.deleted = 0 GROUP BY t.voice_key ORDER BY latest DESC"
        )
        out = []
        for row in rows:
            # (a cleaned clip's label is read now: takes kept before it was named have
            # its hashed file name)
            label = row["current"] or clip_label(row["clip"]) or row["label"]
            out.append((row["key"], label))
        labels = [label for _, label in out]
        return [  # the same clip name from two different clips: tell them apart
            (key, f"{label} · {key[4:10]}" if key.startswith("ref:") and labels.count(label) > 1
             else label)
            for key, label in out
        ]

    def projects(self) -> list[str]:
        """The script projects (their files' paths) the listed takes belong to, the one
        rendered in most recently first."""
        rows = self._db.query(
            "SELECT json_extract(settings, '$.project') AS project, MAX(created) AS latest"
            " FROM takes WHERE deleted = 0 AND json_extract(settings, '$.project') IS NOT NULL"
            " GROUP BY project ORDER BY latest DESC")
        return [row["project"] for row in rows if row["project"]]

    def reference_paths(self) -> set[str]:
        """The reference clips takes were rendered from, deleted takes' too (restorable
        until purged): what must stay on disk for them to render again."""
        rows = self._db.query(
            "SELECT DISTINCT json_extract(settings, '$.reference_path') AS path FROM takes"
            " WHERE json_extract(settings, '$.reference_path') IS NOT NULL")
        return {row["path"] for row in rows if row["path"]}

    def read_audio(self, take_id: str) -> tuple[np.ndarray, int]:
        """The take's audio as float32 mono, and its sample rate."""
        take = self.get(take_id)
        try:
            audio, rate = files.decode(take.audio_path)
        except files.UNREADABLE as exc:
            raise UserError(
                f"The audio file of take {take.id} is missing or damaged ({exc}); "
                "delete the take or render it again."
            ) from None
        return np.ascontiguousarray(audio.mean(axis=1), dtype=np.float32), int(rate)

    def check_integrity(self) -> list[str]:
        """One sentence per problem; [] when the database is sound and every take
        (deleted ones included: they can be restored) has complete, readable audio."""
        problems = []
        verdict = [row[0] for row in self._db.query("PRAGMA integrity_check")]
        if verdict != ["ok"]:
            detail = "; ".join(verdict)[:300]
            problems.append(f"The library database fails its integrity check: {detail}.")
        for row in self._db.query("SELECT id, frames, sample_rate FROM takes"):
            frames, rate = files.decodable_frames(self.audio_path(row["id"]))
            if frames != row["frames"] or rate != row["sample_rate"]:
                problems.append(
                    f"The audio of take {row['id']} is missing or incomplete "
                    f"({frames} of {row['frames']} frames readable)."
                )
        return problems

    # -- writing ----------------------------------------------------------------

    def add(
        self,
        settings: TakeSettings,
        run: TakeRun,
        audio: np.ndarray,
        sample_rate: int,
        *,
        batch: str,
        suspects: Iterable[str] = (),
        asr_cer: float | None = None,
    ) -> Take:
        self._writable()
        if not isinstance(settings, TakeSettings) or not isinstance(run, TakeRun):
            raise TypeError("add() needs a TakeSettings and a TakeRun")
        wave = np.clip(np.nan_to_num(np.asarray(audio, dtype=np.float32).reshape(-1)), -1.0, 1.0)
        if wave.size == 0:
            raise UserError("The take has no audio samples, so there is nothing to save; "
                            "render it again.")
        if int(sample_rate) <= 0:
            raise ValueError(f"sample rate must be positive, got {sample_rate}")
        take_id = uuid.uuid4().hex
        lufs = loudness_lufs(wave, sample_rate)
        row = {
            "id": take_id,
            "created": format_time(datetime.now(timezone.utc)),
            "batch": str(batch),
            "voice_key": voice_key(settings),
            "voice_label": self._voice_label(settings),
            "search_key": _search_key(settings.text, "", ""),
            "settings": json.dumps(asdict(settings), ensure_ascii=False, allow_nan=False),
            "run": json.dumps(asdict(run), ensure_ascii=False),
            "sample_rate": int(sample_rate),
            "frames": int(wave.size),
            "loudness_lufs": lufs,
            "suspects": json.dumps(list(suspects)),
            "asr_cer": None if asr_cer is None or not math.isfinite(asr_cer) else float(asr_cer),
        }
        path = self.audio_path(take_id)
        placed = False
        try:
            with atomic_write(path) as handle:
                files.write(handle, wave, sample_rate, "FLAC", AUDIO_SUBTYPE)
            placed = True
            fsync_dir(self.takes_dir)
            columns, marks = ", ".join(row), ", ".join(f":{key}" for key in row)
            with self._db.transaction() as conn:
                conn.execute(f"INSERT INTO takes ({columns}) VALUES ({marks})", row)
        except BaseException as exc:
            if placed:
                path.unlink(missing_ok=True)
            if is_busy(exc):
                raise busy_error(self._db.path) from None
            if isinstance(exc, (OSError, sqlite3.Error, files.FileError)):
                raise UserError(
                    f"The take cannot be saved in {self.takes_dir} ({exc}); free some disk space "
                    "or check the folder's permissions."
                ) from None
            raise
        return self.get(take_id)

    def set_starred(self, take_id: str, starred: bool) -> Take:
        return self._update(take_id, starred=int(bool(starred)))

    def rename(self, take_id: str, name: str) -> Take:
        return self._update(take_id, name=clean_take_name(name))

    def set_notes(self, take_id: str, notes: str) -> Take:
        return self._update(take_id, notes=clean_notes(notes))

    def set_judgements(self, take_id: str, judgements: dict) -> Take:
        """Store the judges' verdicts with the take (replacing earlier ones)."""
        return self._update(take_id, judgements=json.dumps(judgements, ensure_ascii=False,
                                                           allow_nan=False))

    def rewrite_judgements(self, change: Callable[[dict], dict]) -> int:
        """Every stored judgement through ``change``, in one transaction (Settings' new
        weights give every judged take its combined score again); how many changed."""
        self._writable()
        rows = self._db.query("SELECT id, judgements FROM takes WHERE judgements IS NOT NULL")
        updates = []
        for row in rows:
            try:
                old = json.loads(row["judgements"])
                new = change(old)
            except (ValueError, TypeError, KeyError):  # a judgement this version cannot read
                continue
            if new != old:
                updates.append((json.dumps(new, ensure_ascii=False, allow_nan=False), row["id"]))
        if updates:
            with self._db.transaction() as conn:
                conn.executemany("UPDATE takes SET judgements = ? WHERE id = ?", updates)
        return len(updates)

    def delete(self, ids: Iterable[str] | str) -> None:
        """Soft delete: the takes leave the list and can be restored with :meth:`undelete`."""
        self._set_deleted(ids, True)

    def undelete(self, ids: Iterable[str] | str) -> None:
        self._set_deleted(ids, False)

    def remove(self, ids: Iterable[str] | str) -> int:
        """Remove takes for good, now (a render whose project could not be saved takes its
        new takes back, so none is left that nothing names); returns how many went."""
        ids = [ids] if isinstance(ids, str) else list(ids)
        if not ids:
            return 0
        return self._remove(f"id IN ({', '.join('?' * len(ids))})", tuple(ids))

    def purge_deleted(self) -> int:
        """Remove the soft-deleted takes for good (rows, then files); returns how many."""
        return self._remove("deleted = 1", ())

    def prune(self, max_age_days: float, now: datetime | None = None) -> int:
        """Remove unstarred takes created more than ``max_age_days`` ago; starred ones stay.
        ``max_age_days`` <= 0 keeps everything. Returns how many went."""
        self._writable()
        if not isinstance(max_age_days, (int, float)) or not math.isfinite(max_age_days):
            return 0
        if max_age_days <= 0:
            return 0
        moment = now if now is not None else datetime.now(timezone.utc)
        cutoff = format_time(moment - timedelta(days=float(max_age_days)))
        return self._remove("starred = 0 AND created < ?", (cutoff,))

    # -- helpers ----------------------------------------------------------------

    def _take(self, row: sqlite3.Row, labels: dict | None = None) -> Take:
        settings = TakeSettings(**known_fields(TakeSettings, json.loads(row["settings"])))
        labels = {} if labels is None else labels
        clip = settings.reference_path
        if clip and clip not in labels:
            labels[clip] = clip_label(clip)
        return Take(
            id=row["id"],
            created=row["created"],
            name=row["name"],
            notes=row["notes"],
            starred=bool(row["starred"]),
            batch=row["batch"],
            settings=settings,
            run=TakeRun(**known_fields(TakeRun, json.loads(row["run"]))),
            sample_rate=row["sample_rate"],
            audio_seconds=row["frames"] / row["sample_rate"],
            loudness_lufs=row["loudness_lufs"],
            suspects=tuple(json.loads(row["suspects"])),
            asr_cer=row["asr_cer"],
            audio_path=self.audio_path(row["id"]),
            deleted=bool(row["deleted"]),
            # A deleted voice keeps the name it had when the take was rendered.
            voice_name=row["voice_now"] or (row["voice_label"] if settings.voice_id else None),
            judgements=json.loads(row["judgements"]) if row["judgements"] else None,
            clip_label=labels.get(clip) if clip else None,
        )

    def _voice_label(self, settings: TakeSettings) -> str:
        if settings.voice_id:
            rows = self._db.query("SELECT name FROM voices WHERE id = ?", (settings.voice_id,))
            return rows[0][0] if rows else "Deleted voice"
        if settings.reference_path:
            return (clip_label(settings.reference_path) or Path(settings.reference_path).name
                    or settings.reference_path)
        return "Voice design"

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyLibrary(
                "This take library was opened read-only; changes go through the worker."
            )

    def _update(self, take_id: str, **values: object) -> Take:
        self._writable()
        take = self.get(take_id)
        name = values.get("name", take.name)
        notes = values.get("notes", take.notes)
        values["search_key"] = _search_key(take.settings.text, name, notes)
        assignments = ", ".join(f"{key} = :{key}" for key in values)
        with self._db.transaction() as conn:
            conn.execute(f"UPDATE takes SET {assignments} WHERE id = :id", {**values, "id": take.id})
        return self.get(take.id)

    def _ids(self, ids: Iterable[str] | str) -> list[str]:
        ids = [ids] if isinstance(ids, str) else list(ids)
        for take_id in ids:
            self.get(take_id)  # every id must exist before anything changes
        return ids

    def _set_deleted(self, ids: Iterable[str] | str, deleted: bool) -> None:
        self._writable()
        ids = self._ids(ids)
        with self._db.transaction() as conn:
            conn.executemany("UPDATE takes SET deleted = ? WHERE id = ?",
                             [(int(deleted), take_id) for take_id in ids])

    def _remove(self, condition: str, params: tuple) -> int:
        self._writable()
        with self._db.transaction() as conn:
            ids = [row[0] for row in conn.execute(f"SELECT id FROM takes WHERE {condition}", params)]
            conn.execute(f"DELETE FROM takes WHERE {condition}", params)
        for take_id in ids:
            try:
                self.audio_path(take_id).unlink(missing_ok=True)
            except OSError:
                pass  # held open elsewhere: an unreferenced file the next sweep removes
        return len(ids)

    def _lock_writer(self) -> bool:
        """Hold a shared lock while this writer lives; True when it was, for a moment,
        the only writer (then sweeping cannot hit another writer's file in flight)."""
        try:
            import fcntl
        except ImportError:  # Windows: fall back to sweeping only old files
            return False
        try:
            self._lock_fd = os.open(self.takes_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return False  # cannot lock here: sweep only what is surely abandoned
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            alone = True
        except OSError:
            alone = False
        fcntl.flock(self._lock_fd, fcntl.LOCK_SH)  # a downgrade, or a wait behind a sweep
        return alone

    def _sweep(self, alone: bool) -> int:
        """Delete temp files and move audio files without a row into ``takes/recovered/``;
        returns how many went.

        The rule: only a hidden ``.tmp`` file is ever deleted (it is an unfinished write).
        A ``<id>.flac`` is only ever made by renaming a complete, fsync'd temp file, so
        one without a row is a whole take whose row was lost (a crash before the insert,
        or a failed delete): it is moved aside, never deleted, and never listed again.
        """
        known = {row[0] for row in self._db.query("SELECT id FROM takes")}
        cutoff = time.time() - (0.0 if alone else UNLOCKED_ORPHAN_AGE_S)
        recovered = self.takes_dir / RECOVERED_DIR
        swept = 0
        with os.scandir(self.takes_dir) as entries:
            for entry in entries:
                stem = entry.name[: -len(AUDIO_SUFFIX)] if entry.name.endswith(AUDIO_SUFFIX) else None
                temp = entry.name.startswith(".") and entry.name.endswith(".tmp")
                orphan = stem is not None and is_voice_id(stem) and stem not in known
                try:
                    if not (temp or orphan) or not entry.is_file(follow_symlinks=False):
                        continue
                    if entry.stat().st_mtime > cutoff:
                        continue
                    if temp:
                        os.unlink(entry.path)
                    else:
                        recovered.mkdir(exist_ok=True)
                        os.replace(entry.path, recovered / entry.name)
                    swept += 1
                except OSError:
                    continue
        return swept
