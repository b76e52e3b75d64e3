"""The Help menu: open the log file or the data folder, run the self-test, About.

The self-test runs as a child process (``omnivoice-desktop selftest``) through
QProcess, so the studio stays responsive and its own state (the loaded model,
Qt, audio streams) is never touched by the checks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QProcess, QProcessEnvironment, Qt, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio import __version__
from studio.paths import data_dir, log_file
from studio.selftest import self_command

APP_LICENSE = "OmniVoice Desktop is free software under the Apache License 2.0."
NO_LOG_YET = "There is no log file yet: the app writes {path} once it has something to record."
OPEN_FAILED = "The system could not open {path}; open it from your file manager."
SELFTEST_RUNNING = "Running the self-test (a tiny random model, nothing is downloaded) …"
SELFTEST_PASSED = "Self-test passed: the core path works."
SELFTEST_FAILED = "Self-test failed: the FAIL lines below say what to fix."
SELFTEST_NOT_STARTED = "The self-test could not start ({reason}); run omnivoice-desktop selftest in a terminal."

UrlOpener = Callable[[QUrl], bool]


def model_license_notice() -> str:
    """The model's and codec's license notice (the engine's own text, shown before downloads)."""
    try:
        from studio.engine.checkpoint import LICENSE_NOTICE
    except ImportError:  # the studio opens without torch; the notice lives beside the engine
        return "The model's license notice needs torch to load; see the README's License section."
    return LICENSE_NOTICE


def about_text() -> str:
    return (
        f"<h3>OmniVoice Desktop {__version__}</h3>"
        "<p>A desktop studio for the OmniVoice text-to-speech model: clone, design and "
        "audition voices locally.</p>"
        f"<p>{APP_LICENSE}</p>"
        f"<p>{model_license_notice().replace(chr(10), '<br>')}</p>"
        f"<p>Data folder: {data_dir()}<br>Log file: {log_file()}</p>"
    )


class SelfTestDialog(QDialog):
    """Runs the self-test in a child process and shows its report."""

    def __init__(self, parent: QWidget | None = None, command: list[str] | None = None):
        super().__init__(parent)
        self.setObjectName("selfTestDialog")
        self.setWindowTitle("Self-test")
        self.resize(940, 380)
        self._command = command or self_command("selftest")
        self.status = QLabel(SELFTEST_RUNNING)
        self.status.setObjectName("selfTestStatus")
        self.status.setWordWrap(True)
        self.report = QPlainTextEdit()
        self.report.setObjectName("selfTestReport")
        self.report.setReadOnly(True)
        self.report.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copyButton = QPushButton("Copy report")
        self.copyButton.setEnabled(False)
        buttons.addButton(self.copyButton, QDialogButtonBox.ButtonRole.ActionRole)
        self.copyButton.clicked.connect(self._copy)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.report, 1)
        layout.addWidget(buttons)

        self.process = QProcess(self)
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        environment = QProcessEnvironment.systemEnvironment()
        environment.insert("PYTHONIOENCODING", "utf-8")
        self.process.setProcessEnvironment(environment)
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        self.exit_code: int | None = None
        # Quitting the studio mid-test must not leave the child running.
        QCoreApplication.instance().aboutToQuit.connect(self.stop)

    def start(self) -> None:
        self.process.start(self._command[0], self._command[1:])

    @Slot()
    def _read(self) -> None:
        text = bytes(self.process.readAllStandardOutput().data()).decode("utf-8", "replace")
        self.report.moveCursor(self.report.textCursor().MoveOperation.End)
        self.report.insertPlainText(text)

    @Slot(int, QProcess.ExitStatus)
    def _finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._read()
        self.exit_code = code
        self.status.setText(SELFTEST_PASSED if code == 0 else SELFTEST_FAILED)
        self.copyButton.setEnabled(True)

    @Slot(QProcess.ProcessError)
    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.exit_code = -1
            self.status.setText(SELFTEST_NOT_STARTED.format(reason=self.process.errorString()))
            self.copyButton.setEnabled(True)

    @Slot()
    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(f"{self.status.text()}\n{self.report.toPlainText()}")

    @Slot()
    def stop(self) -> None:
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.kill()
            self.process.waitForFinished(3000)

    def reject(self) -> None:
        self.stop()
        super().reject()


class HelpMenu(QMenu):
    """Help ▸ Open log file, Open data folder, Run self-test…, About."""

    def __init__(self, parent: QWidget, open_url: UrlOpener = QDesktopServices.openUrl,
                 selftest_command: list[str] | None = None):
        super().__init__("&Help", parent)
        self.setObjectName("helpMenu")
        self._open_url = open_url
        self._selftest_command = selftest_command
        self.dialog: SelfTestDialog | None = None
        self.openLogAction = self._add("Open &log file", self.open_log, "Open the app's log file")
        self.openDataAction = self._add("Open &data folder", self.open_data_folder,
                                        "Open the folder with saved voices, takes and the log")
        self.addSeparator()
        self.selfTestAction = self._add("Run &self-test…", self.run_selftest,
                                        "Check torch, the codec, Qt and audio on a tiny model")
        self.addSeparator()
        self.aboutAction = self._add("&About OmniVoice Desktop", self.about,
                                     "Version and license notices")
        self.aboutAction.setMenuRole(QAction.MenuRole.AboutRole)

    def _add(self, text: str, slot, tip: str) -> QAction:
        action = self.addAction(text)
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.triggered.connect(slot)
        return action

    def _open(self, path: Path) -> None:
        if not self._open_url(QUrl.fromLocalFile(str(path))):
            QMessageBox.warning(self.parentWidget(), "Help", OPEN_FAILED.format(path=path))

    @Slot()
    def open_log(self) -> None:
        path = log_file()
        if not path.is_file():
            QMessageBox.information(self.parentWidget(), "Help", NO_LOG_YET.format(path=path))
            return
        self._open(path)

    @Slot()
    def open_data_folder(self) -> None:
        folder = data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self._open(folder)

    @Slot()
    def run_selftest(self) -> SelfTestDialog:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
        self.dialog = SelfTestDialog(self.parentWidget(), self._selftest_command)
        self.dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.dialog.show()
        self.dialog.start()
        return self.dialog

    @Slot()
    def about(self) -> None:
        QMessageBox.about(self.parentWidget(), "About OmniVoice Desktop", about_text())


def install_help_menu(window: QMainWindow, **options) -> HelpMenu:
    """Add the Help menu to ``window``'s menu bar (the main window's one hook)."""
    menu = HelpMenu(window, **options)
    window.menuBar().addMenu(menu)
    return menu
