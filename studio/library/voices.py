"""Saved voices: a row in ``library.sqlite`` and a folder ``voices/<id>/`` holding the
reference clip (the user's bytes, with their original extension) and ``prompt.pt``
(a :class:`VoicePrompt` in format v1).

Creating is atomic from the user's view: the files go into a hidden temp folder
under ``voices/``, which is renamed into place before the row commits; any failure
removes the folder, so there is never a row without files or files without a row.
A crash between the rename and the commit can leave a folder without a row: such an
orphan is moved into ``voices/recovered/`` when a library opens (stale temp folders
are deleted); a database that lists it brings it back.

Deleting removes the row first (the voice is gone for the user), then the folder.
The studio deletes ``undoable``: the row is marked and its name freed, the files
stay, and :meth:`undelete` brings it back until :meth:`purge_deleted` (the next
session's start) removes it for good.

Threading: as for :mod:`studio.library.db`, a ``VoiceLibrary`` belongs to one thread.
The studio's worker thread writes; the GUI reads through a ``read_only`` one, which
imports no torch (prompts are loaded only by the methods that need them).

Long because :class:`VoiceLibrary` keeps each voice's folder and row in step: create,
rename, delete with undo and the orphan sweep share the staging rules above.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from studio.atomic import fsync_dir
from studio.errors import UserError
from studio.library import fields
from studio.library.db import Database, make_folder
from studio.paths import data_dir
from studio.sound.files import is_readable_audio

if TYPE_CHECKING:
    from studio.engine.prompt import VoicePrompt

VOICES_DIR = "voices"
PROMPT_FILE = "prompt.pt"
RECOVERED_DIR = "recovered"  # voice folders no row lists: kept, never deleted
_STAGING_PREFIX = ".new-"
ORPHAN_AGE_S = 3600.0  # a folder this old without a row is no create in progress

_UPDATABLE = MappingProxyType(
    {
        "instruct": fields.clean_instruct,
        "seed": fields.clean_seed,
        "tags": fields.clean_tags,
        "language": fields.clean_language,
        "cache_key": fields.clean_cache_key,
        "notes": fields.clean_notes,
    }
)
_LISTED = "deleted = 0"  # what every read sees: an undoable delete hides the voice


class ReadOnlyVoices(RuntimeError):
    """A write through a read-only VoiceLibrary: a programming error, not the user's."""


class VoiceNotFound(UserError):
    """The voice id names no saved voice (it was deleted, or never existed)."""


@dataclass(frozen=True)
class Voice:
    id: str  # uuid4 hex, also the folder name under voices/
    name: str
    transcript: str
    instruct: str | None
    seed: int | None  # a locked seed, or None to draw one per take
    tags: tuple[str, ...]
    language: str | None
    created: datetime  # UTC
    updated: datetime  # UTC
    clip: str  # the clip's file name inside the voice's folder, e.g. "clip.wav"
    cache_key: str | None  # the prompt cache's key for the reference clip, if any
    notes: str = ""
    last_used: datetime | None = None  # UTC; when a take last used it
    use_count: int = 0  # how many takes were rendered in it


def _voice_from_row(row: sqlite3.Row) -> Voice:
    # Cleaned as they are read too: a library written before names were cleaned (or
    # by another program) shows no control characters either.
    tags = (fields.one_line(tag) for tag in json.loads(row["tags"]) if isinstance(tag, str))
    return Voice(
        id=row["id"],
        name=fields.one_line(row["name"]),
        transcript=row["transcript"],
        instruct=row["instruct"],
        seed=row["seed"],
        tags=tuple(tag for tag in tags if tag),
        language=fields.one_line(row["language"]) if row["language"] else row["language"],
        created=fields.parse_time(row["created"]),
        updated=fields.parse_time(row["updated"]),
        clip=row["clip"],
        cache_key=row["cache_key"],
        notes=row["notes"],
        last_used=fields.parse_time(row["last_used"]) if row["last_used"] else None,
        use_count=row["use_count"],
    )


def _first(rows: list[sqlite3.Row], missing: str) -> Voice:
    """The first row's voice; :class:`VoiceNotFound` saying ``missing`` when there is none."""
    if not rows:
        raise VoiceNotFound(missing)
    return _voice_from_row(rows[0])


