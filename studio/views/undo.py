"""Undo for the window: one QUndoStack that every destructive edit of the forms and the
libraries goes through, and the router that Edit ▸ Undo / Redo use.

An edit is a pair of callables (do, undo) with the words the Edit menu shows
("Undo Delete 2 takes"). The Script view keeps its own project history (in the
project file); the router sends Edit ▸ Undo there while the Script page is in use
and the keyboard focus is not in the takes panel, except for an edit every page reaches
(a saved voice deleted, which the script's speakers may use) made after the script's
newest edit: Undo on the Script page takes back whichever of the two came last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoCommand, QUndoStack
from PySide6.QtWidgets import QApplication, QWidget


class UndoStack(QUndoStack):
    """The window's undo stack. While it is held (an undo or redo running, or one edit
    made of smaller ones), edits are applied without being recorded again."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._held = 0
        # What the open script's newest edit is, when an edit is done or undone (the
        # router sets it), so that the Script page can tell which of the two came last.
        self.moment: Callable[[], object] = lambda: None

    @contextmanager
    def holding(self) -> Iterator[None]:
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    def held(self) -> bool:
        return self._held > 0


def deleted_voice(name: str) -> tuple[str, str]:
    """What a voice deletion's edit is about (``Edit.everywhere``), for the Script page."""
    return ("voice deleted", name.casefold())


class Edit(QUndoCommand):
    """One undoable edit: ``do`` runs when pushed (unless ``done``) and on every redo.
    ``everywhere``: what an edit the Script page's Undo reaches too is about (else None)."""

    def __init__(self, stack: UndoStack, text: str, do: Callable[[], object],
                 undo: Callable[[], object], done: bool = False, everywhere: object = None):
        super().__init__(text)
        self._stack = stack
        self._do = do
        self._undo = undo
        self._skip = done
        self.everywhere = everywhere
        self.moment: object = None  # the script's newest edit when this was done or undone

    def redo(self) -> None:
        self.moment = self._stack.moment()
        if self._skip:  # applied before it was pushed
            self._skip = False
            return
        with self._stack.holding():
            self._do()

    def undo(self) -> None:
        self.moment = self._stack.moment()
        with self._stack.holding():
            self._undo()


def push_edit(stack: UndoStack | None, text: str, do: Callable[[], object],
              undo: Callable[[], object], done: bool = False,
              everywhere: object = None) -> None:
    """Record an edit (``done``: already applied) and apply it; a held or missing
    stack applies it without recording. ``everywhere``: see ``Edit``."""
    if stack is None or stack.held():
        if not done:
            do()
        return
    stack.push(Edit(stack, text, do, undo, done, everywhere))


class FormSnapshot:
    """What a view's ``save_state`` writes, held in memory: the form as it was, so that
    ``restore_state`` puts it back (the same keys the studio keeps between sessions)."""

    def __init__(self, view) -> None:
        self._values: dict[str, object] = {}
        view.save_state(self)

    def set_state(self, key: str, value: object) -> None:
        self._values[key] = value

    def state(self, key: str, default: object = None) -> object:
        return self._values.get(key, default)

    def value(self, key: str) -> object:  # a view that reads a setting while restoring
        return self._values.get(key)

    def values(self) -> dict[str, object]:
        return dict(self._values)


def snapshot_edit(stack: UndoStack | None, view, text: str, change: Callable[[], object]):
    """Run ``change`` on ``view`` as one undoable edit: the form before and after are
    snapshots (what the view saves between sessions), so Undo and Redo give back exactly
    what the user saw. Returns what ``change`` returned."""
    if stack is None or stack.held():
        return change()
    before = FormSnapshot(view)
    with stack.holding():  # the smaller edits inside are part of this one
        result = change()
    after = FormSnapshot(view)
    if after.values() == before.values():  # nothing changed: nothing to undo
        return result
    push_edit(stack, text, lambda: view.restore_state(after),
              lambda: view.restore_state(before), done=True)
    return result


class UndoRouter(QObject):
    """Edit ▸ Undo / Redo: the window's stack, or the Script project's history while the
    Script page is in use (a voice deletion made after the script's newest edit first)."""

    def __init__(self, stack: QUndoStack, script_view=None,
                 script_active: Callable[[], bool] = lambda: False,
                 window_owned: tuple[QWidget, ...] = (), parent: QObject | None = None):
        super().__init__(parent)
        self.stack = stack
        self._script = script_view
        self._script_active = script_active
        self._window_owned = window_owned  # focus inside these: the window's stack
        if isinstance(stack, UndoStack):
            stack.moment = self._script_moment

    def _script_moment(self) -> object:
        project = getattr(self._script, "project", None)
        return project.newest_edit() if project is not None else None

    def _reaching(self, index: int) -> Edit | None:
        """The window's edit at ``index`` when the Script page's Undo/Redo reaches it: one
        every page reaches, done or undone while the script was as it is now."""
        command = self.stack.command(index) if 0 <= index < self.stack.count() else None
        if (isinstance(command, Edit) and command.everywhere is not None
                and command.moment is self._script_moment()):
            return command
        return None

    def _on_script(self, index: int) -> bool:
        if self._script is None or not self._script_active():
            return False
        focus = QApplication.focusWidget()
        if any(focus is not None and (focus is w or w.isAncestorOf(focus))
               for w in self._window_owned):
            return False
        return self._reaching(index) is None

    def _undo_on_script(self) -> bool:
        return self._on_script(self.stack.index() - 1)

    def _redo_on_script(self) -> bool:
        return self._on_script(self.stack.index())

    def script_undo_gives_back(self, about: object) -> bool:
        """Whether Edit ▸ Undo on the Script page would next take back the edit ``about``
        names (``deleted_voice(name)``)."""
        command = self._reaching(self.stack.index() - 1)
        return command is not None and command.everywhere == about

    def can_undo(self) -> bool:
        if self._undo_on_script():
            project = self._script.project
            return project is not None and project.can_undo()
        return self.stack.canUndo()

    def can_redo(self) -> bool:
        if self._redo_on_script():
            project = self._script.project
            return project is not None and project.can_redo()
        return self.stack.canRedo()

    def undo_text(self) -> str:
        return "script edit" if self._undo_on_script() else self.stack.undoText()

    def redo_text(self) -> str:
        return "script edit" if self._redo_on_script() else self.stack.redoText()

    def undo(self) -> None:
        if self._undo_on_script():
            self._script.undo()
        else:
            self.stack.undo()

    def redo(self) -> None:
        if self._redo_on_script():
            self._script.redo()
        else:
            self.stack.redo()
