"""Where a script comes from in the Script view: a typed or browsed path, a new project
named in a Save dialog, or a script or project file dropped or pasted on the view or the
window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Slot
from PySide6.QtWidgets import QWidget

from studio.errors import UserError
from studio.paths import data_dir
from studio.scripts.books import BOOK_SUFFIXES
from studio.scripts.parse import SCRIPT_SUFFIXES
from studio.scripts.project import PROJECT_SUFFIX
from studio.views import file_dialogs
from studio.views.script_import import import_target, imported_said, imports_in_task
from studio.views.words import start_folder

OPENABLE = (PROJECT_SUFFIX, *SCRIPT_SUFFIXES, *BOOK_SUFFIXES)
NEW_FILTER = f"Script projects (*{PROJECT_SUFFIX})"
NOTHING_TO_SAVE = ("Open or start a project first; Save project as… writes a copy of the "
                   "open one.")


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
    chosen, _ = file_dialogs.save_file_name(parent, "New script", start, NEW_FILTER,
                                            confirm_overwrite=False)
    return new_project_path(chosen) if chosen else None


class StartsScripts:
    """The Script view's ways in: a typed or browsed path, New script…, drop or paste;
    and Save project as…. Mixed into ScriptView, whose ``show_project``, ``start_import``,
    ``add_line``, ``project``, ``pathEdit``, ``exportEdit``, ``table`` and ``notice`` it
    uses."""

    def _browse(self) -> None:
        path, _ = file_dialogs.open_file_name(
            self, "Open a project or import a script",
            start_folder(self.pathEdit.text().strip() or None, avoid=data_dir()),
            "Projects, scripts and books (*.ovproj *.txt *.md *.srt *.vtt *.epub)")
        if path:
            self.pathEdit.setText(path)
            self.open_path()

    @Slot()
    def open_path(self) -> None:
        text = self.pathEdit.text().strip()
        if not text:
            self.notice.show_message("Type the path of a project or a script, or Browse.")
            return
        self._open_saying(Path(text).expanduser())

    def open(self, path: Path) -> None:
        """Open a project (made when it does not exist yet) or import a script into a new
        project beside it (``name.ovproj``, or ``name 2.ovproj`` when that exists). A book
        (an EPUB, a long text) is imported on a task and opens when it is written."""
        from studio.scripts.parse import read_script
        from studio.scripts.project import PROJECT_SUFFIX, Project

        path = Path(path).absolute()
        made = False
        if imports_in_task(path):
            self.start_import(path)
            return
        if path.suffix.lower() == PROJECT_SUFFIX:
            existed = path.exists()
            made = not existed
            project = Project.open(path) if existed else Project.create(path)
            said = f"Opened {path.name}." if existed else f"Made the project {path.name}."
        else:
            script = read_script(path)
            target = import_target(path)
            project = Project.from_script(target, script, self._known_voices(script.speakers))
            said = imported_said(path, target, len(script.lines), len(script.speakers),
                                 sum(1 for line in script.lines if line.chapter))
            for warning in script.warnings:
                said += " " + warning
        self.show_project(project, said, made)

    def _known_voices(self, speakers) -> dict[str, dict]:
        """Speakers named like a saved voice get that voice at import."""
        names = self._saved_voice_names()
        return {s: {"voice": names[s.lower()]} for s in speakers if s.lower() in names}

    def _open_saying(self, path: Path) -> bool:
        """Open ``path``; a refusal is said in the view (False)."""
        try:
            self.open(path)
        except UserError as exc:
            self.notice.show_message(str(exc))
            return False
        return True

    def new_script(self) -> None:
        """File ▸ New script: name a new project in a Save dialog, then type its first line
        (a name that exists opens that project instead: nothing is overwritten)."""
        start = start_folder(self.pathEdit.text().strip() or None, avoid=data_dir())
        path = ask_new_project(self, str(Path(start) / f"Untitled{PROJECT_SUFFIX}"))
        if path is None:
            return
        if not self._open_saying(path):
            return
        if not self.project.lines():
            self.table.setFocus()
            self.add_line()

    def save_project_as(self) -> None:
        """File ▸ Save project as…: a complete copy under a new name, which this view then
        edits (the old file stays as it was). The Save dialog asks before replacing a file."""
        if self.project is None:
            self.notice.show_message(NOTHING_TO_SAVE)
            return
        old = self.project.path
        # "NAME copy": the open file itself would be asked "replace it?" only to be refused.
        start = old.with_name(f"{old.stem} copy{PROJECT_SUFFIX}")
        chosen, _ = file_dialogs.save_file_name(self, "Save project as", str(start),
                                                NEW_FILTER)
        path = new_project_path(chosen) if chosen else None
        if path is None:
            return
        try:
            self.project.save_as(path)
        except UserError as exc:  # the open file itself is no failure: said, not in red
            self.notice.show_message(str(exc), error=path.resolve() != old.resolve())
            return
        self.pathEdit.setText(str(path))
        # The copy exports beside itself, under its own name, in the same format: the
        # original's path (kept in the copied file) would write over the original's mix,
        # stems and subtitles the next time either is exported.
        suffix = Path(self.exportEdit.text().strip()).suffix or ".wav"
        mix = str(path.with_suffix(suffix))
        self.exportEdit.setText(mix)
        self.project.set_setting("export_path", mix)
        self._refresh()
        self.project_changed.emit(path)
        self.message.emit(f"Saved a copy as {path.name}; changes now save to it "
                          f"({old.name} stays as it was).")

    def handle_drop(self, mime) -> bool:
        """A dropped or pasted project or script opens (a script is imported); False when
        it holds none."""
        path = script_file_of(mime) if mime is not None else None
        if path is None:
            return False
        self._open_saying(path)
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