@contextmanager
def _told() -> Iterator[None]:
    """A field that fails its check becomes the user's one sentence."""
    try:
        yield
    except fields.InvalidField as exc:
        raise UserError(exc.sentence()) from None


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


class VoiceLibrary:
    """The saved voices under ``root`` (the data folder): ``library.sqlite`` and ``voices/``.

    Pass ``db`` to share one :class:`Database` with other parts of the library;
    otherwise the library opens (and on :meth:`close`, closes) its own.
    """

    def __init__(self, root: str | Path | None = None, db: Database | None = None, *,
                 read_only: bool = False):
        self.root = Path(root if root is not None else data_dir())
        self.voices_dir = self.root / VOICES_DIR
        self.read_only = read_only
        if not read_only:
            make_folder(self.voices_dir, "voice")
        self._owns_db = db is None
        self._db = db if db is not None else Database.open_in(self.root, read_only=read_only)
        if not read_only:
            self.sweep_orphans()

    def close(self) -> None:
        if self._owns_db:
            self._db.close()

    def __enter__(self) -> VoiceLibrary:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- reading --------------------------------------------------------------

    def get(self, voice_id: str) -> Voice:
        rows = []
        if fields.is_voice_id(voice_id):  # checked before the id ever becomes a path
            rows = self._db.query(f"SELECT * FROM voices WHERE id = ? AND {_LISTED}",
                                  (voice_id,))
        return _first(rows, f"The voice {voice_id!r} is not in the library (it may have been "
                            "deleted); refresh the voice list.")

    def find(self, name: str) -> Voice:
        """The voice called ``name``, ignoring case (names are unique that way)."""
        name = fields.one_line(str(name))
        key = fields.name_key(name)
        rows = self._db.query(f"SELECT * FROM voices WHERE name_key = ? AND {_LISTED}", (key,))
        if not rows:  # a name stored before names were cleaned is found as it is shown
            rows = [row for row in self._db.query(f"SELECT * FROM voices WHERE {_LISTED}")
                    if fields.name_key(fields.one_line(row["name"])) == key]
        return _first(rows, f"No saved voice is named '{name[:fields.MAX_NAME_CHARS]}'; run "
                            "omnivoice-desktop voices list to see the names.")

    def name_taken(self, name: str) -> bool:
        return bool(self._db.query("SELECT 1 FROM voices WHERE name_key = ?",
                                   (fields.name_key(fields.one_line(name)),)))

    def with_clip(self, clip: str | Path) -> Voice | None:
        """The newest voice whose clip is ``clip``'s bytes (a take already saved as a
        voice), else None; sizes are compared first, so only a same-size clip is read."""
        try:
            size = Path(clip).stat().st_size
            data = None
            for voice in self.list():
                kept = self.voices_dir / voice.id / voice.clip
                if kept.is_file() and kept.stat().st_size == size:
                    data = Path(clip).read_bytes() if data is None else data
                    if kept.read_bytes() == data:
                        return voice
        except OSError:  # an unreadable clip or voice folder: nothing to say about it
            return None
        return None

    def list(self) -> list[Voice]:
        """Every saved voice, newest first."""
        rows = self._db.query(f"SELECT * FROM voices WHERE {_LISTED} ORDER BY created DESC, rowid DESC")
        return [_voice_from_row(row) for row in rows]

    def search(self, query: str) -> list[Voice]:
        """Voices whose name, tags or transcript contain every word of ``query``
        (case-insensitive), newest first; an empty query lists them all."""
        terms = fields.name_key(query).split()
        found = []
        for voice in self.list():
            haystack = [fields.name_key(t) for t in (voice.name, voice.transcript, *voice.tags)]
            if all(any(term in text for text in haystack) for term in terms):
                found.append(voice)
        return found

    def cache_keys(self) -> set[str]:
        """The prompt-cache keys of every saved voice (cache pruning keeps these)."""
        rows = self._db.query("SELECT DISTINCT cache_key FROM voices WHERE cache_key IS NOT NULL")
        return {row[0] for row in rows}

    def folder(self, voice_id: str) -> Path:
        return self.voices_dir / self.get(voice_id).id

    def clip_path(self, voice_id: str) -> Path:
        voice = self.get(voice_id)
        return self.voices_dir / voice.id / voice.clip

    def prompt_path(self, voice_id: str) -> Path:
        return self.folder(voice_id) / PROMPT_FILE

    def load_prompt(self, voice_id: str, codebooks: int | None = None,
                    codebook_size: int | None = None) -> VoicePrompt:
        """The voice's prompt (loaded weights-only; ``codebooks`` and ``codebook_size``
        check it against the codec)."""
        from studio.engine.prompt import VoicePrompt

        return VoicePrompt.load(self.prompt_path(voice_id), codebooks, codebook_size)

    def unique_name(self, name: str) -> str:
        """``name`` if no voice has it, else the first free ``name (2)``, ``name (3)``..."""
        with _told():
            base = fields.clean_name(name)
        taken = {row[0] for row in self._db.query(f"SELECT name_key FROM voices WHERE {_LISTED}")}
        candidate, n = base, 1
        while fields.name_key(candidate) in taken:
            n += 1
            suffix = f" ({n})"
            candidate = base[: fields.MAX_NAME_CHARS - len(suffix)].rstrip() + suffix
        return candidate

    # -- creating ---------------------------------------------------------------

    def create(self, name: str, clip: str | Path, prompt: VoicePrompt, **details: Any) -> Voice:
        """Save a voice from a reference clip file (copied byte for byte) and its prompt;
        ``details`` are :meth:`create_from_data`'s keywords (``transcript`` defaults to
        ``prompt.text``)."""
        source = Path(clip)
        from studio.safe_read import read_bytes

        data = read_bytes(source, fields.MAX_CLIP_BYTES, "reference clip")
        return self.create_from_data(name, data, source.suffix, prompt, **details)

    def create_from_data(
        self,
        name: str,
        clip_data: bytes,
        clip_suffix: str,
        prompt: VoicePrompt,
        transcript: str | None = None,
        instruct: str | None = None,
        seed: int | None = None,
        tags: Iterable[str] = (),
        language: str | None = None,
        cache_key: str | None = None,
        created: datetime | None = None,
    ) -> Voice:
        """Save a voice from the clip's bytes and extension (``".wav"``) and its prompt.

        ``transcript`` defaults to ``prompt.text``; ``created`` keeps the original creation
        time of an imported voice.
        """
        from studio.engine.prompt import VoicePrompt

        self._check_writable()
        if not isinstance(prompt, VoicePrompt):
            raise TypeError(f"prompt must be a VoicePrompt, not {type(prompt).__name__}")
        with _told():
            name = fields.clean_name(name)
            values = {
                "transcript": fields.clean_transcript(prompt.text if transcript is None else transcript),
                "instruct": fields.clean_instruct(instruct),
                "seed": fields.clean_seed(seed),
                "tags": fields.clean_tags(tags),
                "language": fields.clean_language(language),
                "cache_key": fields.clean_cache_key(cache_key),
                "clip": fields.clip_file_name(clip_suffix),
            }
        if len(clip_data) > fields.MAX_CLIP_BYTES:
            raise UserError(
                f"The reference clip is larger than {fields.MAX_CLIP_BYTES // fields.MB} MB; "
                "use a shorter clip (a few seconds is best)."
            )
        if not is_readable_audio(clip_data):
            raise UserError(
                "The reference clip is empty, damaged or in a format that cannot be read; "
                "use a WAV, FLAC or OGG file."
            )
        self._check_name_free(name)

        voice_id = uuid.uuid4().hex
        stamp = fields.format_time(fields.now())
        row = {
            "id": voice_id,
            "name": name,
            "name_key": fields.name_key(name),
            **values,
            "tags": json.dumps(values["tags"], ensure_ascii=False),
            "created": fields.format_time(created) if created is not None else stamp,
            "updated": stamp,
        }
        staging = self.voices_dir / f"{_STAGING_PREFIX}{voice_id}-{secrets.token_hex(4)}"
        final = self.voices_dir / voice_id
        placed = None
        try:
            staging.mkdir()
            _write_file(staging / values["clip"], clip_data)
            prompt.save(staging / PROMPT_FILE)
            os.rename(staging, final)
            placed = final
            fsync_dir(self.voices_dir)
            columns = ", ".join(row)
            marks = ", ".join(f":{key}" for key in row)
            with self._db.transaction() as conn:
                conn.execute(f"INSERT INTO voices ({columns}) VALUES ({marks})", row)
        except BaseException as exc:
            shutil.rmtree(placed or staging, ignore_errors=True)
            if isinstance(exc, sqlite3.IntegrityError):
                raise self._name_taken(name) from None
            if isinstance(exc, OSError):
                raise UserError(
                    f"The voice cannot be saved because the voice folder {self.voices_dir} "
                    f"cannot be written ({exc.strerror or exc}); free some disk space or check "
                    "its permissions."
                ) from None
            raise
        return self.get(voice_id)

    # -- changing ---------------------------------------------------------------

    def rename(self, voice_id: str, name: str) -> Voice:
        self._check_writable()
        voice = self.get(voice_id)
        with _told():
            name = fields.clean_name(name)
        if fields.name_key(name) != fields.name_key(voice.name):
            self._check_name_free(name)
        try:
            with self._db.transaction() as conn:
                conn.execute(
                    "UPDATE voices SET name = ?, name_key = ?, updated = ? WHERE id = ?",
                    (name, fields.name_key(name), fields.format_time(fields.now()), voice.id),
                )
        except sqlite3.IntegrityError:
            raise self._name_taken(name) from None
        return self.get(voice.id)

    def update(self, voice_id: str, **changes: object) -> Voice:
        """Change any of instruct, seed, tags, language, cache_key, notes (None clears one)."""
        unknown = set(changes) - set(_UPDATABLE)
        if unknown:
            raise TypeError(f"VoiceLibrary.update() cannot change {', '.join(sorted(unknown))}")
        self._check_writable()
        voice = self.get(voice_id)
        with _told():
            values = {key: _UPDATABLE[key](value) for key, value in changes.items()}
        if not values:
            return voice
        if "tags" in values:
            values["tags"] = json.dumps(values["tags"], ensure_ascii=False)
        values["updated"] = fields.format_time(fields.now())
        assignments = ", ".join(f"{key} = :{key}" for key in values)
        with self._db.transaction() as conn:
            conn.execute(f"UPDATE voices SET {assignments} WHERE id = :id", {**values, "id": voice.id})
        return self.get(voice.id)

    def delete(self, voice_id: str, undoable: bool = False) -> None:
        """Remove the voice: the row first (atomic for the user), then its folder.

        ``undoable`` only hides the row and frees the name; the files stay until
        :meth:`purge_deleted`. A folder that cannot be removed now (a file held open
        elsewhere) is an orphan that a later :meth:`sweep_orphans` moves aside.
        """
        self._check_writable()
        voice = self.get(voice_id)
        with self._db.transaction() as conn:
            if undoable:  # the id keeps the freed name key unique
                conn.execute("UPDATE voices SET deleted = 1, name_key = ? WHERE id = ?",
                             (f"{voice.id}:deleted", voice.id))
            else:
                conn.execute("DELETE FROM voices WHERE id = ?", (voice.id,))
        if not undoable:
            shutil.rmtree(self.voices_dir / voice.id, ignore_errors=True)

    def undelete(self, voice_id: str) -> Voice:
        """Bring back a voice deleted ``undoable`` in this session."""
        self._check_writable()
        rows = self._db.query("SELECT name FROM voices WHERE id = ? AND deleted = 1",
                              (str(voice_id),))
        if not rows:
            raise VoiceNotFound("The deleted voice cannot be restored any more; save it again "
                                "from its clip.")
        name = rows[0][0]
        if self.name_taken(name):
            raise UserError(f"The voice '{name}' cannot be restored because another voice has "
                            "its name now; rename that one first.")
        with self._db.transaction() as conn:
            conn.execute("UPDATE voices SET deleted = 0, name_key = ? WHERE id = ?",
                         (fields.name_key(name), voice_id))
        return self.get(voice_id)

    def purge_deleted(self) -> int:
        """Remove the voices deleted ``undoable`` for good; returns how many went."""
        self._check_writable()
        ids = [row[0] for row in self._db.query("SELECT id FROM voices WHERE deleted = 1")]
        if ids:
            with self._db.transaction() as conn:
                conn.execute("DELETE FROM voices WHERE deleted = 1")
            for voice_id in ids:
                shutil.rmtree(self.voices_dir / voice_id, ignore_errors=True)
        return len(ids)

    def set_transcript(self, voice_id: str, transcript: str) -> Voice:
        """A corrected transcript: the prompt is rewritten with it (the tokens stay: they
        come from the audio), and the old cache key no longer describes the voice."""
        from studio.engine.prompt import VoicePrompt

        self._check_writable()
        voice = self.get(voice_id)
        with _told():
            text = fields.clean_transcript(transcript)
        if not text.strip():
            raise UserError("The transcript is empty; type what the voice's clip says.")
        prompt = self.load_prompt(voice.id)
        try:
            VoicePrompt(prompt.tokens, text, prompt.rms).save(self.prompt_path(voice.id))
        except OSError as exc:
            raise UserError(f"The voice '{voice.name}' cannot be changed because its folder cannot "
                            f"be written ({exc.strerror or exc}); check the data folder.") from None
        with self._db.transaction() as conn:
            conn.execute("UPDATE voices SET transcript = ?, cache_key = NULL, updated = ? "
                         "WHERE id = ?", (text, fields.format_time(fields.now()), voice.id))
        return self.get(voice.id)

    def duplicate(self, voice_id: str) -> Voice:
        """A copy under the first free "<name> copy" name: files and details, not its use."""
        voice = self.get(voice_id)
        clip = self.clip_path(voice.id)
        copy = self.create(self.unique_name(f"{voice.name} copy"), clip, self.load_prompt(voice.id),
                           transcript=voice.transcript, instruct=voice.instruct, seed=voice.seed,
                           tags=voice.tags, language=voice.language, cache_key=voice.cache_key)
        return self.update(copy.id, notes=voice.notes) if voice.notes else copy

    def record_use(self, voice_id: str, takes: int = 1) -> None:
        """A render made ``takes`` takes in the voice: ``use_count`` counts takes, as the
        Voices view's cards say ("3 takes"), and sorts by recent and most used."""
        self._check_writable()
        with self._db.transaction() as conn:
            conn.execute("UPDATE voices SET last_used = ?, use_count = use_count + ? WHERE id = ?",
                         (fields.format_time(fields.now()), max(0, int(takes)), str(voice_id)))

    def sweep_orphans(self, min_age_s: float = ORPHAN_AGE_S) -> int:
        """Tidy ``voices/``; returns how many folders were removed or moved.

        Only an unfinished create (a temp folder older than ``min_age_s``) is deleted.
        A voice folder without a row is a whole voice whose row is not in this database
        (its row was lost, or the database was moved aside, as the damaged-library
        sentence advises): it is moved into ``voices/recovered/``, never deleted, and
        moved back when a database that lists it is opened again.
        """
        known = {row[0] for row in self._db.query("SELECT id FROM voices")}
        cutoff = time.time() - min_age_s
        recovered = self.voices_dir / RECOVERED_DIR
        swept = 0
        try:
            entries = list(os.scandir(self.voices_dir))
        except OSError:
            return 0
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False) or entry.stat().st_mtime >= cutoff:
                    continue
                if entry.name.startswith(_STAGING_PREFIX):
                    shutil.rmtree(entry.path)
                elif fields.is_voice_id(entry.name) and entry.name not in known:
                    recovered.mkdir(exist_ok=True)
                    os.replace(entry.path, recovered / entry.name)
                else:
                    continue
                swept += 1
            except OSError:
                continue  # still held open, or taken meanwhile; try again next time
        for voice_id in known:  # a database put back: its voices come back with it
            stored = recovered / voice_id
            if stored.is_dir() and not (self.voices_dir / voice_id).exists():
                try:
                    os.replace(stored, self.voices_dir / voice_id)
                    swept += 1
                except OSError:
                    continue
        return swept

    # -- helpers ------------------------------------------------------------------

    def _check_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyVoices("this VoiceLibrary is read-only; the worker thread writes")

    def _check_name_free(self, name: str) -> None:
        if self.name_taken(name):
            raise self._name_taken(name)

    @staticmethod
    def _name_taken(name: str) -> UserError:
        return UserError(f"A voice named '{name}' already exists; choose another name.")


def saved_voice_cache_keys(root: Path | None = None) -> set[str]:
    """The prompt-cache keys of the saved voices, read through a short-lived
    connection of the caller's thread; none (and no new database) without a library."""
    from studio.library.db import DB_FILE
    from studio.paths import data_dir

    root = root if root is not None else data_dir()
    if not (root / DB_FILE).is_file():
        return set()
    with VoiceLibrary(root) as library:
        return library.cache_keys()
