"""CloneView: a reference clip on top, the text and settings below; emits RenderRequests.

The view checks only what it can say better than the engine (no clip yet, no text);
everything else is validated by the engine, whose sentence comes back through
:meth:`CloneView.on_failed`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QWidget

from studio.service.requests import RenderRequest, VoiceSaveRequest
from studio.views.cleanup_panel import CleanupPanel
from studio.views.generate_form import GenerateForm
from studio.views.job_slots import JobSlots
from studio.views.reference_panel import ReferencePanel
from studio.views.voice_picker import VoicePicker
from studio.views.widgets.labels import MessageLabel, heading_label, hint_label
from studio.views.widgets.page import headed_content, rule
from studio.views.widgets.scroll_anchor import ScrollAnchor

STATE_PREFIX = "clone"
NO_REFERENCE = "Choose a reference clip to clone, or use the Design view."
WAITING_FOR_CLEANUP = "Generating once the clip is cleaned…"
# While no clip is loaded: the other way in, for someone with no recording.
DESIGN_INSTEAD = ('No recording? <a href="design">Design a voice from a description →</a>')
NOT_CLEANED = ("The clip could not be cleaned, so nothing was generated; turn the cleanup "
               "steps off to use the clip as it is.")
NOT_CLEANED_SAVE = ("The clip could not be cleaned, so the voice was not saved; turn the "
                    "cleanup steps off to save the clip as it is.")


class CloneView(JobSlots, QWidget):
    render_requested = Signal(object)  # RenderRequest
    cancel_requested = Signal()
    transcribe_requested = Signal(object)  # Path
    save_voice_requested = Signal(object)  # VoiceSaveRequest
    design_requested = Signal()  # "no recording?": the window shows the Design view

    def __init__(self, player=None, *, recorder=None, audio_status=None, voices=None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._voice = None  # the picked saved voice (its clip is the reference), or None
        self.setObjectName("cloneView")
        self.setAccessibleName("Clone view")
        self.reference = ReferencePanel(player, state_prefix=STATE_PREFIX, recorder=recorder,
                                        audio_status=audio_status)
        self.reference.setObjectName("referencePanel")
        self.cleanup = CleanupPanel(self.reference.waveform, player)
        self.designLink = hint_label(DESIGN_INSTEAD)
        self.designLink.setObjectName("designInsteadLink")
        self.designLink.setAccessibleName("Design a voice instead")
        self.designLink.setToolTip("Without a recording, the Design view makes a voice from "
                                   "a description; the text you typed goes with you")
        self.designLink.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                                | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.designLink.linkActivated.connect(lambda _link: self.design_requested.emit())
        self.reference.add_under_clip(self.designLink)
        self.reference.add_under_clip(self.cleanup)
        self.cleanup.state_changed.connect(self._noise_handled)
        self.form = GenerateForm(STATE_PREFIX, player=player)
        self.form.setObjectName("cloneForm")
        self.voices = VoicePicker(voices)  # ``voices``: a read-only VoiceLibrary, for tests
        self.voices.setObjectName("voicePickerRow")
        self.voiceMessage = MessageLabel()  # saving a voice: said under the row it is about
        self.voiceMessage.setObjectName("voiceMessage")

        title = heading_label("Clone a voice", size_delta=5)
        subtitle = hint_label(
            "Give a short, clean clip of the voice (3-10 seconds) and the text it should say.")

        content, layout = headed_content("cloneContent", title, subtitle)
        layout.addWidget(self.voices)
        layout.addWidget(self.voiceMessage)
        layout.addSpacing(6)
        layout.addWidget(self.reference)
        layout.addSpacing(10)
        layout.addWidget(rule())
        layout.addSpacing(10)

        self.form.fill(self, content)
        # A clip coming or going changes the reference area's height: the Text box stays
        # where it was, so the next click after picking a voice still lands in it.
        self._textAnchor = ScrollAnchor(self.form.scroll, self.form.textEdit)
        self.reference.resizing.connect(self._textAnchor.hold)

        self.form.set_input_check(self._missing_clip)
        self.form.generate_requested.connect(self._generate)
        self.form.cancel_requested.connect(self.cancel_requested)
        self.reference.transcribe_requested.connect(self._transcribe)
        self.reference.reference_changed.connect(self._reference_changed)
        self.reference.refTextEdit.textChanged.connect(self._transcript_edited)
        self.voices.voice_picked.connect(self._voice_picked)
        self.voices.save_requested.connect(self._save_voice)
        self.voices.clip_picked.connect(self.reference.set_reference)
        self.voices.browse_requested.connect(self.reference.browse)
        self._refresh_save()
        self._sync_cleanup()

    # ------------------------------------------------------------------ intents
    def _missing_clip(self) -> tuple[str, QWidget] | None:
        """The form's input check for this view: a clip comes before the text."""
        if self.reference.reference() is None:
            return NO_REFERENCE, self.reference.refPathEdit
        return None

    def build_request(self) -> RenderRequest | None:
        """The request for the current inputs, or None after saying inline what is missing."""
        if not self.form.inputs_ready():
            return None
        fields = self.form.request_fields()
        return RenderRequest(
            reference=self.reference.reference(),
            ref_text=self.reference.transcript(),
            instruct=None,
            mode="clone",
            voice_id=self._voice.id if self._voice is not None else None,
            **fields,
        )

    def _generate(self) -> None:
        request = self.build_request()
        if request is None:
            return
        if request.voice_id is not None or self.cleanup.clip() == request.reference:
            self.render_requested.emit(request)  # no cleaning, or a cleaned clip already
            return
        if self.cleanup.busy():
            self.form.show_message(WAITING_FOR_CLEANUP, error=False)
        self.cleanup.when_ready(lambda clip: self._send_cleaned(request, clip))

    def _send_cleaned(self, request: RenderRequest, clip: Path | None) -> None:
        """A Generate that waited for the cleanup: the cleaned clip is the one encoded."""
        if clip is None:
            self.form.show_message(NOT_CLEANED)
            return
        if self.form.message_text() == WAITING_FOR_CLEANUP:
            self.form.clear_message()
        self.render_requested.emit(dataclasses.replace(request, reference=clip))

    def _sync_cleanup(self) -> None:
        """The cleanup follows the clip; a saved voice is used as it was saved. With no clip
        the cleanup has nothing to clean: the way to Design stands in its place, and the
        page is short enough that the Text box shows at 1024x640."""
        empty = self.reference.reference() is None
        self.cleanup.setVisible(not empty)
        self.designLink.setVisible(empty)
        self.cleanup.set_source(None if self._voice is not None else self.reference.reference())
        self._noise_handled()

    def _noise_handled(self) -> None:
        """With noise suppression on, the clip's noise is the cleanup's to say (before and
        after), not a red warning about a noise that will not be encoded."""
        self.reference.clipMeter.set_noise_suppressed(
            "noise" in self.cleanup.steps() and self._voice is None)

    def _reference_changed(self, path: Path | None) -> None:
        self.form.recheck()  # "Choose a reference clip" goes; what is still missing stays
        self.clip_changed()  # "silence.wav is completely silent" was about the clip that went
        self.voiceMessage.clear_message()  # it was about the clip (or voice) that went
        voices_dir = self.voices.library().voices_dir
        if path is not None and voices_dir not in path.parents:  # a saved voice is listed already
            self.voices.add_recent(path)
        self._settle_voice()

    # ------------------------------------------------------------------ voices
    def _voice_clip(self, voice) -> Path:
        return self.voices.library().voices_dir / voice.id / voice.clip

    def _clip_owner(self, path: Path | None):
        """The saved voice whose clip ``path`` is, or None."""
        voice = self.voices.voice(path.parent.name) if path is not None else None
        return voice if voice is not None and self._voice_clip(voice) == path else None

    def _settle_voice(self) -> None:
        """The one place that decides which voice is in use: the saved voice whose clip
        is the reference, with the transcript it was saved with. The picker and the clip
        field are set from it, so they never disagree (review 6, item 3)."""
        owner = self._clip_owner(self.reference.reference())
        in_use = owner if owner is not None and (
            self.reference.transcript() == ((owner.transcript or "").strip() or None)) else None
        was = self._voice
        self._voice = in_use
        if was is not None and (in_use is None or in_use.id != was.id):
            self.voiceMessage.clear_message()  # "Saved the voice…": no longer the one in use
        self.voices.select(in_use.id if in_use is not None else None)
        if owner is not None:  # the field names the voice only while it is the one in use
            self.reference.show_as(f"Saved voice: {owner.name}" if in_use is not None
                                   else f"{owner.name}'s clip, with another transcript")
        self.reference.clipMeter.set_saved(in_use is not None)
        self._refresh_save()
        self._sync_cleanup()

    def _voice_picked(self, voice) -> None:
        self.voiceMessage.clear_message()  # about the last save, not this pick
        if voice is None:
            if self._voice is not None:  # "Your own clip": the voice's clip is not one
                self.reference.set_reference(None)  # Edit ▸ Undo gives it back
            self._settle_voice()
            return
        clip = self._voice_clip(voice)
        self.reference.use_clip(clip, voice.transcript, f"Use the voice '{voice.name}'",
                                shown=f"Saved voice: {voice.name}")
        self._settle_voice()

    def _transcript_edited(self) -> None:
        # The saved prompt holds the transcript it was encoded with; another one is a new clip.
        self._settle_voice()

    def _refresh_save(self) -> None:
        self.voices.set_can_save(self.reference.reference() is not None and self._voice is None)

    def _save_voice(self, name: str) -> None:
        clip = self.reference.reference()
        self.voiceMessage.clear_message()
        if clip is None:
            self.form.show_message(NO_REFERENCE)
            return
        request = VoiceSaveRequest(
            name=name, clip=clip, transcript=self.reference.transcript(),
            preprocess=self.form.preprocessCheck.isChecked(),
            language=self.form.languagePicker.language())

        def send(cleaned: Path | None) -> None:  # a voice saved from a cleaned clip keeps it
            if cleaned is None:
                self.voiceMessage.show_message(NOT_CLEANED_SAVE)
                return
            self.save_voice_requested.emit(dataclasses.replace(request, clip=cleaned))

        self.cleanup.when_ready(send)

    def pick_voice(self, voice_id: str) -> None:
        """Render in a saved voice (the Voices view's Use in Clone)."""
        self.voices.refresh(select=voice_id)

    def start_voice(self, clip: Path, name: str | None = None,
                    transcript: str | None = None, *, to_save: bool = False) -> None:
        """A clip to save as a new voice: loaded, its transcript in, the name field ready;
        ``to_save``: the name is a good one, so Save as voice has the focus instead."""
        if not self.reference.set_reference(clip):
            return
        if transcript:
            self.reference.set_transcript(transcript)
        self.voices.nameEdit.setText((name or clip.stem.replace("_", " ")).strip()[:80])
        self.voices.nameEdit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.voices.nameEdit.selectAll()
        if to_save and self.voices.saveButton.isEnabled():
            self.voices.saveButton.setFocus(Qt.FocusReason.OtherFocusReason)

    def voice_save_failed(self, sentence: str) -> None:
        self.voiceMessage.show_message(sentence)
        self._refresh_save()

    def voice_save_started(self) -> None:
        self.voices.set_can_save(False)  # until this save ends

    def voice_saved(self, voice_id: str) -> str | None:
        """The worker saved the voice: picked here; returns the status bar's sentence."""
        self.voices.saved(voice_id)
        self._refresh_save()
        if self._voice is None:
            return None
        self.voiceMessage.show_message(
            f"Saved the voice '{self._voice.name}'; pick it here any time.", error=False)
        return f"Saved the voice '{self._voice.name}'."

    def apply_take(self, settings) -> None:
        """Copy a take's ``TakeSettings`` into the view (the takes panel's To editor)."""
        note = self.form.apply_settings(settings)
        problem = self._apply_take_reference(settings)
        self.form.show_outcome(problem, note)

    # ------------------------------------------------------------------ persistence
    def save_state(self, settings) -> None:
        self.reference.save_state(settings)
        settings.set_state(f"{STATE_PREFIX}/cleanup", ",".join(self.cleanup.steps()))
        self.form.save_state(settings)
        settings.set_state(f"{STATE_PREFIX}/recent_clips", [str(p) for p in self.voices.recent()])
        settings.set_state(f"{STATE_PREFIX}/voice", self._voice.id if self._voice is not None else "")

    def restore_state(self, settings) -> None:
        recent = settings.state(f"{STATE_PREFIX}/recent_clips")
        if isinstance(recent, str):  # QSettings gives a one-item list back as its item
            recent = [recent]
        if isinstance(recent, list):
            self.voices.set_recent([p for p in recent if isinstance(p, str) and p])
        steps = settings.state(f"{STATE_PREFIX}/cleanup")
        if isinstance(steps, str):
            self.cleanup.set_steps(tuple(s for s in steps.split(",") if s))
            self._noise_handled()
        self.reference.restore_state(settings)
        self.form.restore_state(settings)
        voice_id = settings.state(f"{STATE_PREFIX}/voice")
        if isinstance(voice_id, str) and voice_id:  # picked again: its clip, name and prompt
            self.voices.refresh(select=voice_id)  # a voice deleted since: the clip stays
