"""Review 8, item 2: a take deleted in the Takes panel while a script line used it stayed
the line's take: the line said "Take 1 of 1", and the export mixed it and wrote it in the
subtitles. A deleted take is no line's take (the line is not rendered, or keeps its other
takes); restoring it gives it back to the line."""

from __future__ import annotations

import pytest

from studio.errors import UserError
from studio.library.takes import TakeLibrary
from studio.scripts.export import export_project, plan_mix, project_mix
from studio.scripts.line_takes import LineTakes
from studio.scripts.project import Project
from tests.views.take_fixtures import RATE, RUN, settings, voice


@pytest.fixture
def scene(tmp_path):
    """(project, library, {name: take id}): line 1 has takes one_a and one_b (one_b chosen),
    line 2 its only take two."""
    with Project.create(tmp_path / "scene.ovproj") as project, \
            TakeLibrary(tmp_path / "data") as library:
        alice = project.add_speaker("Alice", "design", instruct="female", seed=1)
        first = project.add_line(alice, "One.")
        second = project.add_line(alice, "Two.")

        def keep(text, seed):
            return library.add(settings(text, seed), RUN, voice(0.5), RATE, batch=f"b{seed}").id

        ids = {"one_a": keep("One.", 1), "one_b": keep("One.", 2), "two": keep("Two.", 3)}
        for line, take in ((first, "one_a"), (first, "one_b"), (second, "two")):
            project.choose_take(line, ids[take])
        yield project, library, ids


def test_a_deleted_only_take_leaves_its_line_not_rendered_and_undelete_gives_it_back(scene):
    project, library, ids = scene
    first, second = project.lines()
    library.delete(ids["two"])
    owned = LineTakes(project, library)
    assert owned.chosen(second) is None
    assert owned.listed(second.id) == []
    assert owned.status(second) == "not rendered"
    assert owned.status(first) == "done", "the other line keeps its take"
    library.undelete(ids["two"])
    owned = LineTakes(project, library)
    assert owned.chosen(second) == ids["two"] and owned.status(second) == "done"
    assert owned.listed(second.id) == [ids["two"]]


def test_a_line_whose_chosen_take_is_deleted_keeps_its_other_takes_and_none_chosen(scene):
    project, library, ids = scene
    first, _second = project.lines()
    library.delete([ids["one_b"]])
    owned = LineTakes(project, library)
    assert owned.listed(first.id) == [ids["one_a"]]
    assert owned.chosen(first) is None, "another take is not chosen behind the user's back"


def test_the_mix_and_the_export_leave_a_deleted_take_out(scene, tmp_path):
    project, library, ids = scene
    library.delete([ids["two"]])
    assert plan_mix(project, library).takes == (ids["one_b"], None)
    script, _rendered, _rate = project_mix(project, library, missing="skip")
    assert [line.text for line in script.lines] == ["One."]
    with pytest.raises(UserError, match="Line 2 has no take yet"):
        export_project(project, library, tmp_path / "scene.wav")
    assert not (tmp_path / "scene.wav").exists()
    library.undelete([ids["two"]])
    written = export_project(project, library, tmp_path / "scene.wav")
    srt = next(p for p in written if p.suffix == ".srt").read_text(encoding="utf-8")
    assert "One." in srt and "Two." in srt


def test_a_pruned_take_is_no_lines_take_and_no_library_judges_nothing(scene):
    project, library, ids = scene
    _first, second = project.lines()
    library.remove([ids["two"]])
    assert LineTakes(project, library).chosen(second) is None
    assert LineTakes(project, None).chosen(second) == ids["two"], \
        "without a library nothing says the take is gone"
