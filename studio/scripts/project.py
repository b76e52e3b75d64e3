"""A script project: one ``.ovproj`` file (SQLite), saved on every edit, with undo and redo.

Speakers (a saved voice, a designed voice as an instruct with a locked seed, or a clip),
lines in order (speaker, text, per-line overrides, the pause after, the chosen take by
its id in the take library), a pronunciation dictionary and export settings.

Every edit is one SQLite transaction, committed at once (WAL, synchronous FULL): a crash
or a kill mid-edit leaves the file at the edit before or the edit after, never between.
Undo and redo are kept in memory for the session: each edit stores the statements that
do it and the ones that undo it. Line order is a real-valued position, so inserting,
moving and deleting touch one row, and undoing them restores that row's value exactly.

Schema versions are ``PRAGMA user_version``; ``MIGRATIONS[n]`` takes version n to n + 1.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from studio.engine.errors import UserError
from studio.engine.lexicon import Entry, Lexicon
from studio.scripts.parse import LINE_PAUSE_S, Line, Script

PROJECT_SUFFIX = ".ovproj"
VOICE_KINDS = ("voice", "design", "clip")
MAX_UNDO = 500

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
COLOURS = ("#2b6cb0", "#c05621", "#2f855a", "#805ad5", "#b83280", "#2c7a7b", "#975a16")


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
    def open(cls, path: Path) -> Project:
        path = Path(path)
        if not path.is_file():
            raise UserError(f"The project {path} does not exist.")
        return cls._connect(path, create=False)

    @classmethod
    def _connect(cls, path: Path, create: bool) -> Project:
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA:
                db.close()
                raise UserError(f"The project {path} was saved by a newer OmniVoice Desktop; "
                                "update this one to open it.")
            if not create and version == 0 and db.execute(
                    "SELECT count(*) FROM sqlite_master").fetchone()[0]:
                db.close()
                raise UserError(f"The file {path} is not an OmniVoice Desktop project.")
            for n in range(version, SCHEMA):
                db.executescript(f"BEGIN; {MIGRATIONS[n]} PRAGMA user_version={n + 1}; COMMIT;")
        except sqlite3.DatabaseError as exc:
            raise UserError(f"The project {path} is damaged or not a project ({exc}).") from None
        return cls(path, db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ reading
    def speakers(self) -> list[Speaker]:
        rows = self._db.execute("SELECT id, name, kind, voice, instruct, seed, clip, ref_text, "
                                "language, colour FROM speakers ORDER BY id")
        return [Speaker(*row) for row in rows]

    def speaker(self, name: str) -> Speaker:
        found = [s for s in self.speakers() if s.name.lower() == name.lower()]
        if not found:
            raise UserError(f"The project has no speaker called {name}.")
        return found[0]

    def lines(self) -> list[ProjectLine]:
        rows = self._db.execute("SELECT id, position, speaker, text, pause_after, language, "
                                "speed, steps, seed, duration, chapter, take, rendered "
                                "FROM lines ORDER BY position, id")
        return [ProjectLine(*row) for row in rows]

    def line(self, line_id: int) -> ProjectLine:
        found = [line for line in self.lines() if line.id == line_id]
        if not found:
            raise UserError(f"The project has no line {line_id}.")
        return found[0]

    def dictionary(self) -> Lexicon:
        rows = self._db.execute("SELECT word, say, language, exact_case FROM dictionary "
                                "ORDER BY id")
        return Lexicon(Entry(w, s, lang, bool(case)) for w, s, lang, case in rows)

    def setting(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

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
        fields = {k: voice.get(k) for k in ("voice", "instruct", "seed", "clip", "ref_text",
                                             "language")}
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
        return [row[0] for row in self._db.execute(
            "SELECT take FROM line_takes WHERE line = ? ORDER BY added, rowid", (line_id,))]

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
        project = cls.create(path)
        try:
            ids = {}
            for name in script.speakers:
                spec = dict((voices or {}).get(name) or {})
                kind = "voice" if "voice" in spec else "clip" if "ref" in spec else "design"
                if "ref" in spec:
                    spec["clip"] = str(spec.pop("ref"))
                ids[name] = project.add_speaker(name, kind, **spec)
            for line in script.lines:
                project.add_line(ids[line.speaker], line.text, pause_after=line.pause_after,
                                 duration=line.duration, chapter=line.chapter)
            if script.lead:
                project.set_setting("lead", repr(script.lead))
            project._undo.clear()  # an imported script starts with a clean history
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
        lead = float(self.setting("lead", "0") or 0)
        return Script(lines, lead=lead), voices

    # ------------------------------------------------------------------ internals
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

    def _edit(self, do: list, undo: list) -> None:
        self._run(do)
        self._undo.append((do, undo))
        del self._undo[:-MAX_UNDO]
        self._redo.clear()

    def _run(self, statements: list) -> None:
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
            raise UserError(f"That edit does not fit the project ({exc}).") from None
        except sqlite3.OperationalError as exc:
            raise UserError(f"The project {self.path} cannot be saved ({exc}); check the disk "
                            "and that no other program holds it.") from None
