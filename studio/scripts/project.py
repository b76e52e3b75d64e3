"""A script project: one ``.ovproj`` file (SQLite), saved on every edit, with undo and redo.

Speakers (a saved voice, a designed voice as an instruct with a locked seed, or a clip),
lines in order (speaker, text, per-line overrides, the pause after, the chosen take by
its id in the take library), a pronunciation dictionary and export settings.

Every edit is one SQLite transaction, committed at once (WAL, synchronous FULL): a crash
or a kill mid-edit leaves the file at the edit before or the edit after, never between.
WAL lets the CLI read a project the studio has open, and a reader open a crashed one;
each commit is then checkpointed into the .ovproj itself, so that the one file a person
copies or mails is the whole project, not its first edits with the rest in the -wal.
Undo and redo are kept in memory for the session: each edit stores the statements that
do it and the ones that undo it. Line order is a real-valued position, so inserting,
moving and deleting touch one row, and undoing them restores that row's value exactly.

Schema versions are ``PRAGMA user_version``; ``MIGRATIONS[n]`` takes version n to n + 1.

Long because every edit of the one file pairs its statements with their undo in
:class:`Project`, with the schema checks and migrations beside it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from studio.atomic import atomic_path, check_target
from studio.engine.lexicon import Lexicon
from studio.errors import UserError
from studio.safe_read import MB, check_regular, read_head, size_words
from studio.scripts.parse import (
    DEFAULT_SPEAKER,
    LINE_PAUSE_S,
    MAX_LINES,
    Line,
    Script,
    speaker_prefix,
)
from studio.scripts.project_checks import VOICE_KINDS, check_lead, check_line, check_speaker

PROJECT_SUFFIX = ".ovproj"
MAX_UNDO = 500
MAX_PROJECT_BYTES = 512 * MB  # 5,000 lines with every take listed is a few MB
MAX_SPEAKERS = 1_000
MAX_SETTINGS = 1_000
MAX_TAKES_LISTED = 10_000  # takes listed for one line
MAX_PROJECT_TAKES = 1_000_000  # take ids read for the whole project (the Takes filter)
# A read aborts after this many progress ticks (of 1,000 SQLite instructions each): over a
# hundred times what reading 5,000 lines takes, so only a runaway query meets it.
QUERY_BUDGET = 200_000
SQLITE_MAGIC = b"SQLite format 3\x00"

MIGRATIONS = (
    """
    CREATE TABLE speakers (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        kind TEXT NOT NULL, voice TEXT, instruct TEXT, seed INTEGER, clip TEXT,
        ref_text TEXT, language TEXT, colour TEXT NOT NULL DEFAULT '');
    CREATE TABLE lines (
        id INTEGER PRIMARY KEY, position REAL NOT NULL, speaker INTEGER NOT NULL
            REFERENCES speakers(id), text TEXT NOT NULL, language TEXT, speed REAL,
        steps INTEGER, seed INTEGER, pause_after REAL NOT NULL, duration REAL,
        chapter TEXT, take TEXT, rendered TEXT);
    CREATE INDEX lines_order ON lines(position);
    CREATE TABLE dictionary (
        id INTEGER PRIMARY KEY, word TEXT NOT NULL, say TEXT NOT NULL, language TEXT,
        exact_case INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # Every take rendered for a line, so the Script view can list them for pick and A/B
    # (the takes stay in the take library; the chosen one is still lines.take).
    """
    CREATE TABLE line_takes (
        line INTEGER NOT NULL, take TEXT NOT NULL, added REAL NOT NULL,
        PRIMARY KEY (line, take));
    INSERT INTO line_takes (line, take, added)
        SELECT id, take, 0 FROM lines WHERE take IS NOT NULL;
    """,
)
SCHEMA = len(MIGRATIONS)
_LINE_COLUMNS = ("SELECT id, position, speaker, text, pause_after, language, speed, steps, "
                 "seed, duration, chapter, take, rendered FROM lines")
_VOICE_FIELDS = ("voice", "instruct", "seed", "clip", "ref_text", "language")
COLOURS = ("#2b6cb0", "#c05621", "#2f855a", "#805ad5", "#b83280", "#2c7a7b", "#975a16")


