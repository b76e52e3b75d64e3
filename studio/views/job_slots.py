"""The slots the main window calls on a view that renders (Clone and Design alike).

A view that mixes this in has ``form`` (a GenerateForm), ``reference`` (a
ReferencePanel) and a ``transcribe_requested`` signal.
"""

from __future__ import annotations

from pathlib import Path


class JobSlots:
    _clip_sentence: str | None = None  # the form's sentence about the reference clip, if any

    # One view may have several jobs (Generate, then a re-render queued behind it): the
    # main window, which knows them all, says when the view is busy; these only report.
    def set_busy(self, busy: bool) -> None:
        self.form.set_busy(busy)

    def on_progress(self, step: int, steps: int, chunk: int, chunks: int) -> None:
        self.form.set_progress(step, steps, chunk, chunks)

    def on_stage(self, text: str) -> None:
        self.form.show_stage(text)

    def on_chunk(self, job: int, chunk) -> None:
        """The first take's next chunk, to hear and see while the rest renders."""
        self.form.livePreview.add_chunk(job, chunk)

    def stop_live(self) -> None:
        """Cancel was pressed: the playback of the render stops at once, not at the next step."""
        self.form.livePreview.abort()

    def on_finished(self, take_key: object = None) -> None:
        self.form.finish_progress()
        self.form.livePreview.finish(take_key)

    def on_cancelled(self) -> None:
        self.form.reset_progress()
        self.form.livePreview.abort()
        self.form.show_message("Cancelled.", error=False)

    def on_failed(self, sentence: str, clip: Path | None = None) -> None:
        """A render refused or failed; ``clip``: the reference clip the sentence is about,
        so it goes when another clip is chosen (``clip_changed``)."""
        self.form.reset_progress()
        self.form.livePreview.abort()
        self.form.show_refusal(sentence)
        self._clip_sentence = sentence if clip is not None else None

    def clip_changed(self) -> None:
        """The reference clip changed: a sentence about the old one no longer holds."""
        if self._clip_sentence is not None and self.form.message_text() == self._clip_sentence:
            self.form.clear_message()
        self._clip_sentence = None

    def set_transcript(self, text: str, clip: Path | None = None) -> bool:
        """Show the transcript of ``clip``; False (nothing changed) when the panel holds
        another clip by now."""
        return self.reference.set_transcript(text, clip)

    def on_transcribe_failed(self, sentence: str, clip: Path | None = None) -> None:
        if clip is None or clip == self.reference.reference():
            self.reference.set_transcribing(False)
            self.reference.show_message(sentence)

    def _apply_take_reference(self, settings) -> str | None:
        """Use a take's reference clip again; a sentence when it is gone."""
        path = settings.reference_path
        if not path:
            self.reference.set_reference(None)
            return None
        if not Path(path).is_file() or not self.reference.set_reference(path):
            return (f"The take's reference clip {path} is no longer there; choose it again "
                    "to render this take.")
        if settings.ref_text:
            self.reference.set_transcript(settings.ref_text)
        return None

    def _transcribe(self, path: Path) -> None:
        self.reference.set_transcribing(True)
        self.transcribe_requested.emit(path)
