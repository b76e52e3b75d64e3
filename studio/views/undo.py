"""Undo for the window: one QUndoStack that every destructive edit of the forms and the
libraries goes through, and the router that Edit ▸ Undo / Redo use.

An edit is a pair of callables (do, undo) with the words the Edit menu shows
("Undo Delete 2 takes"). The Script view keeps its own project history (in the
project file); the router sends Edit ▸ Undo there while the Script page is in use
and the keyboard focus is not in the takes panel.
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

    @contextmanager
    def holding(self) -> Iterator[None]:
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    def held(self) -> bool:
        return self._held > 0


class Edit(QUndoCommand):
    """One undoable edit: ``do`` runs when pushed (unless ``done``) and on every redo."""

    def __init__(self, stack: UndoStack, text: str, do: Callable[[], object],
                 undo: Callable[[], object], done: bool = False):
        super().__init__(text)
        self._stack = stack
        self._do = do
        self._undo = undo
        self._skip = done

    def redo(self) -> None:
        if self._skip:  # applied before it was pushed
            self._skip = False
            return
        with self._stack.holding():
            self._do()

    def undo(self) -> None:
        with self._stack.holding():
            self._undo()


def push_edit(stack: UndoStack | None, text: str, do: Callable[[], object],
              undo: Callable[[], object], done: bool = False) -> None:
    """Record an edit (``done``: already applied) and apply it; a held or missing
    stack applies it without recording."""
    if stack is None or stack.held():
        if not done:
            do()
        return
    stack.push(Edit(stack, text, do, undo, done))


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
    Script page is in use."""

    def __init__(self, stack: QUndoStack, script_view=None,
                 script_active: Callable[[], bool] = lambda: False,
                 window_owned: tuple[QWidget, ...] = (), parent: QObject | None = None):
        super().__init__(parent)
        self.stack = stack
        self._script = script_view
        self._script_active = script_active
        self._window_owned = window_owned  # focus inside these: the window's stack

    def _on_script(self) -> bool:
        if self._script is None or not self._script_active():
            return False
        focus = QApplication.focusWidget()
        return not any(focus is not None and (focus is w or w.isAncestorOf(focus))
                       for w in self._window_owned)

    def can_undo(self) -> bool:
        if self._on_script():
            project = self._script.project
            return project is not None and project.can_undo()
        return self.stack.canUndo()

    def can_redo(self) -> bool:
        if self._on_script():
            project = self._script.project
            return project is not None and project.can_redo()
        return self.stack.canRedo()

    def undo_text(self) -> str:
        return "script edit" if self._on_script() else self.stack.undoText()

    def redo_text(self) -> str:
        return "script edit" if self._on_script() else self.stack.redoText()

    def undo(self) -> None:
        if self._on_script():
            self._script.undo()
        else:
            self.stack.undo()

    def redo(self) -> None:
        if self._on_script():
            self._script.redo()
        else:
            self.stack.redo()