def _check_file(path: Path) -> None:
    """Refuse a file that is not one of our projects before anything is written to it:
    not SQLite, too large, from a newer version, or holding objects our migrations did
    not make (a view where a table should be, a trigger) -- read through a read-only
    connection, so even a refused file is left byte for byte as it was."""
    size = path.stat().st_size
    if size > MAX_PROJECT_BYTES:
        raise UserError(f"The project {path} is larger than {size_words(MAX_PROJECT_BYTES)}; "
                        "it is not a project this version can open.")
    if size and read_head(path, 16, "project") != SQLITE_MAGIC:
        raise UserError(f"The project {path} is damaged or not a project (not a SQLite file).")
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA:
            raise UserError(f"The project {path} was saved by a newer OmniVoice Desktop; "
                            "update this one to open it.")
        found = _objects(db)
        if version == 0 and found:
            raise UserError(f"The file {path} is not an OmniVoice Desktop project.")
        if found and found != _expected_objects(version):
            raise UserError(f"The project {path} holds tables, views or triggers that "
                            "OmniVoice Desktop did not make; it was changed by another "
                            "program and is not opened.")
    finally:
        db.close()


# What SQLite raises on a damaged file; its message can quote the file's bytes, which
# Python then fails to decode.
_FAILURES = (sqlite3.DatabaseError, UnicodeDecodeError)


def _why(exc: Exception) -> str:
    """SQLite's reason, short and on one line (it can quote a damaged file's SQL)."""
    if isinstance(exc, UnicodeDecodeError):
        return "its structure holds bytes that are not text"
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return first if len(first) <= 80 else first[:77] + "..."


def _text(data: bytes) -> str | bytes:
    """SQLite text as str; text that is not UTF-8 stays bytes, which the checks refuse by
    name (the default factory raises from inside the fetch)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _objects(db: sqlite3.Connection) -> set[tuple]:
    db.text_factory = _text
    return set(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))


def _expected_objects(version: int) -> set[tuple]:
    """What ``MIGRATIONS[:version]`` make, to the letter of each object's SQL."""
    db = sqlite3.connect(":memory:")
    try:
        for migration in MIGRATIONS[:version]:
            db.executescript(migration)
        return _objects(db)
    finally:
        db.close()


@dataclass(frozen=True)
class Speaker:
    id: int
    name: str
    kind: str  # "voice" (a saved voice by name), "design" (instruct + seed), "clip"
    voice: str | None = None
    instruct: str | None = None
    seed: int | None = None
    clip: str | None = None
    ref_text: str | None = None
    language: str | None = None
    colour: str = ""


@dataclass(frozen=True)
class ProjectLine:
    id: int
    position: float
    speaker: int
    text: str
    pause_after: float
    language: str | None = None
    speed: float | None = None
    steps: int | None = None
    seed: int | None = None
    duration: float | None = None
    chapter: str | None = None
    take: str | None = None
    rendered: str | None = None  # what the take was rendered from (text and voice, JSON)


