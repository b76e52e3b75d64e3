"""The worker's writes to the libraries: saving a voice (a job: it encodes the clip),
editing, importing and exporting saved voices, and editing takes. The worker thread
holds each library's one writer; an edit ends in ``voices_changed`` / ``takes_changed``
or one sentence through ``voices_failed`` / ``takes_failed``.

A mixin of ``InferenceWorker``; every method runs on the worker thread.
"""

from __future__ import annotations

import logging
from pathlib import Path

from studio.errors import UserError
from studio.service.requests import VoiceSaveRequest
from studio.worker.sentences import INTERNAL_ERROR

log = logging.getLogger(__name__)


class LibraryEdits:
    def voice_library(self):
        """The saved voices' writer, opened on this thread at first use."""
        if self._voices is None:
            from studio.library.voices import VoiceLibrary

            self._voices = VoiceLibrary(self._data_dir)
        return self._voices

    def _saved_voice(self, voice_id: str | None):
        from studio.library.voices import VoiceNotFound

        if voice_id is None:
            return None
        try:
            return self.voice_library().get(voice_id)
        except VoiceNotFound:
            return None

    def save_voice(self, job, request: VoiceSaveRequest) -> None:
        """Encode the clip once, through the prompt cache, and save it as a voice (the
        service's use case, as the command line saves); ends in ``done`` (the new voice's
        id) or ``failed``. Nothing is written unless every check passed."""
        from studio.service.voice_save import check_new_voice, save_voice

        self._need_model()
        if self.engine is None:
            job.report("failed", "The model is not loaded yet; wait for it before saving a voice.")
            return
        try:
            library = self.voice_library()
            new = check_new_voice(request.name, request.clip, request.tags, request.language,
                                  library=library, replace=request.replace,
                                  instruct=request.instruct)
            voice, _source = save_voice(self.prompts, new, request.transcript,
                                        request.preprocess, library=library)
        except Exception as exc:  # a sentence, or a bug (logged)
            self._job_stopped(job, exc)
            return
        self.voices_changed.emit()
        job.report("done", voice.id)

    def _edit_voices(self, change, note=None) -> None:
        """``note(result)``: the sentence to say once ``change`` returned ``result``."""
        def said(library):
            result = change(library)
            if note is not None:
                self.voices_note.emit(note(result))

        self._edit(self.voice_library, said, self.voices_changed, self.voices_failed)

    def rename_voice(self, voice_id: str, name: str) -> None:
        self._edit_voices(lambda library: library.rename(voice_id, name))

    def delete_voice(self, voice_id: str) -> None:
        """Undoable for the session (the takes panel's undo bar works the same way)."""
        self._edit_voices(lambda library: library.delete(voice_id, undoable=True))

    def undelete_voice(self, voice_id: str) -> None:
        self._edit_voices(lambda library: library.undelete(voice_id),
                          lambda voice: f"Restored the voice '{voice.name}'.")

    def update_voice(self, voice_id: str, changes) -> None:
        """``changes``: any of tags, notes, language (see VoiceLibrary.update)."""
        self._edit_voices(lambda library: library.update(voice_id, **dict(changes)))

    def set_voice_transcript(self, voice_id: str, transcript: str) -> None:
        self._edit_voices(lambda library: library.set_transcript(voice_id, transcript))

    def duplicate_voice(self, voice_id: str) -> None:
        self._edit_voices(lambda library: library.duplicate(voice_id),
                          lambda copy: f"Saved a copy as '{copy.name}'.")

    def import_voice(self, bundle: Path) -> None:
        """An .ovoice file, checked whole before anything is written; a taken name gets
        " (2)" (the command line refuses it instead, and suggests --rename)."""
        from studio.library.bundle import import_voice

        def imported(library):
            spec = self.engine.info.audio if self.engine is not None else None
            return import_voice(library, bundle, codebooks=spec.codebooks if spec else None,
                                codebook_size=spec.mask_id if spec else None)

        self._edit_voices(imported, lambda voice: f"Imported the voice '{voice.name}'.")

    def export_voice(self, voice_id: str, target: Path) -> None:
        from studio.library.bundle import export_voice

        self._edit_voices(lambda library: export_voice(library, voice_id, target),
                          lambda path: f"Exported the voice to {path}.")

    # ---------------------------------------------------------------- takes

    def _prune_on_start(self, days: float) -> None:
        """Open the writer now (its sweep recovers from a crash); at the session's first
        load, purge the takes deleted in an earlier session (undo lasts one session) and
        apply retention. Only then: a reload or a settings change never deletes takes."""
        if self._purged:
            self._edit_takes(lambda library: None)
            return
        self._purged = True
        self._edit_takes(lambda library: (library.purge_deleted(), library.prune(days)))
        self._edit_voices(lambda library: library.purge_deleted())  # undo lasts one session

    def _edit_takes(self, change) -> None:
        self._edit(self.keeper.library, change, self.takes_changed, self.takes_failed)

    @staticmethod
    def _edit(library, change, changed, failed) -> None:
        """Apply ``change`` to the library ``library()`` opens; say ``changed``, or the
        sentence through ``failed``."""
        try:
            change(library())
        except UserError as exc:
            failed.emit(str(exc))
            return
        except Exception:
            log.exception("a library change failed")
            failed.emit(INTERNAL_ERROR)
            return
        changed.emit()

    def star_take(self, take_id: str, starred: bool) -> None:
        self._edit_takes(lambda library: library.set_starred(take_id, starred))

    def rename_take(self, take_id: str, name: str) -> None:
        self._edit_takes(lambda library: library.rename(take_id, name))

    def note_take(self, take_id: str, notes: str) -> None:
        self._edit_takes(lambda library: library.set_notes(take_id, notes))

    def delete_takes(self, ids) -> None:
        self._edit_takes(lambda library: library.delete(ids))

    def undelete_takes(self, ids) -> None:
        self._edit_takes(lambda library: library.undelete(ids))

    def purge_takes(self) -> None:
        self._edit_takes(lambda library: library.purge_deleted())

    def set_asr_check(self, enabled: bool) -> None:
        self.asr_check = bool(enabled)
        self.keeper.asr_problem = None
