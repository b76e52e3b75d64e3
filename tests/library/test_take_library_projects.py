"""Takes of a script are filed under its project (issue 25, finding 14): the library lists
one project's takes, or only the Clone and Design ones, and names the projects it has."""

from __future__ import annotations

from dataclasses import replace

import pytest
from takes_helpers import RATE, RUN, make_settings, tone

from studio.library.project_takes import ProjectTakes
from studio.library.session_takes import SessionTakes, TakeShelf, new_unsaved_id
from studio.library.takes import NO_PROJECT, TakeLibrary
from studio.scripts.project import Project


@pytest.fixture
def lib(tmp_path):
    library = TakeLibrary(tmp_path / "data")
    yield library
    library.close()


def keep(lib, text, project=None, line=None, batch="b"):
    settings = replace(make_settings(text), project=project, project_line=line)
    return lib.add(settings, RUN, tone(), RATE, batch=batch)


def test_takes_list_by_project_and_clone_and_design_apart(lib, tmp_path):
    radio, book = str(tmp_path / "radio.ovproj"), str(tmp_path / "book.ovproj")
    solo = keep(lib, "A clone take.")
    lines = [keep(lib, f"Line {n}.", radio, n, batch=f"r{n}") for n in (1, 2, 3)]
    chapter = keep(lib, "Chapter one.", book, 1)
    assert [t.id for t in lib.list(project=radio)] == [t.id for t in reversed(lines)]
    assert [t.id for t in lib.list(project=NO_PROJECT)] == [solo.id]
    assert len(lib.list()) == 5
    assert lib.projects() == [book, radio]  # the latest rendered in first
    again = lib.get(lines[1].id)
    assert again.settings.project == radio and again.settings.project_line == 2
    assert [t.id for t in lib.list("chapter", project=book)] == [chapter.id]


def test_takes_kept_before_projects_count_as_clone_and_design(lib):
    old = lib.add(make_settings("Kept long ago."), RUN, tone(), RATE, batch="old")
    assert old.settings.project is None
    assert [t.id for t in lib.list(project=NO_PROJECT)] == [old.id]
    assert lib.projects() == []


def test_the_shelf_filters_unsaved_takes_by_project_too(lib, tmp_path):
    radio = str(tmp_path / "radio.ovproj")
    session = SessionTakes()
    saved = keep(lib, "Saved line.", radio, 1)
    unsaved = session.add(replace(saved, id=new_unsaved_id(), settings=replace(
        saved.settings, project=str(tmp_path / "other.ovproj"))), tone(), RATE)
    shelf = TakeShelf(lib, session)
    assert [t.id for t in shelf.list(project=radio)] == [saved.id]
    assert [t.id for t in shelf.list(project=str(tmp_path / "other.ovproj"))] == [unsaved.id]
    assert shelf.list(project=NO_PROJECT) == []
    assert set(shelf.projects()) == {radio, str(tmp_path / "other.ovproj")}


def test_a_project_saved_under_a_new_name_still_lists_its_takes(lib, tmp_path):
    """Second review, item 2: Save project as… kept the lines' takes (by id) but the takes
    stay filed under the first file's path, so the copy listed "0 takes shown"."""
    first = tmp_path / "dialogue.ovproj"
    with Project.create(first) as project:
        anna = project.add_speaker("Anna", "design", instruct="female")
        lines = [project.add_line(anna, f"Line {n}.") for n in (1, 2)]
        takes = [keep(lib, f"Line {n}.", str(first), n, batch=f"d{n}") for n in (1, 2)]
        again = keep(lib, "Line 1.", str(first), 1, batch="again")  # a second take of line 1
        project.choose_takes({lines[0]: takes[0].id, lines[1]: takes[1].id})
        project.choose_take(lines[0], again.id)
        other = keep(lib, "Another script's line.", str(tmp_path / "book.ovproj"), 1)
        copy = tmp_path / "for-client.ovproj"
        project.save_as(copy)
        ids = project.take_ids()
    assert ids == {takes[0].id, takes[1].id, again.id}
    theirs = [again.id, takes[1].id, takes[0].id]  # newest first
    assert [t.id for t in lib.list(project=str(copy))] == [], "filed under the first file"
    assert [t.id for t in lib.list(project=ProjectTakes.of(str(copy), ids))] == theirs
    assert [t.id for t in lib.list(project=ProjectTakes.of(str(first), ids))] == theirs
    assert [t.id for t in lib.list(project=str(first))] == theirs, "the original keeps them"
    assert other.id not in {t.id for t in lib.list(project=ProjectTakes.of(str(copy), ids))}
    assert [t.id for t in lib.list("again", project=ProjectTakes.of(str(copy), ids))] == []
    # A take rendered in the copy since is filed under it; an unsaved one reads the same rule.
    later = keep(lib, "Line 3.", str(copy), 3, batch="later")
    session = SessionTakes()
    unsaved = session.add(replace(takes[0], id=new_unsaved_id()), tone(), RATE)
    shelf = TakeShelf(lib, session)
    listed = [t.id for t in shelf.list(project=ProjectTakes.of(str(copy), ids | {unsaved.id}))]
    assert listed == [unsaved.id, later.id, *theirs]


def test_thousands_of_project_take_ids_pass_as_one_parameter(lib, tmp_path):
    """More ids than SQLite allows parameters (32,766) still read in one query."""
    kept = keep(lib, "Line 1.", str(tmp_path / "a.ovproj"), 1)
    ids = {f"{n:032x}" for n in range(40_000)} | {kept.id}
    assert [t.id for t in lib.list(project=ProjectTakes.of(str(tmp_path / "b.ovproj"), ids))] \
        == [kept.id]
