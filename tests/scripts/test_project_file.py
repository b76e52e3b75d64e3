"""A project is its one .ovproj file: a copy of that file alone (no -wal, no -shm) holds
every edit while the studio has it open, and Save as writes a complete copy, atomically,
and carries on in it."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from studio.errors import UserError
from studio.scripts.project import Project


def copy_alone(path, folder):
    """The .ovproj as a person copies it: the one file, without its -wal and -shm."""
    folder.mkdir()
    copy = folder / path.name
    shutil.copyfile(path, copy)
    return copy


def texts(path) -> list[str]:
    with Project.open(path, read_only=True) as project:
        return [line.text for line in project.lines()]


def test_a_copy_of_the_file_alone_has_every_edit_while_the_project_is_open(tmp_path):
    path = tmp_path / "scene.ovproj"
    with Project.create(path) as project:
        anna = project.add_speaker("Anna", "design", instruct="female")
        first = project.add_line(anna, "Every edit is in the file.")
        project.add_line(anna, "Even the last one.")
        project.set_line(first, text="Every edit is in the one file.")
        copy = copy_alone(path, tmp_path / "mailed")
        assert texts(copy) == ["Every edit is in the one file.", "Even the last one."]
        project.undo()  # an undo is an edit like any other
        assert texts(copy_alone(path, tmp_path / "again")) == ["Every edit is in the file.",
                                                               "Even the last one."]


def test_an_imported_script_is_in_the_file_alone(tmp_path):
    from studio.scripts.parse import parse_text

    path = tmp_path / "imported.ovproj"
    with Project.from_script(path, parse_text("Anna: One.\nBen: Two.\n")):
        assert texts(copy_alone(path, tmp_path / "copy")) == ["One.", "Two."]


def test_save_as_writes_a_complete_copy_and_carries_on_in_it(tmp_path):
    path, other = tmp_path / "scene.ovproj", tmp_path / "elsewhere" / "final.ovproj"
    other.parent.mkdir()
    with Project.create(path) as project:
        anna = project.add_speaker("Anna", "design", instruct="female")
        line = project.add_line(anna, "Before the copy.")
        project.save_as(other)
        assert project.path == other
        project.set_line(line, text="After the copy.")
        assert texts(copy_alone(other, tmp_path / "mailed")) == ["After the copy."]
        assert texts(path) == ["Before the copy."]  # the old file is left as it was
        assert project.undo() and [x.text for x in project.lines()] == ["Before the copy."]
    assert sorted(p.name for p in other.parent.iterdir()) == ["final.ovproj"]  # no temp left


def test_save_as_over_a_file_with_a_stale_wal_keeps_the_copy_intact(tmp_path):
    """A -wal left beside the replaced file (a crash) must not be replayed onto the copy."""
    path, target = tmp_path / "scene.ovproj", tmp_path / "old.ovproj"
    with Project.create(target) as old:
        old.add_speaker("Zed", "design")
        db = sqlite3.connect(target)  # a second connection keeps the -wal when old closes
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("INSERT INTO settings (key, value) VALUES ('stale', 'yes')")
        shutil.copyfile(f"{target}-wal", tmp_path / "stale-wal")
    db.close()
    with Project.create(path) as project:
        project.add_speaker("Anna", "design")
        shutil.copyfile(tmp_path / "stale-wal", f"{target}-wal")
        project.save_as(target)
        assert [s.name for s in project.speakers()] == ["Anna"]
        assert project.setting("stale") is None


def test_save_as_refuses_in_one_sentence_and_keeps_the_project_open(tmp_path):
    path = tmp_path / "scene.ovproj"
    with Project.create(path) as project:
        project.add_speaker("Anna", "design")
        for target, words in ((path, "already saves"),
                              (tmp_path / "scene.txt", "must end in .ovproj"),
                              (tmp_path / "missing" / "x.ovproj", "does not exist")):
            with pytest.raises(UserError, match=words) as caught:
                project.save_as(target)
            assert "\n" not in str(caught.value)
            assert project.path == path and [s.name for s in project.speakers()] == ["Anna"]
        assert not (tmp_path / "scene.txt").exists()
        project.add_speaker("Ben", "design")  # still saving to its own file
    assert [s.name for s in Project.open(path, read_only=True).speakers()] == ["Anna", "Ben"]


def test_a_reader_holding_the_project_delays_the_file_but_never_an_edit(tmp_path):
    """WAL is kept so the CLI can read a project the studio has open: the checkpoint after
    an edit never waits for such a reader; the next edit after it has gone completes the
    file."""
    import time

    path = tmp_path / "scene.ovproj"
    with Project.create(path) as project:
        anna = project.add_speaker("Anna", "design")
        reader = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM lines").fetchall()  # a snapshot held open
        project._db.execute("PRAGMA busy_timeout = 120000")  # a checkpoint that waited: 2 min
        start = time.monotonic()
        project.add_line(anna, "Written while a reader holds the file.")
        assert time.monotonic() - start < 60  # it did not wait for the reader
        reader.execute("COMMIT")
        reader.close()
        project.add_line(anna, "And the next one.")
        assert texts(copy_alone(path, tmp_path / "copy")) == [
            "Written while a reader holds the file.", "And the next one."]
