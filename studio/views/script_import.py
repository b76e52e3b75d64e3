"""The Script view's book import: an EPUB, or a text or Markdown file too long to read in
a moment, becomes a new project on a :class:`~studio.views.file_task.FileTask` (reading,
splitting and writing thousands of lines is seconds of work), with its progress on the
view's progress line and Cancel; the project opens when it is written. Short scripts are
still imported at once (studio/views/script_view.py ``open``).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from studio.scripts.project import PROJECT_SUFFIX

IN_TASK_BYTES = 64 * 1024  # a text this large imports on a task (a 100k-character book)
IMPORT_CANCELLED = "The import was cancelled; no project was written."


def import_target(path: Path) -> Path:
    """The new project beside ``path``: ``name.ovproj``, or ``name 2.ovproj`` when that
    exists (nothing is overwritten)."""
    target = path.with_suffix(PROJECT_SUFFIX)
    n = 2
    while target.exists():
        target = path.with_name(f"{path.stem} {n}{PROJECT_SUFFIX}")
        n += 1
    return target


def imported_said(source: Path, target: Path, lines: int, speakers: int, chapters: int) -> str:
    """The one sentence of an import, the same for a script, a Markdown text and a book."""
    from studio.wording import count_words

    said = (f"Imported {source.name} into {target.name}: {count_words(lines, 'line')}, "
            f"{count_words(speakers, 'speaker')}")
    return said + (f", in {count_words(chapters, 'chapter')}." if chapters else ".")


def imports_in_task(path: Path) -> bool:
    suffix = path.suffix.lower()
    if suffix == ".epub":
        return True
    try:
        return suffix in (".txt", ".md") and path.stat().st_size > IN_TASK_BYTES
    except OSError:
        return False  # said by the import itself


class ImportsBooks:
    """ScriptView's book import part (it holds the progress line, notice and signals)."""

    _import_job = None  # SimpleNamespace(task, source, target) while one runs

    def importing(self) -> bool:
        return self._import_job is not None

    def start_import(self, path: Path) -> None:
        from studio.scripts.books import ImportCancelled, import_book
        from studio.views.file_task import FileTask

        if self._import_job is not None:
            self.notice.show_message("A book is being imported; wait for it or Cancel it.")
            return
        target = import_target(path)
        known = self._saved_voice_names()  # the library is read here, on the GUI thread

        def voices_for(speakers):
            return {s: {"voice": known[s.lower()]} for s in speakers if s.lower() in known}

        def work(progress, cancel):
            return import_book(path, target, voices_for, on_progress=progress, cancel=cancel)

        task = FileTask(work, f"The book {path.name} could not be imported",
                        cancelled_by=(ImportCancelled,), parent=self)
        task.progress.connect(self._task_progress)
        job = SimpleNamespace(task=task, source=path, target=target)
        self._import_job = job
        self._start_task(task, "script-import", "Reading the book",
                         lambda summary: self._imported(job, summary),
                         lambda sentence: self._import_over(job, sentence), IMPORT_CANCELLED)

    def _saved_voice_names(self) -> dict[str, str]:
        try:
            return {v.name.lower(): v.name for v in self.library().list()}
        except Exception:  # no library (tests, a damaged one): speakers stay designed
            return {}

    def _imported(self, job, summary: dict) -> None:
        from studio.errors import UserError
        from studio.scripts.project import Project

        self._import_over(job, None)
        said = imported_said(job.source, job.target, summary["lines"],
                             len(summary["speakers"]), len(summary["chapters"]))
        try:
            self.show_project(Project.open(job.target), said)
        except UserError as exc:
            self.notice.show_message(str(exc))

    def _import_over(self, job, sentence: str | None) -> None:
        job.task.deleteLater()
        if job is self._import_job:
            self._import_job = None
        if sentence is not None:
            self.notice.show_message(sentence)
        self._task_over()

    def _cancel_import(self, wait: float = 0.0) -> None:
        if self._import_job is not None:
            self._import_job.task.cancel(wait=wait)
