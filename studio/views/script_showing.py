"""The Script view showing the open project: the lines table's rows (status, length,
voice), the speaker's voice row, the current line's takes and how the model will read
it, and which actions are enabled."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from studio.errors import UserError
from studio.views.script_cast import cast_entries, preview_source, swatch, voice_words
from studio.views.script_lines_model import LineRow
from studio.views.takes_model import suspect_label
from studio.wording import count_words

DESIGN_ITEM = "Describe a voice…"
# The voice box is as wide as its longest item up to this many characters (the description
# box beside it needs room); a longer name is whole in the box's tooltip.
VOICE_BOX_MOST = 30
VOICE_BOX_TIP = ("A saved voice, or a voice described in words with a locked seed, so every "
                 "line sounds like the same person")
RENDER_CHANGED = "Render changed"
SEED_LOCKED = "Same variation each render"  # the Clone and Design forms' words too
EMPTY_HINT = ("Start a New script…, open a project, or drop a script here to import it: "
              "lines such as \"Alice: Hello.\", Markdown "
              "with # chapters, or SRT/VTT subtitles. Each name becomes a speaker.")

# Beside the project's name: nobody should look for a Save button (every edit is committed
# and checkpointed into the one file as it is made).
SAVES = "saved automatically"


def saves_tip(name: str) -> str:
    return (f"Every change is saved to {name} as you make it, and that one file is the whole "
            "project: copy or back it up as it is. File ▸ Save project as… (Ctrl+Shift+S) "
            "writes a copy under another name.")


def locked_tip(name: str, seed: int) -> str:
    """What SEED_LOCKED means and how to hear another variation, in words (the seed only
    as a detail at the end)."""
    return (f"All of {name}'s lines keep one voice: a description fits many voices, and the "
            "same one of them renders every line, each time (changing the words keeps it). "
            "To hear another for one line, select it and press New variation; its earlier "
            f"takes stay to pick from. (Variation number {seed}.)")


def render_changed_text(count: int) -> str:
    """The button that renders the lines with no take, or whose text or voice changed
    (short: the sentence is its tooltip, render_changed_tip)."""
    return f"Render {count} changed" if count else RENDER_CHANGED


def render_changed_tip(count: int) -> str:
    if not count:
        return "Render the lines that are new or changed: none are now (Ctrl+R)"
    return (f"Render the {count_words(count, 'line')} new or changed since "
            f"{'its' if count == 1 else 'their'} take (Ctrl+R)")


class ShowsProject:
    """ScriptView's showing part (it holds the widgets and the open project)."""

    def voices_changed(self) -> None:
        """A voice was saved, renamed or deleted: the speakers' voice list and the cast
        (a voice saved from a take is picked here at once) read the library again; the
        sentence that a speaker's voice was missing goes once it is back (an undo)."""
        self._refresh()
        said, self._missing_said = self._missing_said, None
        if said is not None:
            if said[0].lower() not in self._saved_names():
                self._missing_said = said  # still missing
            elif self.notice.text() == said[1]:
                self.notice.clear_message()

    def takes_changed(self) -> None:
        """The take library changed (a take deleted or restored in the Takes panel): a
        line whose take was deleted shows as not rendered, and Undo gives it back."""
        if self.project is not None:
            self._refresh()
            if all(row.take for row in self.model.rows()):  # "Line n has no take" is past
                self._render_ended()

    def line_takes(self):
        """Which takes the lines have now (deleted takes left out): see LineTakes."""
        from studio.scripts.line_takes import LineTakes

        return LineTakes(self.project, self.take_reader())

    def take_reader(self):
        """The read-only take library (None: it cannot be opened)."""
        return self._takes() if self._takes is not None else None

    def _refresh(self) -> None:
        """Show the project as it is now (after every edit, render and undo)."""
        has = self.project is not None
        self._dictionary = self._own_dictionary()
        rows = self._rows() if has else []
        self.model.reload(rows)
        self._refresh_undo()
        speakers = self.project.speakers() if has else []
        for combo in (self.speakerCombo, self.lineSpeakerCombo):
            keep = combo.currentData()
            blocked = combo.blockSignals(True)
            combo.clear()
            for n, s in enumerate(speakers, 1):
                combo.addItem(swatch(s.colour), f"{s.name}  (Alt+{n})" if n < 10 and
                              combo is self.lineSpeakerCombo else s.name, s.id)
            combo.setCurrentIndex(max(0, combo.findData(keep)))
            combo.blockSignals(blocked)
        self.cast.show_cast(cast_entries(speakers, self.project.lines(), self._saved_names())
                            if has else [])
        self.cast.setVisible(has and bool(speakers))
        self.cast.select_speaker(self.speakerCombo.currentData())
        stale = sum(1 for r in rows if r.status in ("not rendered", "stale"))
        self.renderStaleButton.setText(render_changed_text(stale))
        self.renderStaleButton.setToolTip(render_changed_tip(stale))
        idle = has and not self._busy
        self._enable(self.renderStaleButton, idle and stale > 0)
        self._enable(self.renderAllButton, idle and bool(rows))
        self._show_cancel()
        # Not while lines render: the mix would mix takes that are about to be replaced.
        self._enable(self.exportButton, idle and any(r.take for r in rows)
                     and not self.exporting())
        for widget in (self.voiceCombo, self.instructEdit, self.newSpeakerEdit, self.addLineButton,
                       self.dictionarySection, self.exportEdit, self.presetCombo):
            widget.setEnabled(has)
        if has:
            seconds = sum(r.seconds or 0 for r in rows)
            names = ", ".join(s.name for s in speakers) or "no speakers yet"
            name = self.project.path.name
            self.projectLabel.setText(f"{name} · {SAVES} · {count_words(len(rows), 'line')} · "
                                      f"{names} · {seconds:.1f} s rendered")
            self.projectLabel.setToolTip(saves_tip(name))
        else:
            self.projectLabel.setText(EMPTY_HINT)
            self.projectLabel.setToolTip("")
        self._show_speaker()
        self._show_line()
        self._refresh_play()
        self._reflow()

    def _own_dictionary(self):
        from studio.engine.lexicon import Lexicon

        try:
            return self.project.dictionary() if self.project is not None else Lexicon()
        except UserError:  # a damaged row: the lines show their own text
            return Lexicon()

    def _refresh_undo(self) -> None:
        has = self.project is not None
        self.undoButton.setEnabled(has and self.project.can_undo())
        self.redoButton.setEnabled(has and self.project.can_redo())

    def _show_cancel(self) -> None:
        """Cancel while something runs and it was not pressed yet; once nothing runs, a
        cancel asked for is over."""
        running = self._busy or self.exporting() or self.importing()
        if not running:
            self._cancelling = False
        self._enable(self.cancelButton, running and not self._cancelling)

    def _enable(self, button: QPushButton, on: bool) -> None:
        """A focused button about to be disabled hands the focus to the lines; left to Qt
        it moved on in tab order, to the export path with its text selected, where one
        keystroke replaced it."""
        if not on and button.hasFocus():
            self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        button.setEnabled(on)

    def _rows(self) -> list[LineRow]:
        takes = self.take_reader()
        owned = self.line_takes()
        speakers = {s.id: s for s in self.project.speakers()}
        saved = self._saved_names()
        voices = {s.id: voice_words(s, saved) for s in speakers.values()}
        rows = []
        for line in self.project.lines():
            status = self._in_flight.get(line.id) or owned.status(line)
            chosen = owned.chosen(line)
            seconds = None
            problem = ""
            if chosen is not None and takes is not None:
                try:
                    take = takes.get(chosen)
                    seconds = take.audio_seconds
                    if status == "done" and take.suspects:
                        status = "suspect"
                        problem = suspect_label(take.suspects[0]).lower()
                except UserError:
                    status = self._in_flight.get(line.id) or "not rendered"
            speaker = speakers.get(line.speaker)
            voice, voice_problem = voices.get(line.speaker, ("", ""))
            rows.append(LineRow(line.id, speaker.name if speaker else "?",
                                speaker.colour if speaker else "", line.text, status, seconds,
                                chosen, problem, voice, voice_problem, line.chapter or ""))
        return rows

    def _saved_names(self) -> set[str]:
        """The saved voices' names, folded (a damaged library: none)."""
        try:
            return {v.name.lower() for v in self.library().list()}
        except Exception:
            return set()

    def preview_speaker(self, speaker_id: int) -> None:
        """Hear a speaker's voice: a saved voice's or a clip speaker's clip; a described
        voice's rendered line (its first line is rendered when none is yet)."""
        from studio.sound.files import read_audio

        if self.project is None or self._player is None:
            return
        speaker = next((s for s in self.project.speakers() if s.id == speaker_id), None)
        if speaker is None:
            return
        saved = self._saved(speaker)
        owned = self.line_takes()
        lines = [replace(line, take=owned.chosen(line)) for line in self.project.lines()]
        kind, what = preview_source(speaker, lines,
                                    saved.clip if saved is not None else None)
        try:
            if kind == "render":
                self.message.emit(f"Rendering {speaker.name}'s first line to hear the voice.")
                self.render_lines([what])
                return
            if kind == "clip":
                audio, rate = read_audio(what)
                audio = audio.mean(axis=0) if audio.ndim == 2 else audio
            elif kind == "take":
                audio, rate = self._takes().read_audio(what)
            else:
                return
        except UserError as exc:
            self.notice.show_message(str(exc))
            return
        self._player.load(audio, rate, ("cast", str(self.project.path), speaker_id))
        self._player.play()

    def _fit_voice_box(self) -> None:
        """Review 6, item 4: the box read "Saved voice: Marga". Its width follows the
        listed names (the same for every speaker, so the row does not jump); the current
        one is in the tooltip too, for a name longer than the box."""
        combo = self.voiceCombo
        longest = max((len(combo.itemText(i)) for i in range(combo.count())), default=0)
        combo.setMinimumContentsLength(max(12, min(longest + 2, VOICE_BOX_MOST)))
        current = combo.currentText()
        combo.setToolTip(f"{current}\n\n{VOICE_BOX_TIP}" if current else VOICE_BOX_TIP)

    def _show_speaker(self) -> None:
        speaker = self.current_speaker()
        blocked = self.voiceCombo.blockSignals(True)
        self.voiceCombo.clear()
        self.voiceCombo.addItem(DESIGN_ITEM, ("design", None))
        try:
            voices = self.library().list()
        except Exception:  # a damaged library: the design option still works
            voices = []
        for voice in voices:
            self.voiceCombo.addItem(f"Saved voice: {voice.name}", ("voice", voice.name))
        if speaker is not None and speaker.kind == "clip":
            self.voiceCombo.addItem(f"Clip: {Path(speaker.clip).name}", ("clip", speaker.clip))
        selected = 0
        if speaker is not None:
            want = ("voice", speaker.voice) if speaker.kind == "voice" else (
                ("clip", speaker.clip) if speaker.kind == "clip" else ("design", None))
            for i in range(self.voiceCombo.count()):
                data = self.voiceCombo.itemData(i)
                if data[0] == want[0] and (data[1] or "").lower() == (want[1] or "").lower():
                    selected = i
            if speaker.kind == "voice" and selected == 0:  # gone from the library
                self.voiceCombo.addItem(f"Missing voice: {speaker.voice}", ("voice", speaker.voice))
                selected = self.voiceCombo.count() - 1
        self.voiceCombo.setCurrentIndex(selected)
        self.voiceCombo.blockSignals(blocked)
        self._fit_voice_box()
        design = speaker is not None and speaker.kind == "design"
        # Always there (greyed for a saved voice or a clip), so the row keeps its layout.
        self.instructEdit.setEnabled(self.project is not None and (speaker is None or design))
        self.instructEdit.setPlaceholderText(
            "e.g. female, low pitch, british accent" if speaker is None or design else
            "Described by its saved voice" if speaker.kind == "voice" else "Described by its clip")
        if not self.instructEdit.hasFocus():
            self.instructEdit.setText(speaker.instruct or "" if design else "")
        locked = design and speaker.seed is not None
        self.seedLabel.setText(SEED_LOCKED if locked else "")
        self.seedLabel.setToolTip(locked_tip(speaker.name, speaker.seed) if locked else "")

    def _show_line(self, *_args) -> None:
        line = self.current_line()
        for widget in (self.lineSpeakerCombo, self.pauseSpin, self.takeCombo):
            widget.setEnabled(line is not None)
        self._enable(self.newSeedButton, line is not None and not self._busy)
        self.playButton.setEnabled(self._player is not None and any(
            r.take for r in self.model.rows()))
        self.lineLabel.setText(f"Line {self.model.row_of(line.id) + 1}" if line else "Line")
        if line is None:
            self.readsLabel.setText("")
            self.readsLabel.hide()
            self.takeCombo.clear()
            self.compareButton.setEnabled(False)
            self._shown_takes = ()
            return
        for combo, value in ((self.lineSpeakerCombo, line.speaker),):
            blocked = combo.blockSignals(True)
            combo.setCurrentIndex(max(0, combo.findData(value)))
            combo.blockSignals(blocked)
        if not self.pauseSpin.hasFocus():
            self.pauseSpin.setValue(line.pause_after)
        owned = self.line_takes()
        takes, chosen = owned.listed(line.id), owned.chosen(line)
        blocked = self.takeCombo.blockSignals(True)
        self.takeCombo.clear()
        if not takes:
            self.takeCombo.addItem("No takes yet", None)
        elif chosen is None:  # its chosen take was deleted: the others are there to pick
            self.takeCombo.addItem("No take chosen", None)
        library = self._takes() if self._takes is not None else None
        for n, take_id in enumerate(takes, 1):
            label = f"Take {n} of {len(takes)}"
            try:
                take = library.get(take_id) if library is not None else None
            except UserError:
                continue  # deleted from the take library
            if take is not None:
                label += f" · {take.audio_seconds:.1f} s"
            self.takeCombo.addItem(label, take_id)
            if take is not None:
                self.takeCombo.setItemData(self.takeCombo.count() - 1,
                                           f"Variation {take.settings.seed}",
                                           Qt.ItemDataRole.ToolTipRole)
        self.takeCombo.setCurrentIndex(max(0, self.takeCombo.findData(chosen)))
        self.takeCombo.blockSignals(blocked)
        self.compareButton.setEnabled(chosen is not None and self.takeCombo.count() > 1)
        shown = (line.id, tuple(takes), chosen)
        if takes and shown != self._shown_takes:  # not on every edit: the user's pick stays
            self._shown_takes = shown
            self.line_takes_shown.emit(list(takes), chosen)
        reads = self._reads(line)
        self.readsLabel.setText(f"The model reads: {reads}" if reads != line.text else "")
        self.readsLabel.setVisible(reads != line.text)

    def _reads(self, line) -> str:
        """The line as the model will read it: this project's pronunciations, then the
        data folder's (read again only when that file changes)."""
        return self._pronunciations.reads(line.text, line.language, self._dictionary)

    def _compare(self) -> None:
        line = self.current_line()
        chosen = self.line_takes().chosen(line) if line is not None else None
        if chosen is None:
            return
        others = [t for t in (self.takeCombo.itemData(i) for i in range(self.takeCombo.count()))
                  if t and t != chosen]
        if others:
            self.compare_requested.emit([chosen, others[-1]])
