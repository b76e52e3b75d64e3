"""Review 8, item 2 in the window: deleting a script line's take in the Takes panel left
the line saying "Take 1 of 1 · 1.6 s" and the export mixing it. Now the line shows as not
rendered, Export says it has no take, and Edit ▸ Undo gives the take back to the line."""

from __future__ import annotations

import dataclasses

from studio_fakes import FakeController, fake_window
from take_fixtures import RATE, RUN, settings, voice

from studio.library.takes import TakeLibrary


def test_a_deleted_take_leaves_its_line_and_undo_brings_it_back(qtbot, tmp_path):
    script = tmp_path / "pair.txt"
    script.write_text("Alice: One.\nBob: Two.\n", encoding="utf-8")
    with TakeLibrary() as writer:
        window = fake_window(qtbot, tmp_path, FakeController(writer))
        window.show_view("script")
        view, panel = window.scriptView, window.takesPanel
        view.open(script)
        first, second = view.project.lines()
        kept = []
        for n, line in enumerate((first, second), 1):
            filed = dataclasses.replace(settings(line.text, n), project=str(view.project.path),
                                        project_line=n)
            kept.append(writer.add(filed, RUN, voice(1.6), RATE, batch=f"b{n}").id)
            view.project.choose_take(line.id, kept[-1])
        view.voices_changed()  # shows the takes just filed
        view.select_row(1)
        assert view.takeCombo.currentText() == "Take 1 of 1 · 1.6 s"
        assert [t.id for t in panel.selected_takes()] == [kept[1]]
        panel.delete_selected()  # the Takes panel follows the line: its one take is selected

        assert [r.status for r in view.model.rows()][1] == "not rendered"
        assert view.model.rows()[1].take is None
        assert view.takeCombo.currentText() == "No takes yet"
        view.exportEdit.setText(str(tmp_path / "pair.wav"))
        view.export()
        assert view.notice.text().startswith("Line 2 has no take yet")
        assert not view.exporting()

        window.undoStack.undo()
        assert [r.status for r in view.model.rows()][1] != "not rendered"
        assert view.model.rows()[1].take == kept[1]
        assert view.takeCombo.currentText() == "Take 1 of 1 · 1.6 s"
        assert view.notice.text() == "", "the line has its take again"
        view.close_project()
        window.voicesView.close_library()
