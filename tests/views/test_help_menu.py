"""Help menu: it sits in the main window's menu bar, opens the log file and the
data folder, runs the self-test as a child process and shows its report, and the
About box carries the version and every license notice."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QMainWindow, QMessageBox
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer, make_settings

from studio import __version__
from studio.paths import data_dir, log_file
from studio.views import help_menu as help_module
from studio.views.help_menu import (
    SELFTEST_FAILED,
    SELFTEST_NOT_STARTED,
    SELFTEST_PASSED,
    HelpMenu,
    SelfTestDialog,
    install_help_menu,
)
from studio.views.main_window import MainWindow


class Opener:
    def __init__(self, answer: bool = True):
        self.urls: list[QUrl] = []
        self.answer = answer

    def __call__(self, url: QUrl) -> bool:
        self.urls.append(url)
        return self.answer


@pytest.fixture
def window(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    return window


@pytest.fixture
def boxes(monkeypatch):
    """Record message boxes instead of showing them (a modal box would block the test)."""
    shown: list[tuple[str, str]] = []
    for kind in ("information", "warning", "about"):
        monkeypatch.setattr(QMessageBox, kind,
                            lambda _parent, _title, text, *a, k=kind, **kw: shown.append((k, text)))
    return shown


def test_main_window_has_the_help_menu(qtbot, tmp_path):
    main = MainWindow(make_settings(tmp_path / "s.ini"), FakeController(), FakePlayer(),
                      audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(main)
    titles = [a.text() for a in main.menuBar().actions()]
    assert "&Help" in titles
    assert isinstance(main.helpMenu, HelpMenu)
    texts = [a.text() for a in main.helpMenu.actions() if not a.isSeparator()]
    assert texts == ["User &guide", "&Keyboard shortcuts", "Open &log file",
                     "Open &data folder", "Run &self-test…", "&About OmniVoice Desktop"]


def test_open_log_opens_the_log_file(window, boxes):
    opener = Opener()
    menu = install_help_menu(window, open_url=opener)
    log_file().parent.mkdir(parents=True, exist_ok=True)
    log_file().write_text("x\n", encoding="utf-8")
    menu.openLogAction.trigger()
    assert [u.toLocalFile() for u in opener.urls] == [str(log_file())]
    assert boxes == []


def test_open_log_without_a_log_says_so(window, boxes):
    opener = Opener()
    menu = install_help_menu(window, open_url=opener)
    menu.openLogAction.trigger()
    assert opener.urls == []
    assert boxes and boxes[0][0] == "information" and str(log_file()) in boxes[0][1]


def test_open_data_folder_creates_and_opens_it(window, boxes):
    opener = Opener()
    menu = install_help_menu(window, open_url=opener)
    menu.openDataAction.trigger()
    assert data_dir().is_dir()
    assert [u.toLocalFile() for u in opener.urls] == [str(data_dir())]


def test_a_refused_open_warns_with_the_path(window, boxes):
    menu = install_help_menu(window, open_url=Opener(answer=False))
    menu.openDataAction.trigger()
    assert boxes and boxes[0][0] == "warning" and str(data_dir()) in boxes[0][1]


def test_about_names_version_and_all_licenses(window, boxes):
    from studio.engine.checkpoint import LICENSE_NOTICE

    menu = install_help_menu(window, open_url=Opener())
    menu.aboutAction.trigger()
    [(kind, text)] = boxes
    assert kind == "about"
    assert __version__ in text and "Apache License 2.0" in text
    assert "CC BY-NC 4.0" in text and "community license" in text
    assert LICENSE_NOTICE.splitlines()[0] in text


def _script(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_selftest_dialog_shows_a_passing_report(qtbot, window):
    menu = install_help_menu(window, open_url=Opener(),
                             selftest_command=_script("print('ok    torch  torch 2.9')"))
    dialog = menu.run_selftest()
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.exit_code is not None, timeout=20000)
    assert dialog.exit_code == 0
    assert dialog.status.text() == SELFTEST_PASSED
    assert "ok    torch" in dialog.report.toPlainText()
    assert dialog.copyButton.isEnabled()


def test_selftest_dialog_shows_a_failing_report(qtbot, window):
    code = "import sys; print('FAIL  torchaudio  torchaudio is not installed'); sys.exit(1)"
    dialog = SelfTestDialog(window, _script(code))
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.exit_code is not None, timeout=20000)
    assert dialog.exit_code == 1
    assert dialog.status.text() == SELFTEST_FAILED
    assert "torchaudio is not installed" in dialog.report.toPlainText()


def test_selftest_dialog_says_when_the_program_is_missing(qtbot, window):
    dialog = SelfTestDialog(window, ["/nonexistent/omnivoice-desktop", "selftest"])
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.exit_code is not None, timeout=10000)
    assert dialog.exit_code == -1
    assert dialog.status.text().startswith(SELFTEST_NOT_STARTED.split("(")[0])


def test_selftest_command_runs_this_program_again():
    assert help_module.self_command("selftest")[-1] == "selftest"
    assert help_module.self_command("selftest")[0] == sys.executable


def test_closing_the_dialog_stops_a_running_selftest(qtbot, window):
    dialog = SelfTestDialog(window, _script("import time; time.sleep(60)"))
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.process.state() == dialog.process.ProcessState.Running,
                    timeout=10000)
    dialog.reject()
    assert dialog.process.state() == dialog.process.ProcessState.NotRunning
