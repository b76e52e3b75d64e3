"""Takes of a script are filed under its project (issue 25, finding 14): the library lists
one project's takes, or only the Clone and Design ones, and names the projects it has."""

from __future__ import annotations

from dataclasses import replace

import pytest
from takes_helpers import RATE, RUN, make_settings, tone

from studio.library.session_takes import SessionTakes, TakeShelf, new_unsaved_id
from studio.library.takes import NO_PROJECT, TakeLibrary


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
