"""Review 8 (finding 7): Ctrl+Q three seconds into a long render closed the studio at once
and the render was lost without a word. Quitting while work runs now asks once, "A render
is running (N of M takes done); quit and lose it?", with Quit and Keep working (Return
keeps working); nothing is asked when the studio is idle. Driven through the window's
own close (Ctrl+Q, File ▸ Quit and the close button all end there)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QPushButton
from script_fixtures import open_cast
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

from studio.views.main_window import MainWindow
from studio.views.quit_question import quit_sentence


@pytest.fixture
def quits(monkeypatch) -> list[bool]:
    said: list[bool] = []
    monkeypatch.setattr(QCoreApplication, "quit", lambda: said.append(True))
    return said


@pytest.fixture
def window(qtbot, tmp_path, data_writer):
    window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(data_writer),
                        FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # Ctrl+Q needs the active window
    yield window
    window.scriptView.close_project()


def ctrl_q(qtbot, window) -> None:
    window.sidebar.setFocus()
    qtbot.keyClick(window.sidebar, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)


def question(window) -> QMessageBox | None:
    shown = [b for b in window.findChildren(QMessageBox, "quitQuestion") if b.isVisible()]
    assert len(shown) <= 1, "asked once"
    return shown[0] if shown else None


def generate(window, takes: int = 3):
    form = window.designView.form
    form.set_text("A long text that takes a while to render.")
    form.takesSpin.setValue(takes)
    form.generateButton.click()
    return window._controller.named("render")[-1][1]


def test_idle_quits_at_once_without_a_question(qtbot, window, quits):
    ctrl_q(qtbot, window)
    assert question(window) is None and not window.isVisible() and quits == [True]


def test_ctrl_q_during_a_render_asks_and_keep_working_keeps_it(qtbot, window, quits):
    job = generate(window)
    ctrl_q(qtbot, window)
    box = question(window)
    assert box is not None and window.isVisible() and quits == []
    assert box.text() == "A render is running (0 of 3 takes done); quit and lose it?"
    assert {b.text() for b in box.buttons()} == {"Quit", "Keep working"}
    assert box.defaultButton().text() == "Keep working"
    qtbot.keyClick(box, Qt.Key.Key_Return)  # Return keeps working
    qtbot.waitUntil(lambda: question(window) is None)
    assert window.isVisible() and quits == [] and not window._controller.named("cancel")
    assert window.designView.form.is_busy(), "the render goes on"
    job.report("cancelled")


def test_quit_in_the_question_quits_and_the_window_close_button_asks_too(qtbot, window,
                                                                           quits):
    generate(window, takes=1)
    window.close()  # the close button's path
    box = question(window)
    assert box is not None and window.isVisible()
    assert box.text() == "A render is running (0 of 1 take done); quit and lose it?"
    window.close()  # again while it is up: the same question, not a second one
    assert question(window) is box
    box.findChild(QPushButton, "quitAnyway").click()
    assert not window.isVisible() and quits == [True]


def test_a_script_render_counts_its_lines_done(qtbot, window, quits, tmp_path):
    view = window.scriptView
    open_cast(qtbot, view, tmp_path / "three.txt", "Alice: One.\nBob: Two.\nAlice: Three.\n")
    view.renderAllButton.click()
    job = window._controller.named("render_lines")[-1][1]
    assert window.running_work() == [("A script render", "0 of 3 lines done")]
    job.report("line", _line_done(window, job))
    assert window.running_work() == [("A script render", "1 of 3 lines done")]
    job.report("cancelled")
    assert window.running_work() == []
    ctrl_q(qtbot, window)
    assert question(window) is None and quits == [True]


def _line_done(window, job):
    """The first line's LineDone, as the worker reports it (no take saved: the count is
    what is checked)."""
    import numpy as np

    from studio.service.requests import LineDone, TakeAudio

    request = window._controller.named("render_lines")[-1][2]
    return LineDone(request.keys[0], TakeAudio(np.zeros(2400, np.float32), 24000, 1, None),
                    0, len(request.keys))


def test_the_sentence_for_several_things_running():
    assert quit_sentence([("A render", "1 of 2 takes done"), ("A script export", "")]) == (
        "A render (1 of 2 takes done) and a script export are running; quit and lose them?")
    assert quit_sentence([("A voice save", "")]) == "A voice save is running; quit and lose it?"