class Project:
    """An open ``.ovproj``; ``with Project.open(path) as project: ...``."""

    def __init__(self, path: Path, connection: sqlite3.Connection):
        self.path = path
        self._db = connection
        self._undo: list[tuple[list, list]] = []
        self._redo: list[tuple[list, list]] = []
        self._ticks = 0  # progress ticks of the query running now

    # ------------------------------------------------------------------ files
    @classmethod
    def create(cls, path: Path) -> Project:
        path = Path(path)
        if path.suffix.lower() != PROJECT_SUFFIX:
            raise UserError(f"A project file must end in {PROJECT_SUFFIX}; got {path.name}.")
        if path.exists():
            raise UserError(f"The project {path} already exists; open it or choose another name.")
        return cls._connect(path, create=True)

    @classmethod
    def open(cls, path: Path, read_only: bool = False) -> Project:
        """An existing project; with ``read_only`` nothing is written to it (not even the
        migration to this version, so only the reading methods may be used)."""
        path = Path(path)
        if not path.exists():
            raise UserError(f"The project {path} does not exist.")
        check_regular(path, "project")
        return cls._connect(path, create=False, read_only=read_only)

    @classmethod
    def _connect(cls, path: Path, create: bool, read_only: bool = False) -> Project:
        try:
            if not create:  # before any pragma or write: a file that is not ours stays as is
                _check_file(path)
            if read_only:
                db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                     isolation_level=None)
            else:
                db = sqlite3.connect(path, isolation_level=None)
            db.text_factory = _text
            project = cls(path, db)
            if not read_only:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                db.execute("PRAGMA foreign_keys=ON")
                version = db.execute("PRAGMA user_version").fetchone()[0]
                for n in range(version, SCHEMA):
                    db.executescript(f"BEGIN; {MIGRATIONS[n]} PRAGMA user_version={n + 1}; "
                                     "COMMIT;")
                project._checkpoint()
        except _FAILURES as exc:
            raise UserError(f"The project {path} is damaged or not a project "
                            f"({_why(exc)}).") from None
        db.set_progress_handler(project._tick, 1_000)
        return project

    def save_as(self, path: Path) -> None:
        """Write a complete copy of the project to ``path`` and carry on in it: later edits
        save there and undo keeps working (the copy has the same ids); the old file stays
        as it was. The copy is SQLite's backup of the open project, written under a temp
        name and renamed, so ``path`` is the whole copy or untouched."""
        path = Path(path).expanduser().absolute()
        if path.suffix.lower() != PROJECT_SUFFIX:
            raise UserError(f"A project file must end in {PROJECT_SUFFIX}; got {path.name}.")
        if path.exists() and path.resolve() == self.path.resolve():
            raise UserError(f"{path.name} is the open project, which already saves every "
                            "change as it is made.")
        check_target(path, "project")
        try:
            with atomic_path(path) as temp:
                copy = sqlite3.connect(temp)
                try:
                    self._db.backup(copy)
                finally:
                    copy.close()
                # A -wal left by a crash beside a replaced file would be replayed onto the copy.
                for suffix in ("-wal", "-shm", "-journal"):
                    Path(f"{path}{suffix}").unlink(missing_ok=True)
        except (OSError, *_FAILURES) as exc:
            raise UserError(f"The project could not be saved as {path} ({_why(exc)}); check "
                            "the disk and the folder's permissions.") from None
        fresh = Project._connect(path, create=False)
        fresh._db.set_progress_handler(self._tick, 1_000)
        self._db.close()
        self._db, self.path = fresh._db, path
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ reading
    def speakers(self) -> list[Speaker]:
        rows = self._rows("SELECT id, name, kind, voice, instruct, seed, clip, ref_text, "
                          "language, colour FROM speakers ORDER BY id", (), MAX_SPEAKERS,
                          "speakers")
        return [Speaker(*check_speaker(row, self.path)) for row in rows]

    def speaker(self, name: str) -> Speaker:
        found = [s for s in self.speakers() if s.name.lower() == name.lower()]
        if not found:
            raise UserError(f"The project has no speaker called {name}.")
        return found[0]

    def lines(self) -> list[ProjectLine]:
        rows = self._rows(f"{_LINE_COLUMNS} ORDER BY position, id", (), MAX_LINES, "lines")
        speakers = {s.id for s in self.speakers()}
        return [ProjectLine(*check_line(row, n, speakers, self.path))
                for n, row in enumerate(rows, 1)]

    def line(self, line_id: int) -> ProjectLine:
        """One line, read alone (an edit of each line of a long project stays linear)."""
        rows = self._rows(f"{_LINE_COLUMNS} WHERE id = ?", (line_id,), 1, "lines of one id")
        if not rows:
            raise UserError(f"The project has no line {line_id}.")
        before = self._rows("SELECT count(*) FROM lines WHERE position < ? OR "
                            "(position = ? AND id < ?)", (rows[0][1],) * 2 + (line_id,), 1,
                            "counts")
        speakers = {s.id for s in self.speakers()}
        return ProjectLine(*check_line(rows[0], before[0][0] + 1, speakers, self.path))

    def dictionary(self) -> Lexicon:
        from studio.engine.lexicon import MAX_ENTRIES

        rows = self._rows("SELECT word, say, language, exact_case FROM dictionary ORDER BY id",
                          (), MAX_ENTRIES, "dictionary entries")
        # The file's rows pass the checks a dictionary file does (one sentence naming the entry).
        data = [{"word": w, "say": s, "language": lang, "case": case}
                for w, s, lang, case in rows]
        for item in data:
            if isinstance(item["case"], int) and item["case"] in (0, 1):
                item["case"] = bool(item["case"])
            if item["language"] is None:
                del item["language"]
        return Lexicon.from_data(data, f"of the project {self.path}")

    def setting(self, key: str, default: str | None = None) -> str | None:
        rows = self._rows("SELECT value FROM settings WHERE key = ?", (key,), 1, "settings")
        if rows and not isinstance(rows[0][0], str):
            raise UserError(f"The setting {key!r} of the project {self.path} is not text; the "
                            "file was changed outside OmniVoice Desktop.")
        return rows[0][0] if rows else default

    def status(self, line: ProjectLine) -> str:
        """"not rendered", "done", or "stale" (its text or its speaker's voice changed)."""
        if line.take is None:
            return "not rendered"
        return "done" if line.rendered == self._fingerprint(line) else "stale"

    def stale_lines(self) -> list[ProjectLine]:
        return [line for line in self.lines() if self.status(line) != "done"]

    # ------------------------------------------------------------------ editing
    def add_speaker(self, name: str, kind: str, **voice) -> int:
        name = name.strip()
        if not name:
            raise UserError("A speaker needs a name.")
        if kind not in VOICE_KINDS:
            raise UserError(f"A speaker's voice is one of {', '.join(VOICE_KINDS)}; got {kind}.")
        if any(s.name.lower() == name.lower() for s in self.speakers()):
            raise UserError(f"The project already has a speaker called {name}.")
        new_id = self._next_id("speakers")
        colour = COLOURS[(new_id - 1) % len(COLOURS)]
        fields = {k: voice.get(k) for k in _VOICE_FIELDS}
        self._edit([("INSERT INTO speakers (id, name, kind, voice, instruct, seed, clip, "
                     "ref_text, language, colour) VALUES (?,?,?,?,?,?,?,?,?,?)",
                     (new_id, name, kind, *fields.values(), colour))],
                   [("DELETE FROM speakers WHERE id = ?", (new_id,))])
        return new_id

    def set_voice(self, speaker_id: int, kind: str, **voice) -> None:
        """Give a speaker another voice (its lines become stale)."""
        old = next(s for s in self.speakers() if s.id == speaker_id)
        keys = ("kind", "voice", "instruct", "seed", "clip", "ref_text", "language")
        new = {"kind": kind, **{k: voice.get(k) for k in keys[1:]}}
        sql = f"UPDATE speakers SET {', '.join(f'{k} = ?' for k in keys)} WHERE id = ?"
        self._edit([(sql, (*new.values(), speaker_id))],
                   [(sql, (*(getattr(old, k) for k in keys), speaker_id))])

    def add_line(self, speaker_id: int, text: str, *, after: int | None = None,
                 pause_after: float = LINE_PAUSE_S, **overrides) -> int:
        """A new line at the end, or right after line ``after``; returns its id."""
        position = self._position_after(after)
        new_id = self._next_id("lines")
        columns = ("language", "speed", "steps", "seed", "duration", "chapter")
        values = tuple(overrides.get(c) for c in columns)
        self._edit([(f"INSERT INTO lines (id, position, speaker, text, pause_after, "
                     f"{', '.join(columns)}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                     (new_id, position, speaker_id, text, pause_after, *values))],
                   [("DELETE FROM lines WHERE id = ?", (new_id,))])
        return new_id

    def set_line(self, line_id: int, **changes) -> None:
        """Change a line's text, speaker, pause or overrides (one undoable edit)."""
        allowed = ("speaker", "text", "pause_after", "language", "speed", "steps", "seed",
                   "duration", "chapter")
        unknown = set(changes) - set(allowed)
        if unknown:
            raise ValueError(f"unknown line fields {sorted(unknown)}")
        old = self.line(line_id)
        sql = f"UPDATE lines SET {', '.join(f'{k} = ?' for k in changes)} WHERE id = ?"
        self._edit([(sql, (*changes.values(), line_id))],
                   [(sql, (*(getattr(old, k) for k in changes), line_id))])

    def type_line(self, line_id: int, typed: str) -> None:
        """A line's text as a person typed it, read as an imported script's line is: a
        leading "Name: " (:func:`speaker_prefix`) makes Name the line's speaker (added to
        the cast when new, its voice still to be given) and the rest its text. One
        undoable edit; the voiceless Narrator a new script starts with leaves the cast in
        it when no line speaks for it any more."""
        named = speaker_prefix(typed)
        if named is None:
            self.set_line(line_id, text=typed)
            return
        name, words = named
        old = self.line(line_id)
        speakers = self.speakers()
        found = next((s for s in speakers if s.name.lower() == name.lower()), None)
        do, undo = [], []
        if found is None:
            speaker_id = self._next_id("speakers")
            do.append(("INSERT INTO speakers (id, name, kind, colour) VALUES (?, ?, ?, ?)",
                       (speaker_id, name, "design", COLOURS[(speaker_id - 1) % len(COLOURS)])))
            undo.append(("DELETE FROM speakers WHERE id = ?", (speaker_id,)))
        else:
            speaker_id = found.id
        sql = "UPDATE lines SET speaker = ?, text = ? WHERE id = ?"
        do.append((sql, (speaker_id, words, line_id)))
        undo.insert(0, (sql, (old.speaker, old.text, line_id)))
        left = next(s for s in speakers if s.id == old.speaker)
        if (left.id != speaker_id and left.name == DEFAULT_SPEAKER and left.kind == "design"
                and not left.instruct and not any(
                    line.speaker == left.id for line in self.lines() if line.id != line_id)):
            do.append(("DELETE FROM speakers WHERE id = ?", (left.id,)))
            undo.insert(0, ("INSERT INTO speakers (id, name, kind, voice, instruct, seed, "
                            "clip, ref_text, language, colour) VALUES (?,?,?,?,?,?,?,?,?,?)",
                            (left.id, left.name, left.kind, left.voice, left.instruct,
                             left.seed, left.clip, left.ref_text, left.language, left.colour)))
        self._edit(do, undo)

    def move_line(self, line_id: int, after: int | None) -> None:
        """Move a line to right after line ``after`` (None: to the start)."""
        old = self.line(line_id)
        others = [line for line in self.lines() if line.id != line_id]
        if after is None:
            position = (others[0].position - 1.0) if others else 1.0
        else:
            position = self._position_after(after, others)
        sql = "UPDATE lines SET position = ? WHERE id = ?"
        self._edit([(sql, (position, line_id))], [(sql, (old.position, line_id))])

    def delete_line(self, line_id: int) -> None:
        old = self.line(line_id)
        self._edit([("DELETE FROM lines WHERE id = ?", (line_id,))],
                   [("INSERT INTO lines (id, position, speaker, text, pause_after, language, "
                     "speed, steps, seed, duration, chapter, take, rendered) "
                     "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     (old.id, old.position, old.speaker, old.text, old.pause_after,
                      old.language, old.speed, old.steps, old.seed, old.duration, old.chapter,
                      old.take, old.rendered))])

    def choose_take(self, line_id: int, take_id: str | None) -> None:
        """The line's chosen take (its id in the take library), from the line as it is now.

        The take joins the line's takes for good (undo gives back the earlier choice but
        keeps the take listed: it is still in the take library)."""
        self.choose_takes({line_id: take_id})

    def choose_takes(self, choices: dict[int, str | None]) -> None:
        """:meth:`choose_take` for several lines as one edit: all are saved or none."""
        do, undo = [], []
        sql = "UPDATE lines SET take = ?, rendered = ? WHERE id = ?"
        for line_id, take_id in choices.items():
            old = self.line(line_id)
            stamp = self._fingerprint(old) if take_id is not None else None
            if take_id is not None:
                do.append(("INSERT OR IGNORE INTO line_takes (line, take, added) "
                           "VALUES (?, ?, julianday('now'))", (line_id, take_id)))
            do.append((sql, (take_id, stamp, line_id)))
            undo.append((sql, (old.take, old.rendered, line_id)))
        if do:
            self._edit(do, undo)

    def takes_of(self, line_id: int) -> list[str]:
        """Every take rendered for a line, oldest first."""
        rows = self._rows("SELECT take FROM line_takes WHERE line = ? ORDER BY added, rowid",
                          (line_id,), MAX_TAKES_LISTED, "takes for one line")
        return [row[0] for row in rows if isinstance(row[0], str)]

    def take_ids(self) -> set[str]:
        """Every take its lines use or have listed, whichever project file they were
        rendered for (a copy saved under a new name keeps its takes)."""
        rows = self._rows("SELECT take FROM line_takes UNION SELECT take FROM lines "
                          "WHERE take IS NOT NULL", (), MAX_PROJECT_TAKES, "takes")
        return {row[0] for row in rows if isinstance(row[0], str)}

    def set_dictionary(self, lexicon: Lexicon) -> None:
        old = self.dictionary()
        self._edit(self._dictionary_sql(lexicon), self._dictionary_sql(old))

    def set_setting(self, key: str, value: str) -> None:
        old = self.setting(key)
        undo = ([("DELETE FROM settings WHERE key = ?", (key,))] if old is None else
                [("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, old))])
        self._edit([("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                     (key, value))], undo)

    # ------------------------------------------------------------------ undo and redo
    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def newest_edit(self) -> object | None:
        """What stands for the edit Undo would take back next (None: none); the same object
        until an edit is made, undone or redone, so the window can tell which came later."""
        return self._undo[-1] if self._undo else None

    def forget_history(self) -> None:
        """Make what was done so far the starting point (a new project's first speaker and
        line are its creation, not an edit to undo)."""
        self._undo.clear()
        self._redo.clear()

    def undo(self) -> bool:
        if not self._undo:
            return False
        do, undo = self._undo.pop()
        self._run(undo)
        self._redo.append((do, undo))
        return True

    def redo(self) -> bool:
        if not self._redo:
            return False
        do, undo = self._redo.pop()
        self._run(do)
        self._undo.append((do, undo))
        return True

    # ------------------------------------------------------------------ scripts
    @classmethod
    def from_script(cls, path: Path, script: Script, voices: dict[str, dict] | None = None
                    ) -> Project:
        """A new project holding ``script``'s lines; speakers get ``voices[name]`` (a voice
        map entry) or, without one, a designed voice to be chosen later."""
        speakers, lowered = [], set()
        for n, name in enumerate(script.speakers, 1):
            if not name.strip() or name.strip().lower() in lowered:
                raise UserError(f"The speaker {name!r} of the script is empty or differs from "
                                "another only in case; give each speaker one spelling.")
            lowered.add(name.strip().lower())
            spec = dict((voices or {}).get(name) or {})
            kind = "voice" if "voice" in spec else "clip" if "ref" in spec else "design"
            if "ref" in spec:
                spec["clip"] = str(spec.pop("ref"))
            fields = tuple(spec.get(k) for k in _VOICE_FIELDS)
            speakers.append((n, name.strip(), kind, *fields, COLOURS[(n - 1) % len(COLOURS)]))
        ids = {name: n for n, name in enumerate(script.speakers, 1)}
        lines = [(n, float(n), ids[line.speaker], line.text, line.pause_after, line.duration,
                  line.chapter) for n, line in enumerate(script.lines, 1)]
        # One transaction for the whole script: an edit at a time (each a commit and a
        # full read of the lines to place the next) made a 5,000-line import quadratic.
        statements = [(f"INSERT INTO speakers (id, name, kind, {', '.join(_VOICE_FIELDS)}, "
                       "colour) VALUES (?,?,?,?,?,?,?,?,?,?)", row) for row in speakers]
        statements += [("INSERT INTO lines (id, position, speaker, text, pause_after, "
                        "duration, chapter) VALUES (?,?,?,?,?,?,?)", row) for row in lines]
        if script.lead:
            statements.append(("INSERT INTO settings (key, value) VALUES ('lead', ?)",
                               (repr(script.lead),)))
        project = cls.create(path)
        try:
            project._run(statements)  # no undo: an imported script starts a clean history
        except BaseException:
            project.close()
            Path(path).unlink(missing_ok=True)
            raise
        return project

    def to_script(self) -> tuple[Script, dict[str, dict]]:
        """The lines as a :class:`Script` and the speakers as a voice map."""
        names = {s.id: s for s in self.speakers()}
        lines = [Line(names[line.speaker].name, line.text, line.pause_after, line.chapter,
                      line.duration) for line in self.lines()]
        voices = {}
        for s in names.values():
            entry = {"voice": s.voice} if s.kind == "voice" else (
                {"ref": s.clip, "ref_text": s.ref_text} if s.kind == "clip" else
                {"instruct": s.instruct})
            if s.kind == "clip" and s.instruct:
                entry["instruct"] = s.instruct
            if s.seed is not None:
                entry["seed"] = s.seed
            if s.language:
                entry["language"] = s.language
            voices[s.name] = {k: v for k, v in entry.items() if v is not None}
        lead = check_lead(self.setting("lead", "0"), lines, self.path)
        return Script(lines, lead=lead), voices

    # ------------------------------------------------------------------ internals
    def _tick(self) -> int:
        self._ticks += 1
        return self._ticks > QUERY_BUDGET  # non-zero aborts the statement

    def _rows(self, sql: str, params: tuple, limit: int, what: str) -> list[tuple]:
        """At most ``limit`` rows, read within the query budget; one sentence past either."""
        self._ticks = 0
        try:
            rows = self._db.execute(f"{sql} LIMIT {limit + 1}", params).fetchall()
        except _FAILURES as exc:
            raise UserError(f"The project {self.path} cannot be read ({_why(exc)}); it is damaged "
                            "or was changed outside OmniVoice Desktop.") from None
        if len(rows) > limit:
            raise UserError(f"The project {self.path} has more than {limit:,} {what}; split "
                            "it into smaller projects.")
        return rows

    def _fingerprint(self, line: ProjectLine) -> str:
        speaker = next(s for s in self.speakers() if s.id == line.speaker)
        voice = (speaker.kind, speaker.voice, speaker.instruct, speaker.seed, speaker.clip,
                 speaker.ref_text, speaker.language)
        return json.dumps([line.text, line.language, line.speed, line.steps, line.seed,
                           line.duration, voice])

    def _dictionary_sql(self, lexicon: Lexicon) -> list:
        return [("DELETE FROM dictionary", ())] + [
            ("INSERT INTO dictionary (word, say, language, exact_case) VALUES (?,?,?,?)",
             (e.word, e.say, e.language, int(e.case))) for e in lexicon.entries]

    def _next_id(self, table: str) -> int:
        # Ids are never reused within a session's history, so an undone insert's id
        # cannot be taken by another row that a redo would then collide with.
        used = self._db.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]
        history = [p[1][0] for do, _ in self._undo + self._redo for p in do
                   if p[0].startswith(f"INSERT INTO {table} ")]
        return max([used, *history]) + 1

    def _position_after(self, after: int | None, lines: list[ProjectLine] | None = None) -> float:
        lines = self.lines() if lines is None else lines
        if not lines:
            return 1.0
        if after is None:
            return lines[-1].position + 1.0
        at = next((n for n, line in enumerate(lines) if line.id == after), None)
        if at is None:
            raise UserError(f"The project has no line {after}.")
        if at + 1 == len(lines):
            return lines[at].position + 1.0
        return (lines[at].position + lines[at + 1].position) / 2

    def _checkpoint(self) -> None:
        """Copy what the -wal holds into the .ovproj, so the file alone is the project.
        PASSIVE never waits: pages a reader (the CLI) still needs are copied by the next
        edit's checkpoint or at close; the edit itself is already committed, so a failed
        checkpoint (a full disk) is logged, not said as a lost edit."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except _FAILURES as exc:
            logging.getLogger(__name__).warning("checkpoint of %s failed: %s", self.path, exc)

    def _edit(self, do: list, undo: list) -> None:
        self._run(do)
        self._undo.append((do, undo))
        del self._undo[:-MAX_UNDO]
        self._redo.clear()

    def _run(self, statements: list) -> None:
        self._ticks = 0
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            raise UserError(f"That edit does not fit the project ({_why(exc)}).") from None
        except _FAILURES as exc:  # a full disk, a lock, a damaged file
            raise UserError(f"The project {self.path} cannot be saved ({_why(exc)}); check the "
                            "disk and that no other program holds it.") from None
        self._checkpoint()
