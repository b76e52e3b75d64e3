"""The Script view's edits: lines added, moved, deleted and given speakers, speakers given
voices, the project's pronunciations applied; each one undoable edit of the open Project
(a refused one is said in the view and changes nothing)."""

from __future__ import annotations

import random

from PySide6.QtCore import QItemSelectionModel, Qt

from studio.errors import UserError
from studio.scripts.dictionary import parse_dictionary
from studio.views.script_lines_model import TEXT


class EditsLines:
    """ScriptView's editing part (it holds the widgets and the open project)."""

    def _edit(self, change, *args, **kwargs) -> bool:
        """One project edit; a refused one is said in the view and changes nothing."""
        if self.project is None:
            return False
        try:
            change(*args, **kwargs)
        except UserError as exc:
            self.notice.show_message(str(exc))
            return False
        self.notice.clear_message()
        self._refresh()
        return True

    def undo(self) -> None:
        if self.project is not None and self.project.undo():
            self._refresh()

    def redo(self) -> None:
        if self.project is not None and self.project.redo():
            self._refresh()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        if not rows and self.table.currentIndex().isValid():
            rows = [self.table.currentIndex().row()]
        return [self.model.row(r).line_id for r in rows if self.model.row(r) is not None]

    def select_row(self, row: int) -> None:
        """Make ``row`` the one selected and current line. (QTableView.selectRow would
        extend the selection while Ctrl is held, as it is for Ctrl+Up/Down.)"""
        index = self.model.index(row, TEXT)
        if not index.isValid():
            return
        flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                 | QItemSelectionModel.SelectionFlag.Rows)
        self.table.selectionModel().setCurrentIndex(index, flags)

    def current_line(self):
        ids = self.selected_ids()
        return self.project.line(ids[0]) if ids and self.project is not None else None

    def add_line(self, speaker: int | None = None) -> None:
        """A new line after the current one, being edited: spoken by ``speaker`` (an id),
        else by the current line's speaker, else by the first."""
        if self.project is None:
            return
        current = self.current_line()
        speakers = self.project.speakers()
        if current is None and not speakers:
            self._edit(self.project.add_speaker, "Narrator", "design")
            speakers = self.project.speakers()
        if speaker not in {s.id for s in speakers}:
            speaker = current.speaker if current is not None else speakers[0].id
        before = {line.id for line in self.project.lines()}
        # Empty, its editor and cell showing a grey hint (script_text_delegate): a "…"
        # stored as its text stayed in front of whatever was typed after a click.
        if not self._edit(self.project.add_line, speaker, "",
                          after=current.id if current is not None else None):
            return
        if self._made and not before:
            # A new project's first speaker and line are its making, not an edit to undo
            # (Undo stood enabled on a project just made).
            self.project.forget_history()
            self._refresh_undo()
        self._made = False
        new = next(line.id for line in self.project.lines() if line.id not in before)
        row = self.model.row_of(new)
        self.select_row(row)
        self.table.edit(self.model.index(row, TEXT))

    def _add_line_clicked(self) -> None:
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)  # Enter adds the next one
        # The speaker chosen in the cast: it was always the current line's (a Narrator
        # line with Tom chosen).
        self.add_line(self.cast.current_speaker())

    def delete_lines(self) -> None:
        for line_id in self.selected_ids():
            self._edit(self.project.delete_line, line_id)

    def _move(self, step: int) -> None:
        ids = self.selected_ids()
        if self.project is None or len(ids) != 1:
            return
        lines = self.project.lines()
        at = next(n for n, line in enumerate(lines) if line.id == ids[0])
        target = at + step
        if not 0 <= target < len(lines):
            return
        after = None if target == 0 else lines[target if step > 0 else target - 1].id
        self._edit(self.project.move_line, ids[0], after)
        self.select_row(self.model.row_of(ids[0]))

    def assign_speaker(self, number: int) -> None:
        """Alt+number: the selected lines get the project's speaker ``number``."""
        if self.project is None:
            return
        speakers = self.project.speakers()
        if not 1 <= number <= len(speakers):
            return
        for line_id in self.selected_ids():
            if self.project.line(line_id).speaker != speakers[number - 1].id:
                self._edit(self.project.set_line, line_id, speaker=speakers[number - 1].id)

    def _line_speaker_chosen(self, index: int) -> None:
        speaker = self.lineSpeakerCombo.itemData(index)
        for line_id in self.selected_ids():
            if self.project.line(line_id).speaker != speaker:
                self._edit(self.project.set_line, line_id, speaker=speaker)

    def _pause_edited(self) -> None:
        line = self.current_line()
        if line is not None and abs(line.pause_after - self.pauseSpin.value()) > 1e-9:
            self._edit(self.project.set_line, line.id, pause_after=self.pauseSpin.value())

    def _take_chosen(self, index: int) -> None:
        line, take = self.current_line(), self.takeCombo.itemData(index)
        if line is not None and take and take != line.take:
            self._edit(self.project.choose_take, line.id, take)

    def _line_typed(self, line_id: int, text: str) -> None:
        """A line's text typed in the table: "Alice: Hello." makes Alice its speaker, as an
        imported script's line does; a new one joins the cast and is shown in the speaker
        row, ready for a voice."""
        if self.project is None:
            return
        before = {s.id for s in self.project.speakers()}
        if self._edit(self.project.type_line, line_id, text):
            new = next((s for s in self.project.speakers() if s.id not in before), None)
            if new is not None:
                self.speakerCombo.setCurrentIndex(max(0, self.speakerCombo.findData(new.id)))
                self.message.emit(f"{new.name} joined the cast: pick a saved voice or "
                                  "describe one for them.")

    def _add_speaker(self) -> None:
        name = self.newSpeakerEdit.text().strip()
        if self.project is not None and name and self._edit(self.project.add_speaker, name,
                                                            "design"):
            self.newSpeakerEdit.clear()
            self.speakerCombo.setCurrentIndex(self.speakerCombo.count() - 1)

    def current_speaker(self):
        speaker_id = self.speakerCombo.currentData()
        if self.project is None or speaker_id is None:
            return None
        return next((s for s in self.project.speakers() if s.id == speaker_id), None)

    def _voice_chosen(self, index: int) -> None:
        speaker, (kind, value) = self.current_speaker(), self.voiceCombo.itemData(index)
        if speaker is None:
            return
        if kind == "voice":
            self._edit(self.project.set_voice, speaker.id, "voice", voice=value,
                       language=speaker.language)
        elif kind == "design":
            self.instructEdit.setFocus()
            self._show_speaker()

    def _instruct_edited(self) -> None:
        speaker, instruct = self.current_speaker(), " ".join(self.instructEdit.text().split())
        if speaker is None or not instruct or (speaker.kind == "design"
                                               and speaker.instruct == instruct):
            return
        seed = speaker.seed if speaker.kind == "design" and speaker.seed is not None \
            else random.randrange(2**31)  # locked: every line of this speaker, the same voice
        self._edit(self.project.set_voice, speaker.id, "design", instruct=instruct, seed=seed,
                   language=speaker.language)

    def _apply_dictionary(self) -> None:
        try:
            lexicon = parse_dictionary(self.dictionaryEdit.toPlainText())
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        if self._edit(self.project.set_dictionary, lexicon):
            self.message.emit(f"The project's pronunciations: {len(lexicon)} "
                              f"entr{'y' if len(lexicon) == 1 else 'ies'}.")
