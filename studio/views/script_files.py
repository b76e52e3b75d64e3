"""Where a script comes from in the Script view: a new project named in a Save dialog,
or a script or project file dropped or pasted on the view or the window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData
from PySide6.QtWidgets import QFileDialog, QWidget

from studio.errors import UserError
from studio.paths import data_dir
from studio.scripts.books import BOOK_SUFFIXES
from studio.scripts.parse import SCRIPT_SUFFIXES
from studio.scripts.project import PROJECT_SUFFIX
from studio.views.words import start_folder

OPENABLE = (PROJECT_SUFFIX, *SCRIPT_SUFFIXES, *BOOK_SUFFIXES)
NEW_FILTER = f"Script projects (*{PROJECT_SUFFIX})"


def script_file_of(mime: QMimeData) -> Path | None:
    """The first file in a drop or a paste that the Script view can open: a project or a
    script (by its suffix); a pasted path as text counts too. None when there is none."""
    candidates: list[Path] = []
    if mime.hasUrls():
        candidates += [Path(url.toLocalFile()) for url in mime.urls()
                       if url.isLocalFile() and url.toLocalFile()]
    if mime.hasText():
        text = mime.text().strip()
        if text and "\n" not in text and len(text) < 4096:
            candidates.append(Path(text.removeprefix("file://")).expanduser())
    return next((p for p in candidates if p.suffix.lower() in OPENABLE), None)


def new_project_path(chosen: str) -> Path | None:
    """The project file for a name typed in the Save dialog: ``.ovproj`` added when the
    name has another ending (or none)."""
    chosen = chosen.strip()
    if not chosen:
        return None
    path = Path(chosen).expanduser().absolute()
    if path.suffix.lower() != PROJECT_SUFFIX:
        path = path.with_name(path.name + PROJECT_SUFFIX)
    return path


def ask_new_project(parent: QWidget, start: str) -> Path | None:
    """A Save dialog: a name that does not exist yet is what it is for."""
    # An existing name opens that project (nothing is replaced), so no "replace it?" question.
    chosen, _ = QFileDialog.getSaveFileName(parent, "New script", start, NEW_FILTER,
                                            options=QFileDialog.Option.DontConfirmOverwrite)
    return new_project_path(chosen) if chosen else None


class StartsScripts:
    """The Script view's ways in, besides typing a path: New script… and drop or paste.
    Mixed into ScriptView, whose ``open``, ``add_line``, ``project``, ``pathEdit``,
    ``table`` and ``notice`` it uses."""

    def new_script(self) -> None:
        """File ▸ New script: name a new project in a Save dialog, then type its first line
        (a name that exists opens that project instead: nothing is overwritten)."""
        start = start_folder(self.pathEdit.text().strip() or None, avoid=data_dir())
        path = ask_new_project(self, str(Path(start) / f"Untitled{PROJECT_SUFFIX}"))
        if path is None:
            return
        try:
            self.open(path)
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        if not self.project.lines():
            self.table.setFocus()
            self.add_line()

    def handle_drop(self, mime) -> bool:
        """A dropped or pasted project or script opens (a script is imported); False when
        it holds none."""
        path = script_file_of(mime) if mime is not None else None
        if path is None:
            return False
        try:
            self.open(path)
        except UserError as exc:
            self.notice.show_message(str(exc))
        return True

    def dragEnterEvent(self, event) -> None:
        if script_file_of(event.mimeData()) is not None:
            event.acceptProposedAction()
            return
        super().dragEnterEvent(event)

    def dropEvent(self, event) -> None:
        if self.handle_drop(event.mimeData()):
            event.acceptProposedAction()
            return
        super().dropEvent(event)
