"""Review 8, item 10: typing "Alice: Hello" into a line left "Alice:" in the text and the
Narrator speaking it, though the hint says such lines make speakers. A typed line is read
by the rule an imported script follows: the name becomes the line's speaker (new ones join
the cast), the rest its text, in one undoable edit; the voiceless Narrator a new script
starts with leaves the cast when no line speaks for it any more."""

from __future__ import annotations

import pytest

from studio.scripts.parse import parse_text, speaker_prefix
from studio.scripts.project import Project


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "play.ovproj") as project:
        yield project


def cast(project) -> list[str]:
    return [s.name for s in project.speakers()]


def said(project) -> list[tuple[str, str]]:
    names = {s.id: s.name for s in project.speakers()}
    return [(names[line.speaker], line.text) for line in project.lines()]


@pytest.mark.parametrize("typed", ["Alice: Hello.", "Dr. Who: Hi", "3 o'clock: go",
                                   "Alice:no space", "Just words.", "Alice:"])
def test_typing_and_importing_read_a_speaker_the_same_way(typed):
    imported = parse_text(typed).lines[0]
    named = speaker_prefix(typed)
    assert (named or ("Narrator", typed)) == (imported.speaker, imported.text)


def test_a_typed_name_makes_a_new_speaker_and_drops_the_unused_narrator(project):
    narrator = project.add_speaker("Narrator", "design")
    line = project.add_line(narrator, "")
    project.type_line(line, "Alice: Hello there.")
    assert said(project) == [("Alice", "Hello there.")]
    assert cast(project) == ["Alice"], "the voiceless Narrator no line speaks is gone"
    assert project.undo()
    assert said(project) == [("Narrator", "")] and cast(project) == ["Narrator"]
    assert project.redo()
    assert said(project) == [("Alice", "Hello there.")]


def test_a_typed_name_of_the_cast_is_that_speaker_whatever_its_case(project):
    narrator = project.add_speaker("Narrator", "design", instruct="calm, low")
    bob = project.add_speaker("Bob", "design", instruct="male")
    first = project.add_line(narrator, "Once.")
    project.add_line(bob, "Then.")
    project.type_line(first, "bob: Me first.")
    assert said(project) == [("Bob", "Me first."), ("Bob", "Then.")]
    assert cast(project) == ["Narrator", "Bob"], "a Narrator with a voice stays"


def test_a_narrator_that_still_speaks_stays_and_plain_text_is_only_text(project):
    narrator = project.add_speaker("Narrator", "design")
    first = project.add_line(narrator, "One.")
    project.add_line(narrator, "Two.")
    project.type_line(first, "Alice: Hi.")
    assert cast(project) == ["Narrator", "Alice"]
    project.type_line(first, "At 10:30 we go.")
    assert said(project)[0] == ("Alice", "At 10:30 we go.")
