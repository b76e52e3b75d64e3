"""A line with no text yet (one just added in the studio, review 9 item 1) is kept in
the project and opens again, but a render or an export refuses it in one sentence
before any line renders, rather than make a take of nothing."""

from __future__ import annotations

import pytest

from studio.errors import UserError
from studio.scripts.export import plan_mix, project_mix
from studio.scripts.project import Project
from studio.scripts.render import render_script

NO_TEXT = "Line 2 has no text yet; type what it says, or delete it."


@pytest.fixture
def path(tmp_path):
    """A project of a spoken line, then an empty one."""
    path = tmp_path / "play.ovproj"
    with Project.create(path) as project:
        narrator = project.add_speaker("Narrator", "design", instruct="female")
        project.add_line(narrator, "Hello.")
        project.add_line(narrator, "")
    return path


def test_an_empty_line_is_kept_and_the_project_opens_again(path):
    with Project.open(path, read_only=True) as project:
        assert [line.text for line in project.lines()] == ["Hello.", ""]


class Unused:
    def __getattr__(self, name):
        raise AssertionError(f"the engine was asked for {name}")


def test_a_render_refuses_an_empty_line_before_rendering_any(path):
    with Project.open(path, read_only=True) as project:
        script, _voices = project.to_script()
    with pytest.raises(UserError) as refused:
        render_script(Unused(), script, {}, options=None)
    assert str(refused.value) == NO_TEXT


def test_an_export_says_the_line_has_no_text_not_that_it_needs_a_render(tmp_path):
    with Project.create(tmp_path / "empty.ovproj") as project:
        narrator = project.add_speaker("Narrator", "design", instruct="female")
        project.add_line(narrator, "")
        project.add_line(narrator, "Hello.")
        assert plan_mix(project).takes == (None, None)
        with pytest.raises(UserError) as refused:
            project_mix(project, None)
    assert str(refused.value) == "Line 1 has no text yet; type what it says, or delete it."
