"""Which takes a script project's Takes filter lists: those filed under its file's path
(the take's ``$.project``, set when it rendered) and those its lines use, by take id,
whichever file they were first rendered for. So a project saved under a new name lists
the takes it kept, and the original still lists them too. One rule, read by the library's
query and by the session's unsaved takes alike."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from studio.library.take_record import Take


@dataclass(frozen=True)
class ProjectTakes:
    """``path``: the project file ("" for the Clone and Design takes, of no project);
    ``ids``: the take ids its lines use."""

    path: str
    ids: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, project: str | ProjectTakes, ids: Iterable[str] = ()) -> ProjectTakes:
        """A path alone is the takes filed under it."""
        if isinstance(project, ProjectTakes):
            return project
        return cls(project, frozenset(ids))

    def holds(self, take: Take) -> bool:
        return (take.settings.project or "") == self.path or take.id in self.ids

    def where(self) -> tuple[str, list]:
        """The SQL condition on the takes table, and its parameters."""
        filed = "coalesce(json_extract(settings, '$.project'), '') = ?"
        if not self.ids:
            return filed, [self.path]
        # The ids as one JSON parameter, not an IN list: a long project's thousands of
        # takes would pass SQLite's limit on parameters.
        return (f"({filed} OR id IN (SELECT value FROM json_each(?)))",
                [self.path, json.dumps(sorted(self.ids))])
