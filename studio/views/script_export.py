"""The Script view's mix: playing it from the selected line (the row being heard follows
the playhead) and exporting it (the mix, stems, an SRT and a cue sheet).

Both read every chosen take and mix them, which for a long project is seconds of file
work, so both run as a :class:`~studio.views.file_task.FileTask` on their own thread
(not the worker's, which is busy rendering) over the same functions ``script render``
uses (studio/scripts/export.py). The project's rows are read here first (its SQLite
connection belongs to the GUI thread) into a MixPlan, and the task opens its own
read-only take library. Its progress shows on the view's progress line when no render
is using it; Cancel stops it, and a failed or cancelled export leaves no file.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from PySide6.QtWidgets import QCheckBox, QLineEdit, QPushButton

from studio.errors import UserError
from studio.views.progress_text import CANCELLING

SCRIPT_KEY = "script"  # the player's key of a project's mix: ("script", project path)
EXPORT_CANCELLED = "The export was cancelled; no file was written."
WAIT_ON_CLOSE_S = 5.0  # a cancelled export removes its temporary files within a block


def build_export_row(view) -> None:
    """The export row's widgets, as attributes of ``view``."""
    view.exportEdit = QLineEdit()
    view.exportEdit.setObjectName("exportPathEdit")
    view.exportEdit.setPlaceholderText("Mixed track (.wav, .mp3, .m4b…)")  # whole at 1024 px
    view.exportEdit.setToolTip("Where the mixed track goes: a .wav, .flac, .ogg or .mp3 file, "
                               "or an .m4b audiobook with chapters")
    view.stemsCheck = QCheckBox("Stems")
    view.stemsCheck.setObjectName("exportStemsCheck")
    view.stemsCheck.setToolTip("One track per speaker, the mix's length, in a folder "
                               "beside the mix (an .m4b audiobook: one MP3 per chapter)")
    view.stemsCheck.setChecked(True)
    view.srtCheck = QCheckBox("Subtitles")
    view.srtCheck.setObjectName("exportSrtCheck")
    view.srtCheck.setToolTip("An SRT of what was rendered and a cue sheet of the chapters")
    view.srtCheck.setChecked(True)
    view.exportButton = QPushButton("Export")
    view.exportButton.setObjectName("exportScriptButton")


def _mix_task(view, work, failure: str, cancelled_by=()):
    """A FileTask over ``work(takes, progress, cancel)`` with its own take-library reader
    (none when the view has no library: every line then counts as not rendered)."""
    from studio.views.file_task import FileTask

    reader = view._takes() if view._takes is not None else None
    root = getattr(reader, "root", None)

    def run(progress, cancel):
        if root is None:
            return work(None, progress, cancel)
        from studio.library.takes import TakeLibrary

        with TakeLibrary(root, read_only=True) as takes:
            return work(takes, progress, cancel)

    task = FileTask(run, failure, cancelled_by=cancelled_by, parent=view)
    task.progress.connect(view._task_progress)
    return task


def listed(items: list[str]) -> str:
    """"a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def mix_said(mix: Path, written: list[Path]) -> str:
    """What a mix export wrote, each file named: "Exported dialogue.wav, .srt, .cue and
    2 stems in 'dialogue_stems/' to /projects." (the stems by count: one per speaker)."""
    beside = [p for p in written if p.parent == mix.parent and p != mix]
    stems = [p for p in written if p.parent != mix.parent]
    parts = [mix.name, *(p.suffix if p.stem == mix.stem else p.name for p in beside)]
    if stems:
        parts.append(f"{len(stems)} stem{'s' if len(stems) != 1 else ''} in "
                     f"'{stems[0].parent.name}/'")
    return f"Exported {listed(parts)} to {mix.parent}."


def book_said(mix: Path, result, *, srt: bool = False) -> str:
    """What an audiobook export wrote (the chapter MP3s' folder named), that its chapters
    are normalised (a take's loudness badge is about the take, not the book), and each
    chapter that fails ACX (one sentence each) with the gain offered where one fixes it."""
    from studio.sound.acx import RMS_TARGET_DB

    mp3s = result.written[1:]
    said = f"Exported {mix.name} ({len(result.chapters)} chapters) to {mix.parent}"
    if mp3s:
        said += (f", and {len(mp3s)} chapter MP3{'s' if len(mp3s) != 1 else ''} "
                 f"to {mp3s[0].parent}")
    said += (f". Each chapter is normalised to {RMS_TARGET_DB:g} dB RMS for ACX, so a "
             "take's own loudness badge is about that take, not the book.")
    if srt:
        said += " Subtitles are not written for an audiobook; its chapters are in the .m4b."
    failing = result.sentences()
    if not failing:
        return said + " Every chapter passes ACX."
    return said + " ACX: " + " ".join(failing)


