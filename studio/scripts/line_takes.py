"""Which takes a script line has, now: the project lists take ids (the one chosen and every
one rendered for the line); the take library says which of them are still there. A take
deleted in the library (restorable with Undo) or gone from it is no line's take: the line
is not rendered, or keeps its other takes, and its audio leaves the mix, the stems and the
subtitles. The project keeps the ids, so restoring the take gives it back to its line.

The one place that answers this: the Script view, the export plan and the command line
all read a line's takes here, never ``line.take`` or ``Project.takes_of`` alone.
"""

from __future__ import annotations

from studio.errors import UserError


class LineTakes:
    """A project's lines' takes as the take library ``takes`` holds them (a reader with
    ``get(id) -> Take``; None when the library cannot be opened: every listed id counts,
    for nothing can say otherwise). Short-lived: each take is looked up once."""

    def __init__(self, project, takes=None):
        self._project = project
        self._takes = takes
        self._kept: dict[str, bool] = {}

    def holds(self, take_id: str | None) -> bool:
        """Whether ``take_id`` is a take the library still lists (not deleted, not gone)."""
        if take_id is None:
            return False
        if self._takes is None:
            return True
        if take_id not in self._kept:
            try:
                self._kept[take_id] = not getattr(self._takes.get(take_id), "deleted", False)
            except UserError:  # pruned, or never saved
                self._kept[take_id] = False
        return self._kept[take_id]

    def chosen(self, line) -> str | None:
        """The line's chosen take, or None: none chosen, or it was deleted."""
        return line.take if self.holds(line.take) else None

    def listed(self, line_id: int) -> list[str]:
        """The line's takes, oldest first, less the deleted ones."""
        return [t for t in self._project.takes_of(line_id) if self.holds(t)]

    def status(self, line) -> str:
        """The project's status of the line ("done", "stale"), "not rendered" when its
        chosen take was deleted."""
        return self._project.status(line) if self.chosen(line) else "not rendered"

    def all_chosen(self, lines) -> tuple[str | None, ...]:
        return tuple(self.chosen(line) for line in lines)
