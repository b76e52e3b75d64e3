"""A project file made or changed by another program (issue 26, groups 10, 16 and 17):
objects the schema does not make, values that do not fit their columns, a SQLite file
that is not a project, and a long script imported in a bounded number of statements."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys

import pytest

from studio.errors import UserError
from studio.scripts.parse import Line, Script, parse_text
from studio.scripts.project import MIGRATIONS, SCHEMA, Project


@pytest.fixture
def made(tmp_path):
    """A two-line project on disk, closed."""
    path = tmp_path / "show.ovproj"
    with Project.create(path) as project:
        alice = project.add_speaker("Alice", "design", instruct="female", seed=3)
        project.add_line(alice, "Hello there.")
        project.add_line(alice, "How are you?", duration=2.0)
        project.set_setting("lead", "0.5")
    return path


def _change(path, *statements):
    db = sqlite3.connect(path)
    with db:
        for sql in statements:
            db.execute(sql)
    db.close()


def _read_all(path):
    with Project.open(path, read_only=True) as project:
        project.to_script()
        project.dictionary()


# -- group 10: objects the schema does not make ---------------------------------------

CRAFTED = {
    "a view in the place of a table": [
        "DROP TABLE lines",
        "CREATE VIEW lines AS SELECT 1 AS id, 1.0 AS position, 1 AS speaker, 'Hi.' AS text, "
        "0.3 AS pause_after, NULL AS language, NULL AS speed, NULL AS steps, NULL AS seed, "
        "NULL AS duration, NULL AS chapter, NULL AS take, NULL AS rendered"],
    "a recursive view without end": [
        "DROP TABLE lines",
        "CREATE VIEW lines AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT i AS id, i AS position, 1 AS speaker, 'Hi.' AS text, 0.3 AS pause_after, "
        "NULL AS language, NULL AS speed, NULL AS steps, NULL AS seed, NULL AS duration, "
        "NULL AS chapter, NULL AS take, NULL AS rendered FROM n"],
    "a trigger": [
        "CREATE TRIGGER grow AFTER UPDATE ON lines BEGIN "
        "INSERT INTO settings (key, value) VALUES (random(), zeroblob(1000000)); END"],
    "an extra column": ["ALTER TABLE lines ADD COLUMN extra TEXT"],
    "an extra table": ["CREATE TABLE notes (x)"],
    "an index of its own": ["CREATE INDEX mine ON lines(text)"],
}


@pytest.mark.parametrize("change", list(CRAFTED))
def test_a_project_with_objects_we_did_not_make_is_refused_unchanged(made, change):
    _change(made, *CRAFTED[change])
    before = made.read_bytes()
    for read_only in (True, False):
        with pytest.raises(UserError, match="did not make"):
            Project.open(made, read_only=read_only)
    assert made.read_bytes() == before


def test_a_crafted_project_is_one_sentence_from_script_render_at_once(made, tmp_path):
    _change(made, *CRAFTED["a recursive view without end"])
    done = subprocess.run([sys.executable, "-m", "studio", "script", "render", str(made),
                           "--out", str(tmp_path / "m.wav"), "--model", "x/y"],
                          env={**os.environ, "PYTHONPATH": os.getcwd()}, capture_output=True,
                          text=True, timeout=120)
    err = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(err) == 1 and "did not make" in err[0], done.stderr


def test_more_rows_than_a_project_can_hold_are_one_sentence(made):
    from studio.scripts.parse import MAX_LINES

    _change(made, "WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n "
                  f"WHERE i < {MAX_LINES + 10}) INSERT INTO lines (id, position, speaker, "
                  "text, pause_after) SELECT i, i, 1, 'x', 0 FROM n")
    with pytest.raises(UserError, match="more than 5,000 lines"):
        _read_all(made)


def test_our_own_projects_open_at_every_version(tmp_path):
    for version in range(SCHEMA + 1):
        path = tmp_path / f"v{version}.ovproj"
        db = sqlite3.connect(path)
        db.executescript("".join(MIGRATIONS[:version]) + f" PRAGMA user_version={version};")
        db.close()
        with Project.open(path) as project:
            assert project.lines() == []


# -- group 16: values that do not fit their columns ------------------------------------

BAD_VALUES = [
    ("UPDATE lines SET speed = 'fast' WHERE id = 1", 'Line 1 .* "speed"'),
    ("UPDATE lines SET speed = 1e300 WHERE id = 2", 'Line 2 .* "speed"'),
    ("UPDATE lines SET pause_after = -1 WHERE id = 2", 'Line 2 .* "pause_after"'),
    ("UPDATE lines SET pause_after = 1e12 WHERE id = 1", 'Line 1 .* "pause_after"'),
    ("UPDATE lines SET duration = 'long' WHERE id = 2", 'Line 2 .* "duration"'),
    ("UPDATE lines SET duration = 1e9 WHERE id = 2", 'Line 2 .* "duration"'),
    ("UPDATE lines SET text = x'00ff' WHERE id = 1", 'Line 1 .* "text"'),
    ("UPDATE lines SET steps = 2.5 WHERE id = 1", 'Line 1 .* "steps"'),
    ("UPDATE lines SET seed = -4 WHERE id = 1", 'Line 1 .* "seed"'),
    ("UPDATE lines SET take = x'0102' WHERE id = 1", 'Line 1 .* "take"'),
    ("UPDATE lines SET speaker = 99 WHERE id = 2", 'Line 2 .* "speaker"'),
    ("UPDATE lines SET position = 'first' WHERE id = 2", '"position"'),
    ("UPDATE speakers SET seed = 'lucky'", '"seed" of the speaker Alice'),
    ("UPDATE speakers SET kind = 'robot'", '"kind" of the speaker Alice'),
    ("UPDATE speakers SET instruct = x'07'", '"instruct" of the speaker Alice'),
    ("UPDATE speakers SET name = ''", "has the name ''"),
    ("UPDATE settings SET value = 'soon' WHERE key = 'lead'", "lead of 'soon'"),
    ("UPDATE settings SET value = '1e300' WHERE key = 'lead'", "lead of '1e300'"),
    ("UPDATE settings SET value = x'05' WHERE key = 'lead'", "'lead' .* is not text"),
    ("UPDATE lines SET pause_after = 80000", "keep a project within 24 hours"),
    ("INSERT INTO dictionary (word, say) VALUES (x'03', 'x')", "Entry 1 .* dictionary"),
    ("INSERT INTO dictionary (word, say, exact_case) VALUES ('a', 'b', 'yes')",
     "(?i)entry 1 of the pronunciation dictionary"),
]


@pytest.mark.parametrize("statement, says", BAD_VALUES)
def test_a_value_that_does_not_fit_its_column_is_one_sentence_naming_it(made, statement, says):
    _change(made, statement)
    with pytest.raises(UserError, match=says) as refused:
        _read_all(made)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("statement, says", BAD_VALUES[:3] + BAD_VALUES[12:13])
def test_script_render_says_the_bad_value_before_the_model_loads(made, tmp_path, cli,
                                                                 statement, says):
    _change(made, statement)
    code, _, stderr = cli("script", "render", made, "--out", tmp_path / "m.wav", "--model",
                          tmp_path / "no-model-here")
    assert code == 2 and len(stderr) == 1, stderr
    assert re.search(says, stderr[0]), stderr


# -- group 17: a SQLite file that is not a project is left as it was --------------------

def test_a_sqlite_file_that_is_not_a_project_is_refused_without_a_change(tmp_path):
    path = tmp_path / "notes.ovproj"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE notes (x); INSERT INTO notes VALUES ('mine');")
    db.close()
    before = path.read_bytes()
    with pytest.raises(UserError, match="not an OmniVoice Desktop project"):
        Project.open(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.ovproj"]


# -- group 17: a long script imports in a bounded number of statements ------------------

def test_a_5000_line_script_imports_in_one_transaction_without_rereading_lines(tmp_path,
                                                                                monkeypatch):
    """Each line was its own edit: a commit (an fsync) and a read of every line so far to
    place the next -- 5,000 of each, quadratic in rows read. Now: one transaction."""
    statements: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        db = connect(*args, **kwargs)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", traced)
    script = parse_text("\n".join(f"{('Alice', 'Bob', 'Carol')[n % 3]}: Line {n}."
                                  for n in range(5000)))
    with Project.from_script(tmp_path / "long.ovproj", script) as project:
        monkeypatch.setattr(sqlite3, "connect", connect)
        assert len(project.lines()) == 5000
    during = statements[:statements.index("COMMIT") + 1] if "COMMIT" in statements else []
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")
             and " FROM lines" in s]
    commits = [s for s in statements if s.strip().upper() == "COMMIT"]
    assert during, "the import commits"
    assert len(reads) <= 2 and len(commits) <= 3, (len(reads), len(commits))


def test_an_imported_script_comes_back_as_it_was(tmp_path):
    script = Script([Line("Alice", "One.", 0.5, "Intro", None), Line("Bob", "Two.", 0.0, None,
                                                                      1.5)], lead=2.0)
    with Project.from_script(tmp_path / "p.ovproj", script,
                             {"Bob": {"ref": tmp_path / "bob.wav", "ref_text": "Bob."}}) as p:
        back, voices = p.to_script()
        assert not p.can_undo()
    assert back.lines == script.lines and back.lead == 2.0
    assert voices["Bob"] == {"ref": str(tmp_path / "bob.wav"), "ref_text": "Bob."}
    with pytest.raises(UserError, match="one spelling"):
        Project.from_script(tmp_path / "q.ovproj", parse_text("Al: x\nal: y"))
    assert not (tmp_path / "q.ovproj").exists()


def test_a_read_past_the_query_budget_is_aborted_with_one_sentence(tmp_path, monkeypatch):
    """The progress handler is the last bound: whatever a file makes SQLite do, a read
    stops after QUERY_BUDGET ticks (here cut to one, so 500 lines are past it)."""
    import studio.scripts.project as project_module

    path = tmp_path / "long.ovproj"
    Project.from_script(path, parse_text("\n".join(f"Line {n}." for n in range(500)))).close()
    monkeypatch.setattr(project_module, "QUERY_BUDGET", 1)
    with Project.open(path, read_only=True) as project:
        with pytest.raises(UserError, match="cannot be read .*interrupted"):
            project.lines()
    monkeypatch.undo()
    with Project.open(path, read_only=True) as project:
        assert len(project.lines()) == 500