class PlaysAndExports:
    """ScriptView's mix part (it holds the widgets, the player and the open project)."""

    _export_job = None  # SimpleNamespace(task, mix, stale, project, srt) while one runs
    _play_task = None  # the FileTask making the mix to play, while it runs
    _no_take_said = None  # the sentence that a line has no take, until a render ends

    def _render_ended(self) -> None:
        """A render ended: a "no take yet" sentence said before it no longer applies."""
        if self._no_take_said is not None and self.notice.text() == self._no_take_said:
            self.notice.clear_message()
        self._no_take_said = None

    def exporting(self) -> bool:
        return self._export_job is not None

    def _cancel_clicked(self) -> None:
        """Cancel: the export running (if any), and the render (when one is). Said at
        once: a render stops at its next step, seconds later on a CPU, and the progress
        line kept moving meanwhile (review 8)."""
        if self._cancelling or not (self._busy or self.exporting() or self.importing()):
            return
        self._cancelling = True
        self.progress.setVisible(True)
        if self.progress.maximum() == 0:  # a busy bar draws no text: stand it still
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
        self.progress.setFormat(CANCELLING)
        self._show_cancel()
        if self._export_job is not None:
            self._export_job.task.cancel()
        self._cancel_import()
        if self._busy:
            self.cancel_requested.emit()

    def _stop_tasks(self) -> None:
        """The project closes (or the studio quits): its mix tasks stop; an export removes
        what it had written."""
        if self._play_task is not None:
            self._play_task.cancel()
            self._play_task = None
        if self._export_job is not None:
            self._export_job.task.cancel(wait=WAIT_ON_CLOSE_S)

    def _start_task(self, task, name: str, first_step: str, done, over, cancelled: str) -> None:
        """Start a file task: its result goes to ``done``, a failure's sentence (or
        ``cancelled``) to ``over``, and ``first_step`` shows on the progress line."""
        task.done.connect(done)
        task.failed.connect(over)
        task.cancelled.connect(lambda: over(cancelled))
        self.notice.clear_message()
        self._task_progress(first_step, 0.0)
        task.start(name)
        self._refresh()

    def _task_progress(self, what: str, fraction: float) -> None:
        if self._busy or self._cancelling:
            return  # the render's progress (or "Cancelling…") has the line
        self.progress.setVisible(True)
        self.progress.setRange(0, 1000)
        self.progress.setValue(round(1000 * min(max(fraction, 0.0), 1.0)))
        self.progress.setFormat(f"{what} · {fraction:.0%}")

    def _task_over(self) -> None:
        self._show_cancel()
        if not self._busy and self._export_job is None and self._play_task is None \
                and not self.importing():
            self.progress.hide()
        self._refresh()

    # ------------------------------------------------------------------ playing
    def _key(self):
        return (SCRIPT_KEY, str(self.project.path)) if self.project is not None else None

    def _mine(self) -> bool:
        return self._player is not None and self._key() is not None \
            and self._player.key() == self._key()

    def toggle_play(self) -> None:
        if self._player is None or self.project is None:
            return
        if self._mine() and self._player.state() == "playing":
            self._player.pause()
            return
        if self._mine() and self._player.streaming():
            self._player.play()  # a render's lines, paused: carry on where they were
            return
        if self._play_task is not None:
            return  # the mix is being made; it plays when it is
        from studio.scripts.export import mix_of_plan, plan_mix

        try:
            plan = plan_mix(self.project, self.take_reader())
        except UserError as exc:  # a damaged project row
            self.play_failed.emit(str(exc))
            return

        line_ids = [line.id for line in self.project.lines()]

        def work(takes, _progress, cancel):
            script, rendered, rate = mix_of_plan(plan, takes, missing="skip", cancel=cancel)
            # The lines mixed (a take that cannot be read is left out): each span's line.
            kept = {id(line) for line in script.lines}
            mixed = [line_ids[n] for n, line in enumerate(plan.script.lines) if id(line) in kept]
            return mixed, rendered.spans, rendered.mix, rate

        ids = self.selected_ids()
        key = self._key()
        task = _mix_task(self, work, "The mix could not be read")
        task.done.connect(lambda result: self._mix_ready(task, key, ids[0] if ids else None,
                                                         result))
        task.failed.connect(lambda sentence: self._mix_failed(task, sentence))
        task.cancelled.connect(lambda: self._mix_failed(task, None))
        self._play_task = task
        task.start("script-mix")

    def _mix_ready(self, task, key, first, result) -> None:
        task.deleteLater()
        if task is not self._play_task:
            return  # the project closed meanwhile
        self._play_task = None
        self._task_over()
        if key != self._key():
            return
        mixed, spans, mix, rate = result
        self._spans = [(line_id, start / rate, end / rate) for line_id, (start, end)
                       in zip(mixed, spans)]
        start = next((s for line_id, s, _e in self._spans if line_id == first), 0.0)
        self._player.load(mix, rate, key)
        self._player.seek(start)
        self._player.play()

    def _mix_failed(self, task, sentence: str | None) -> None:
        task.deleteLater()
        if task is not self._play_task:
            return
        self._play_task = None
        self._task_over()
        if sentence is not None:
            self.play_failed.emit(sentence)

    def _follow(self, seconds: float) -> None:
        """The row of the line being heard is the current one while the mix plays."""
        if not self._mine() or self._player.state() != "playing":
            return
        for line_id, start, end in self._spans:
            if start <= seconds < end:
                row = self.model.row_of(line_id)
                if row >= 0 and row != self.table.currentIndex().row():
                    self.select_row(row)
                    self.table.scrollTo(self.model.index(row, 0))
                return

    def _refresh_play(self) -> None:
        playing = self._mine() and self._player.state() == "playing"
        self.playButton.setText("Pause" if playing else "Play from line")

    def _stop_mine(self) -> None:
        if self._mine():
            self._player.stop()

    # ------------------------------------------------------------------ export
    def export(self) -> None:
        """Check the path here (one sentence at once), then mix and write on the task's
        thread; ``message`` says what was written when it is."""
        from studio.scripts.audiobook import (
            AUDIOBOOK_SUFFIX,
            check_audiobook_path,
            export_audiobook,
        )
        from studio.scripts.export import (
            ExportCancelled,
            check_mix_path,
            export_plan,
            plan_mix,
        )
        from studio.service.lines import check_spoken

        if self.project is None or self._export_job is not None:
            return
        text = self.exportEdit.text().strip()
        if not text:
            self.notice.show_message("Type where the mix goes, such as show.wav.")
            return
        mix = Path(text).expanduser().absolute()
        book = mix.suffix.lower() == AUDIOBOOK_SUFFIX
        try:
            check_audiobook_path(mix) if book else check_mix_path(mix)
            plan = plan_mix(self.project, self.take_reader())
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        missing = next((n for n, take in enumerate(plan.takes, 1) if take is None), None)
        if missing is not None:  # said here, where the button's words are known
            try:
                check_spoken(plan.script.lines[missing - 1].text, missing)
            except UserError as exc:  # an empty line: rendering would not give it a take
                self.notice.show_message(str(exc))
                return
            self._no_take_said = (f"Line {missing} has no take yet; render it "
                                  f"({self.renderStaleButton.text()}) before exporting.")
            self.notice.show_message(self._no_take_said)
            return
        stems, srt = self.stemsCheck.isChecked(), self.srtCheck.isChecked()
        title = self.project.setting("book_title") or self.project.path.stem
        author = self.project.setting("book_author") or ""
        from studio.scripts.books import book_cover

        cover = book_cover(self.project)

        def work(takes, progress, cancel):
            if book:
                return export_audiobook(plan, takes, mix, title=title, author=author,
                                        cover=cover, mp3s=stems,
                                        on_progress=progress, cancel=cancel)
            return export_plan(plan, takes, mix, stems=stems, srt=srt, on_progress=progress,
                               cancel=cancel)

        task = _mix_task(self, work, f"The export could not be written to {mix.parent}",
                         cancelled_by=(ExportCancelled,))
        stale = sum(1 for r in self.model.rows() if r.status == "stale")
        job = SimpleNamespace(task=task, mix=mix, stale=stale, project=plan.project,
                              srt=book and srt)
        self._export_job = job
        self._start_task(task, "script-export", "Reading the takes",
                         lambda written: self._exported(job, written),
                         lambda sentence: self._export_over(job, sentence), EXPORT_CANCELLED)

    def _exported(self, job, written) -> None:
        mix = job.mix
        if self.project is not None and self.project.path == job.project \
                and self.project.setting("export_path") != str(mix):
            self.project.set_setting("export_path", str(mix))
        said = book_said(mix, written, srt=job.srt) if hasattr(written, "acx") else (
            mix_said(mix, written))
        if job.stale:
            said += (f" {job.stale} line{'s' if job.stale != 1 else ''} changed after rendering: "
                     "the mix has the takes rendered before the change.")
        self._export_over(job, said, error=False)
        self.exported.emit(said, str(mix.parent))

    def _export_over(self, job, sentence: str, *, error: bool = True) -> None:
        job.task.deleteLater()
        if job is self._export_job:
            self._export_job = None
        self.notice.show_message(sentence, error=error)
        self._task_over()
