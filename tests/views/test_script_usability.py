"""Issue 25 follow-up: what a new user met in the Script view. A new project's summary
counts "1 line" and its creation is not an undoable step; a visible Add line button;
the takes panel follows the selected line; messages and progress never move the buttons;
at 1024 px nothing in the view is cut."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget

from studio.views import file_dialogs
from studio.views.script_view import ScriptView


def make_view(qtbot, reader, player, width=900, height=700):
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    return view


def new_script(qtbot, view, tmp_path, monkeypatch, name="play"):
    monkeypatch.setattr(file_dialogs, "save_file_name",
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


def test_a_project_made_by_its_path_starts_with_nothing_to_undo(qtbot, tmp_path, reader,
                                                                player):
    from PySide6.QtCore import Qt

    view = make_view(qtbot, reader, player)
    view.pathEdit.setText(str(tmp_path / "story.ovproj"))
    view.openButton.click()
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_Return)  # its first line (and Narrator)
    assert view.model.rowCount() == 1 and "1 line ·" in view.projectLabel.text()
    assert not view.undoButton.isEnabled()
    view.addLineButton.click()  # a second line is an edit
    assert view.model.rowCount() == 2 and view.undoButton.isEnabled()
    view.close_project()


def test_add_line_is_a_visible_button_that_tells_its_keys(qtbot, tmp_path, reader, player,
                                                         monkeypatch):
    from PySide6.QtWidgets import QAbstractItemView

    view = make_view(qtbot, reader, player)
    assert not view.addLineButton.isEnabled(), "no project, no lines to add"
    new_script(qtbot, view, tmp_path, monkeypatch)
    view.model.setData(view.model.index(0, 3), "First line.")  # (TEXT) the typed line
    assert view.addLineButton.isVisible() and view.addLineButton.isEnabled()
    tip = view.addLineButton.toolTip()
    assert "Enter" in tip and "Alt+1..9" in tip
    view.select_row(0)
    view.addLineButton.click()
    assert view.model.rowCount() == 2
    assert view.table.currentIndex().row() == 1, "the new line comes after the selected one"
    assert view.table.state() == QAbstractItemView.State.EditingState, "ready to type"
    view.close_project()


def test_the_takes_panel_follows_the_selected_and_the_rendered_line(qtbot, tmp_path):
    import dataclasses

    from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings
    from take_fixtures import RATE, RUN, settings, voice

    from studio.library.takes import TakeLibrary
    from studio.service.requests import LineDone, TakeAudio
    from studio.views.main_window import MainWindow

    script = tmp_path / "pair.txt"
    script.write_text("Alice: One.\nBob: Two.\n", encoding="utf-8")
    with TakeLibrary() as writer:
        window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(writer),
                            FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
        qtbot.addWidget(window)
        window.show_view("script")
        view, panel = window.scriptView, window.takesPanel
        view.open(script)
        first, second = view.project.lines()

        def take(line, n, seed):
            filed = dataclasses.replace(settings(line.text, seed), project=str(view.project.path),
                                        project_line=n)
            return writer.add(filed, RUN, voice(0.3), RATE, batch=f"b{seed}").id

        ones = [take(first, 1, 1), take(first, 1, 2)]
        two = take(second, 2, 3)
        for line, chosen in ((first, ones[0]), (first, ones[1]), (second, two)):
            view.project.choose_take(line.id, chosen)
        view.select_row(1)
        assert [t.id for t in panel.selected_takes()] == [two]
        view.select_row(0)
        assert sorted(t.id for t in panel.selected_takes()) == sorted(ones)
        assert panel.current_take().id == ones[1], "the line's chosen take is the one shown"
        again = take(first, 1, 4)  # a new variation of line 1 arrives from the worker
        view.on_line(LineDone(first.id, TakeAudio(voice(0.3), RATE, 4, again), 0, 1))
        assert panel.current_take().id == again
        assert sorted(t.id for t in panel.selected_takes()) == sorted([*ones, again])
        view.close_project()
        window.voicesView.close_library()


STORY = ("Narrator: Once upon a time, two friends met by the river.\n"
         "Alice: Hi Bob, lovely weather today.\n"
         "Bob: Indeed, Alice. Shall we walk?\n")


def describe(qtbot, view, speaker: str, instruct: str) -> None:
    from PySide6.QtCore import Qt

    view.speakerCombo.setCurrentIndex(view.speakerCombo.findText(speaker))
    view.instructEdit.setFocus()
    view.instructEdit.setText(instruct)
    qtbot.keyClick(view.instructEdit, Qt.Key.Key_Return)


def story_window(qtbot, tmp_path, writer):
    """The tester's window: 1024 x 640, the Script view with a three-speaker story, the
    first line rendered."""
    import dataclasses

    from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings
    from take_fixtures import RATE, RUN, settings, voice

    from studio.service.requests import LineDone, TakeAudio
    from studio.views.main_window import MainWindow

    window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(writer),
                        FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    window.resize(1024, 640)
    window.show()
    qtbot.waitExposed(window)
    window.show_view("script")
    total = sum(window.splitter.sizes())
    window.splitter.setSizes([total - 320, 320])  # the takes panel as wide as the tester's
    view = window.scriptView
    script = tmp_path / "story.txt"
    script.write_text(STORY, encoding="utf-8")
    view.open(script)
    for speaker, words in (("Narrator", "female, elderly"), ("Alice", "warm narrator"),
                           ("Bob", "male, low pitch, british accent")):
        describe(qtbot, view, speaker, words)
    first = view.project.lines()[0]
    filed = dataclasses.replace(settings(first.text, 1), project=str(view.project.path),
                                project_line=1)
    take = writer.add(filed, RUN, voice(2.0), RATE, batch="b1").id
    view.on_line(LineDone(first.id, TakeAudio(voice(2.0), RATE, 1, take), 0, 1))
    view.select_row(0)
    QApplication.processEvents()
    return window, view


def cut_widgets(view) -> list[str]:
    """Each visible label, button, combo, check box, spin box and filled text field of the
    view whose text does not fit in it."""
    from PySide6.QtWidgets import (
        QAbstractButton,
        QComboBox,
        QDoubleSpinBox,
        QLabel,
        QLineEdit,
    )

    cut = []
    for widget in view.findChildren(QWidget):
        if not widget.isVisibleTo(view) or widget.window() is not view.window() \
                or view.table.isAncestorOf(widget) or view.cast.isAncestorOf(widget):
            continue
        name = f"{type(widget).__name__} {widget.objectName() or ''}"
        if isinstance(widget, QLabel) and widget.text():
            room = widget.contentsRect()
            if widget.wordWrap():
                if widget.heightForWidth(widget.width()) > widget.height():
                    cut.append(f"{name} {widget.text()!r}: wraps beyond its height")
            elif widget.fontMetrics().horizontalAdvance(widget.text()) > room.width():
                cut.append(f"{name} {widget.text()!r}")
        elif isinstance(widget, (QAbstractButton, QComboBox, QDoubleSpinBox)):
            if widget.width() < widget.sizeHint().width():
                text = widget.currentText() if isinstance(widget, QComboBox) else \
                    widget.text()
                cut.append(f"{name} {text!r}: {widget.width()} < {widget.sizeHint().width()}")
        elif isinstance(widget, QLineEdit) and widget.text() and widget is not view.pathEdit \
                and widget is not view.exportEdit:  # (paths scroll, as everywhere)
            if widget.fontMetrics().horizontalAdvance(widget.text()) + 12 > widget.width():
                cut.append(f"{name} {widget.text()!r}: {widget.width()} px")
    return cut


def test_at_1024_px_wide_nothing_in_the_script_view_is_cut(qtbot, tmp_path):
    from studio.library.takes import TakeLibrary
    from studio.views.script_lines_model import TEXT

    with TakeLibrary() as writer:
        window, view = story_window(qtbot, tmp_path, writer)
        assert view.width() < 540, f"the tester's narrow page ({view.width()} px)"
        assert cut_widgets(view) == []
        assert view.renderStaleButton.text().startswith("Render")
        assert "new or changed" in view.renderStaleButton.toolTip()
        lines = view.projectLabel.heightForWidth(view.projectLabel.width()) // \
            view.projectLabel.fontMetrics().lineSpacing()
        assert lines <= 1, f"the summary takes {lines} lines"
        assert view.table.columnWidth(TEXT) >= view.table.viewport().width() // 3, \
            "the Text column gets the room"
        window.grab().save(str(tmp_path / "script-1024.png"))
        view.close_project()
        window.voicesView.close_library()


def test_a_message_or_the_progress_never_moves_the_buttons(qtbot, tmp_path):
    from studio.library.takes import TakeLibrary

    with TakeLibrary() as writer:
        window, view = story_window(qtbot, tmp_path, writer)
        buttons = (view.renderAllButton, view.playButton, view.exportButton,
                   view.compareButton, view.newSeedButton)

        def places():
            QApplication.processEvents()
            return [b.mapTo(view, b.rect().topLeft()).y() for b in buttons]

        before = places()
        view.notice.show_message("Give Narrator a voice first: pick a saved voice or "
                                 "describe one.")
        assert places() == before, "a message"
        view.notice.clear_message()  # (as a render that starts does)
        view.set_busy(True)
        view.on_progress(3, 16, 0, 3)
        assert view.progress.isVisible() and places() == before, "the progress"
        view.set_busy(False)
        assert places() == before
        view.close_project()
        window.voicesView.close_library()
