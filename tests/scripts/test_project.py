"""The .ovproj project file: every edit saved at once, undone and redone exactly, and a
kill in the middle of saving leaves a project that opens at one edit or the next."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from studio.engine.lexicon import Entry, Lexicon
from studio.errors import UserError
from studio.scripts.parse import parse_text
from studio.scripts.project import SCHEMA, Project


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "show.ovproj") as p:
        yield p


def state(project: Project):
    return ([(s.name, s.kind, s.instruct, s.seed) for s in project.speakers()],
            [(line.speaker, line.text, line.pause_after, line.take) for line in project.lines()],
            [(e.word, e.say) for e in project.dictionary().entries])


def test_every_edit_undoes_and_redoes_to_the_same_state(project):
    states = [state(project)]
    alice = project.add_speaker("Alice", "design", instruct="female", seed=3)
    states.append(state(project))
    bob = project.add_speaker("Bob", "voice", voice="Bob's voice")
    states.append(state(project))
    one = project.add_line(alice, "Hello.")
    two = project.add_line(bob, "Hi there.")
    three = project.add_line(alice, "Between.", after=one)
    states += [state(project)]
    project.set_line(two, text="Hi, Alice.", pause_after=0.8)
    project.move_line(three, after=two)
    project.delete_line(one)
    project.choose_take(two, "take-123")
    project.set_voice(bob, "design", instruct="male")
    project.set_dictionary(Lexicon([Entry("Alice", "Aleece")]))
    final = state(project)
    edits = 0
    while project.undo():
        edits += 1
    assert state(project) == states[0] and edits == 11
    while project.redo():
        pass
    assert state(project) == final
    assert [line.text for line in project.lines()] == ["Hi, Alice.", "Between."]


def test_the_project_on_disk_is_every_edit_at_once(tmp_path, project):
    alice = project.add_speaker("Alice", "design", instruct="female")
    project.add_line(alice, "Saved without a save button.")
    with Project.open(tmp_path / "show.ovproj") as again:  # a second reader sees it now
        assert [line.text for line in again.lines()] == ["Saved without a save button."]


def test_a_line_is_stale_when_its_text_or_its_voice_changes(project):
    alice = project.add_speaker("Alice", "design", instruct="female", seed=1)
    line = project.add_line(alice, "Hello.")
    assert project.status(project.line(line)) == "not rendered"
    project.choose_take(line, "t1")
    assert project.status(project.line(line)) == "done"
    project.set_line(line, text="Hello!")
    assert project.status(project.line(line)) == "stale"
    project.undo()
    assert project.status(project.line(line)) == "done"
    project.set_voice(alice, "design", instruct="female", seed=2)
    assert [x.id for x in project.stale_lines()] == [line]


def test_a_script_imports_and_comes_back_with_its_voices(tmp_path):
    script = parse_text("# One\nAlice: Hello.\nBob: Hi.\n\nAlice: Bye.", markdown=True)
    voices = {"Alice": {"instruct": "female", "seed": 4}, "Bob": {"voice": "Robert"}}
    with Project.from_script(tmp_path / "s.ovproj", script, voices) as project:
        again, their_voices = project.to_script()
        assert not project.can_undo()
    assert [(ln.speaker, ln.text, ln.pause_after, ln.chapter) for ln in again.lines] == [
        (ln.speaker, ln.text, ln.pause_after, ln.chapter) for ln in script.lines]
    assert their_voices == voices


def test_names_files_and_versions_are_checked(tmp_path, project):
    project.add_speaker("Alice", "design", instruct="x")
    with pytest.raises(UserError, match="already has a speaker"):
        project.add_speaker("alice", "design")
    with pytest.raises(UserError, match="must end in .ovproj"):
        Project.create(tmp_path / "x.txt")
    with pytest.raises(UserError, match="already exists"):
        Project.create(tmp_path / "show.ovproj")
    newer = tmp_path / "newer.ovproj"
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version={SCHEMA + 1}")
    with pytest.raises(UserError, match="newer OmniVoice Desktop"):
        Project.open(newer)
    junk = tmp_path / "junk.ovproj"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(UserError, match="damaged or not a project"):
        Project.open(junk)


WRITER = """
import sys
from studio.scripts.project import Project
with Project.open(sys.argv[1]) as project:
    speaker = project.speakers()[0].id
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        line = project.add_line(speaker, f"Line {n} " + "words " * 50)
        project.set_line(line, pause_after=0.5)
"""


def test_a_project_survives_a_kill_in_the_middle_of_saving(tmp_path):
    path = tmp_path / "killed.ovproj"
    with Project.create(path) as project:
        project.add_speaker("Alice", "design", instruct="female")
    for kills, delay in enumerate((0.3, 0.7, 1.1), 1):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)],
                                  stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(delay)
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with Project.open(path) as project:
            lines = project.lines()
            assert lines, "some edits were saved before the kill"
            # Each line is added, then its pause set: only a line added just before a kill
            # may lack the pause (one per kill), and no line is half-written.
            assert sum(line.pause_after != 0.5 for line in lines) <= kills
            assert all(line.text.startswith("Line ") and line.text.endswith("words ")
                       for line in lines)


def test_a_version_1_project_opens_with_its_chosen_takes_listed(tmp_path):
    from studio.scripts.project import MIGRATIONS

    old = tmp_path / "old.ovproj"
    with sqlite3.connect(old) as db:
        db.executescript(f"{MIGRATIONS[0]} PRAGMA user_version=1;")
    with Project.open(old) as project:  # made as a version 1 project would be, then filled
        alice = project.add_speaker("Alice", "design", instruct="female", seed=1)
        first = project.add_line(alice, "One.")
        second = project.add_line(alice, "Two.")
    with sqlite3.connect(old) as db:  # back to version 1: no line_takes, a chosen take
        db.executescript("DROP TABLE line_takes; PRAGMA user_version=1;")
        db.execute("UPDATE lines SET take = 'take-a' WHERE id = ?", (first,))
    with Project.open(old) as project:
        assert project.takes_of(first) == ["take-a"] and project.takes_of(second) == []
        project.choose_take(second, "take-b")
        project.choose_take(second, "take-c")
        assert project.takes_of(second) == ["take-b", "take-c"]
        assert project.undo() and project.line(second).take == "take-b"
        assert project.takes_of(second) == ["take-b", "take-c"], "undo keeps the take listed"
    with sqlite3.connect(old) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA == 2
