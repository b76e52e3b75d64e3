"""Issue 25, finding 14: the takes panel was a dumping ground. A 7-line script render
added 7 takes labelled Clone or Design, with no filter by project, and at 768 px the
list showed three rows. Now script takes are filed under their project (a filter:
All takes · Clone & Design · Script: NAME), labelled with the project and line, the
panel follows the view, and compact rows show more than three takes at 768 px."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QRect
from studio_fakes import FakeController, fake_window
from take_fixtures import RATE, RUN, settings, voice

from studio.library.takes import NO_PROJECT
from studio.scripts.project import Project
from studio.views import file_dialogs
from studio.views.takes_model import TakesModel

SHOTS = Path(__file__).resolve().parents[2] / "out" / "views"


@pytest.fixture
def window(qtbot, tmp_path, data_writer):
    window = fake_window(qtbot, tmp_path, FakeController(data_writer))
    yield window
    window.scriptView.close_project()
    window.voicesView.close_library()


def fill(data_writer, tmp_path) -> str:
    """Two Clone and Design takes, then a 7-line script render."""
    data_writer.add(settings("A clone of my voice.", mode="clone", reference=str(tmp_path / "me.wav")),
               RUN, voice(), RATE, batch="c")
    data_writer.add(settings("A designed voice.", instruct="female"), RUN, voice(), RATE, batch="d")
    radio = str(tmp_path / "radio play.ovproj")
    for n in range(1, 8):
        data_writer.add(replace(settings(f"Line {n} of the play.", instruct="male", seed=n),
                           project=radio, project_line=n), RUN, voice(), RATE, batch=f"r{n}")
    return radio


def names(panel) -> list[str]:
    return [panel.model.index(r).data() for r in range(panel.model.rowCount())]


def test_script_takes_are_filed_under_their_project_and_labelled_with_it(qtbot, window, data_writer,
                                                                          tmp_path):
    radio = fill(data_writer, tmp_path)
    panel = window.takesPanel
    panel.refresh()
    combo = panel.projectCombo
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "All takes", "Clone & Design", "Script: radio play"]
    assert combo.key() == NO_PROJECT, "the window opens on Clone: its history"
    assert names(panel) == ["A designed voice.", "A clone of my voice."]
    combo.set_key(None)
    assert panel.model.rowCount() == 9
    combo.set_key(radio)
    assert panel.model.rowCount() == 7 and names(panel)[0] == "Line 7 of the play."
    row = panel.model.index(0).data(TakesModel.RowRole)
    assert row.subtitle == "radio play · line 7 · male"
    assert "Script · radio play · line 7 · male" in row.tooltip
    assert panel.countLabel.text() == "7 takes shown"
    panel.select_ids([row.take.id])
    assert panel.detail.infoLabel.text().startswith("Script · radio play · line 7 · male · ")


def test_the_panel_follows_the_view_until_the_user_picks_a_filter(qtbot, window, data_writer,
                                                                  tmp_path):
    radio = fill(data_writer, tmp_path)
    panel = window.takesPanel
    panel.refresh()  # the worker's takes_changed, after the render
    window.show_view("clone")
    assert panel.projectCombo.key() == NO_PROJECT and panel.model.rowCount() == 2, \
        "script takes do not flood the Clone history"
    script = tmp_path / "radio play.txt"
    script.write_text("Bob: Line one.\n", encoding="utf-8")
    window.show_view("script")
    window.scriptView.open(tmp_path / "radio play.ovproj")
    assert panel.projectCombo.key() == radio and panel.model.rowCount() == 7
    panel.projectCombo.setCurrentIndex(0)
    panel.projectCombo.activated.emit(0)  # the user's own choice
    window.show_view("design")
    assert panel.projectCombo.key() is None and panel.model.rowCount() == 9


def test_at_768_px_the_list_shows_more_than_three_takes(qtbot, window, data_writer, tmp_path):
    fill(data_writer, tmp_path)
    window.resize(1366, 740)  # a 1366x768 screen less a panel
    window.show()
    qtbot.waitExposed(window)
    window.takesPanel.refresh()
    window.takesPanel.projectCombo.set_key(None)
    qtbot.wait(50)
    view = window.takesPanel.list
    box = view.viewport().rect()
    whole = [r for r in range(view.model().rowCount())
             if box.contains(view.visualRect(view.model().index(r, 0)))]
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(SHOTS / "takes_compact_768.png"))
    assert len(whole) > 3, f"{len(whole)} whole rows in {box.height()} px"
    row = view.visualRect(view.model().index(0, 0))
    assert isinstance(row, QRect)
    # Two lines of text a row (it was three: 67 px here, four whole rows in this list).
    assert row.height() <= 2 * view.fontMetrics().height() + 20, row.height()


def test_a_project_saved_as_a_copy_lists_its_takes_now_and_after_a_restart(
        qtbot, window, data_writer, tmp_path, monkeypatch):
    """Second review, item 2: after Save project as… the copy's lines were rendered but its
    Takes read "0 takes shown" (the takes are filed under the first file), also reopened."""
    first = tmp_path / "dialogue.ovproj"
    takes = [data_writer.add(replace(settings(f"Line {n} of the dialogue.", instruct="male", seed=n),
                                project=str(first), project_line=n), RUN, voice(), RATE,
                        batch=f"d{n}") for n in (1, 2)]
    with Project.create(first) as project:
        bob = project.add_speaker("Bob", "design", instruct="male")
        lines = [project.add_line(bob, f"Line {n} of the dialogue.") for n in (1, 2)]
        project.choose_takes({line: take.id for line, take in zip(lines, takes)})
    theirs = ["Line 2 of the dialogue.", "Line 1 of the dialogue."]
    panel = window.takesPanel
    window.show_view("script")
    window.scriptView.open(first)
    assert panel.projectCombo.key() == str(first) and names(panel) == theirs
    copy = tmp_path / "for-client.ovproj"
    monkeypatch.setattr(file_dialogs, "save_file_name", lambda *a, **k: (str(copy), ""))
    window.scriptView.save_project_as()
    assert window.scriptView.project.path == copy
    assert panel.projectCombo.currentText() == "Script: for-client"
    assert names(panel) == theirs and panel.countLabel.text() == "2 takes shown"
    panel.projectCombo.set_key(str(first))
    assert names(panel) == theirs, "the original still lists them"
    window.close()  # the studio quits with the copy open and starts again
    window.scriptView.close_project()

    again = fake_window(qtbot, tmp_path, FakeController(data_writer))
    try:
        again.show_view("script")
        assert again.scriptView.project is not None and again.scriptView.project.path == copy
        assert again.takesPanel.projectCombo.key() == str(copy)
        assert names(again.takesPanel) == theirs
    finally:
        again.scriptView.close_project()
        again.voicesView.close_library()
