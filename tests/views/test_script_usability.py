"""Issue 25 follow-up: what a new user met in the Script view. A new project's summary
counts "1 line" and its creation is not an undoable step; a visible Add line button;
the takes panel follows the selected line; messages and progress never move the buttons;
at 1024 px nothing in the view is cut."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from studio.views.script_view import ScriptView


def make_view(qtbot, reader, player, width=900, height=700):
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    return view


def new_script(qtbot, view, tmp_path, monkeypatch, name="play"):
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / name), a[3]))
    view.newButton.click()
    assert view.project is not None


def test_a_new_script_says_1_line_and_has_nothing_to_undo(qtbot, tmp_path, reader, player,
                                                          monkeypatch):
    view = make_view(qtbot, reader, player)
    new_script(qtbot, view, tmp_path, monkeypatch)
    assert " 1 line " in view.projectLabel.text() + " ", view.projectLabel.text()
    assert "1 lines" not in view.projectLabel.text()
    assert not view.undoButton.isEnabled(), "making the project is not an edit"
    assert not view.project.can_undo()
    view.close_project()
