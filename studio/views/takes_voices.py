"""TakesAndVoices: the window's takes and saved voices, between the views that show them.

The takes panel, the Voices view and the Script view ask for things another view
does (render a take again in its form, use a voice in Clone, show a script line's
takes in the panel); the worker says when the voices or takes changed or an edit was
refused. This object connects those, reading the window's views at the time of each
call, and holds no state of its own.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Slot

from studio.errors import UserError
from studio.views.undo import snapshot_edit


class TakesAndVoices(QObject):
    def __init__(self, window, jobs):
        super().__init__(window)
        self._window = window  # the MainWindow: its views by name, show_view, the status bar
        self._jobs = jobs  # ViewJobs: a take rendered again goes through Generate's path

    def wire(self, controller) -> None:
        window, worker = self._window, controller.worker
        status = window.statusBarWidget
        script, panel, voices = window.scriptView, window.takesPanel, window.voicesView
        script.compare_requested.connect(self._compare_takes)
        script.line_takes_shown.connect(self._show_line_takes)
        panel.rerender_requested.connect(self._rerender)
        panel.copy_settings_requested.connect(self._copy_settings)
        panel.use_as_voice_requested.connect(self._take_as_voice)
        worker.takes_failed.connect(self._takes_failed)
        controller.takes_changed.connect(self._takes_changed)
        worker.voices_changed.connect(self._voices_changed)
        worker.voices_failed.connect(self._voices_failed)
        worker.voices_note.connect(status.show_message)
        voices.rename_requested.connect(controller.rename_voice)
        voices.transcript_requested.connect(controller.set_voice_transcript)
        voices.update_requested.connect(controller.update_voice)
        voices.duplicate_requested.connect(controller.duplicate_voice)
        voices.delete_requested.connect(controller.delete_voice)
        voices.undelete_requested.connect(controller.undelete_voice)
        voices.import_requested.connect(controller.import_voice)
        voices.export_requested.connect(controller.export_voice)
        voices.use_requested.connect(self._use_voice)
        voices.new_voice_requested.connect(self._new_voice)
        voices.show_takes_requested.connect(self._show_voice_takes)
        voices.scripts_using = self._scripts_using

    # ------------------------------------------------------------------ takes
    @Slot(object, object)
    def _show_line_takes(self, take_ids, chosen) -> None:
        """The script line selected (or just rendered): its takes, the chosen one current."""
        if self._window.current_view() != "script":
            return
        panel = self._window.takesPanel
        if any(panel.model.row_of_id(i) < 0 for i in take_ids):
            panel.refresh()  # a take just rendered may not be read yet
        if any(panel.model.row_of_id(i) >= 0 for i in take_ids):  # (filtered out: left be)
            panel.select_ids(take_ids, current=chosen)

    @Slot(object)
    def _compare_takes(self, take_ids) -> None:
        """A script line's two takes, in the takes panel's A/B."""
        panel = self._window.takesPanel
        panel.refresh()
        panel.select_ids(take_ids, current=take_ids[0])
        if len(panel.selected_takes()) != 2:
            self._window.statusBarWidget.show_error(
                "The line's takes are hidden by the takes panel's search or filter; "
                "clear it to compare them.")
            return
        panel.compare()

    def _form_of(self, take) -> tuple[str, QObject]:
        """The page (its name) and the Generate form that rendered ``take``."""
        if take.settings.mode == "design":
            return "design", self._window.designView
        return "clone", self._window.cloneView

    @Slot(object, int)
    def _rerender(self, take, seed: int) -> None:
        """Render a take again (its own seed: identical audio) through Generate's path."""
        from studio.service.snapshot import request_from_take

        try:
            request = request_from_take(take, seed)
        except UserError as exc:
            self._window.statusBarWidget.show_error(str(exc))
            return
        page, view = self._form_of(take)
        self._window.show_view(page)
        self._jobs.render(view, request)

    @Slot(object)
    def _copy_settings(self, take) -> None:
        """A take's settings into its form (one Edit ▸ Undo puts the form back), saying
        what changed: the seed is locked, so Generate renders that take again."""
        page, view = self._form_of(take)
        snapshot_edit(self._window.undoStack, view, "Use a take's settings",
                      lambda: view.apply_take(take.settings))
        self._window.show_view(page)
        self._window.statusBarWidget.show_message(
            f"The {page.capitalize()} form now holds the take's text and settings, with its "
            "variation locked so Generate renders it again; Edit ▸ Undo (Ctrl+Z) puts your "
            "form back.")

    @Slot()
    def _takes_changed(self) -> None:
        """A take deleted or restored: a script line that used it shows it."""
        self._window.scriptView.takes_changed()

    @Slot(str)
    def _takes_failed(self, sentence: str) -> None:
        self._window.takesPanel.refresh()  # drop the optimistic edit the worker refused
        self._window.statusBarWidget.show_error(sentence)

    def _take_as_voice(self, take) -> None:
        """A take kept as a voice, in a small dialog over the view the user is on (a
        designed voice is kept from Design, not by a trip to Clone): how a designed voice
        stops drifting from line to line."""
        from studio.views.take_voice_dialog import TakeVoiceDialog

        window = self._window
        row = window.takesPanel.model.row_info(window.takesPanel.model.row_of_id(take.id))
        position = (row.position or f"Take {row.number}") if row is not None else "this take"
        dialog = TakeVoiceDialog(take, position, window.voicesView.library(), parent=window)
        dialog.save_requested.connect(lambda request: self._jobs.save_voice(dialog, request))
        dialog.show()

    # ------------------------------------------------------------------ voices
    def _scripts_using(self, voice) -> dict[str, list[str]]:
        """The open script's speakers who speak in ``voice`` (a saved voice, by name)."""
        project = self._window.scriptView.project
        if project is None:
            return {}
        speakers = [s.name for s in project.speakers()
                    if s.kind == "voice" and (s.voice or "").lower() == voice.name.lower()]
        return {project.path.stem: speakers} if speakers else {}

    @Slot()
    def _voices_changed(self) -> None:
        window = self._window
        window.cloneView.voices.refresh()
        window.voicesView.refresh()
        window.scriptView.voices_changed()  # its speakers' voice list and the cast
        window.takesPanel.refresh()  # takes name their saved voice

    @Slot(str)
    def _voices_failed(self, sentence: str) -> None:
        self._window.voicesView.refresh()  # drop what the view showed of the refused edit
        self._window.statusBarWidget.show_error(sentence)

    def _use_voice(self, voice) -> None:
        self._window.show_view("clone")
        self._window.cloneView.pick_voice(voice.id)

    def _new_voice(self, clip: Path) -> None:
        """An audio clip dropped on the Voices view: the Clone view, ready to name it."""
        self._window.show_view("clone")
        self._window.cloneView.start_voice(clip)

    def _show_voice_takes(self, voice_id: str) -> None:
        if not self._window.takesPanel.filter_voice(voice_id):
            self._window.statusBarWidget.show_message(
                "No takes have been rendered in this voice yet.")
