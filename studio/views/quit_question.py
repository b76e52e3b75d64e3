"""The question before quitting while work is running: "A render is running (1 of 3
takes done); quit and lose it?" with Quit and Keep working (Return keeps working).

Review 8: Ctrl+Q three seconds into a long render closed the studio at once; the render
was gone and nothing said so. Every way out goes through the window's close (File ▸
Quit and Ctrl+Q call it, as does the window's close button), so the question is asked
there, once: the box is window-modal, a second close while it is up raises it, and
after Quit the close goes through. Nothing is asked when nothing is running.

What counts as running is what quitting loses: renders (a script's lines already done
keep their takes), a voice being saved, a script export or a book import (both cancelled
on close). A take export is not asked about: quitting waits for its files.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def quit_sentence(work: list[tuple[str, str]]) -> str:
    """("A render", "1 of 3 takes done") and the like, as the question's one sentence."""
    named = [f"{what} ({detail})" if detail else what for what, detail in work]
    if len(named) == 1:
        what, detail = work[0]
        return f"{what} is running{f' ({detail})' if detail else ''}; quit and lose it?"
    listed = ", ".join(named[:-1]) + " and " + named[-1][0].lower() + named[-1][1:]
    return f"{listed} are running; quit and lose them?"


class QuitQuestion(QObject):
    """Asked by ``window``'s closeEvent: ``may_close()`` is True when nothing listed by
    ``running()`` would be lost, or the person chose Quit; else it asks and says False."""

    def __init__(self, window: QWidget, running: Callable[[], list[tuple[str, str]]]):
        super().__init__(window)
        self._window = window
        self._running = running
        self._agreed = False
        self.box: QMessageBox | None = None  # while the question is up

    def may_close(self) -> bool:
        if self._agreed:
            return True
        work = self._running()
        if not work:
            return True
        if self.box is not None:
            self.box.raise_()
            self.box.activateWindow()
            return False
        self._ask(work)
        return False

    def _ask(self, work: list[tuple[str, str]]) -> None:
        box = QMessageBox(self._window)
        box.setObjectName("quitQuestion")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Quit OmniVoice Desktop?")
        box.setText(quit_sentence(work))
        quit_button = box.addButton("Quit", QMessageBox.ButtonRole.DestructiveRole)
        quit_button.setObjectName("quitAnyway")
        keep = box.addButton("Keep working", QMessageBox.ButtonRole.RejectRole)
        keep.setObjectName("keepWorking")
        box.setDefaultButton(keep)  # Return keeps working: losing work takes a choice
        box.setEscapeButton(keep)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: self._answered(button is quit_button))
        box.finished.connect(self._forget)
        self.box = box
        box.open()  # window-modal, not exec(): the render goes on while the question waits

    def agree(self) -> None:
        """Quitting loses the running work without asking (a shutdown is under way)."""
        self._agreed = True
        if self.box is not None:
            self.box.close()

    def _forget(self) -> None:
        self.box = None

    def _answered(self, quit_now: bool) -> None:
        self.box = None
        if quit_now:
            self._agreed = True
            if self._window.close():
                QCoreApplication.quit()
