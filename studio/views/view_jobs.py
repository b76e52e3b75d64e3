"""ViewJobs: what the window's views ask of the worker, each answer sent to the view that asked.

A view's intent (a Generate, a script's lines, a transcription, a voice save) becomes
a job (``studio.worker.job.Job``, from ``controller.render`` and the like); this
object connects that job's signals to the asking view alone and owns the list of
running (view, render job) pairs, so a view stays busy while it has a render running
and its Stop cancels its own renders, never another view's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject

from studio.service.render_check import Refusal, render_problem
from studio.service.requests import LineDone, LinesRequest, LinesResult, RenderRequest, RenderResult
from studio.views.progress_text import CANCELLING, attempt_numbers
from studio.views.takes_model import real_time_text


class ViewJobs(QObject):
    def __init__(self, controller, *, takes, status, model_setup,
                 stream: Callable[[], bool], parent: QObject | None = None):
        super().__init__(parent)
        self._controller = controller
        self._takes = takes  # the takes panel: lists what a render kept
        self._status = status  # the status bar
        self._model = model_setup  # where renders go; Whisper asked for before a download
        self._stream = stream  # whether to play a render as it decodes
        self._renders: list[tuple[QObject, object]] = []  # (view, its render job) running
        self._clip_refusal: str | None = None  # the status bar's sentence about a clip
        # A running render's [done, asked for, what it makes], for the question before quitting.
        self._counts: dict[object, list] = {}
        self._saves: list[object] = []  # voice save jobs running

    def wire(self, forms, script, clone) -> None:
        """The intents of the Generate forms (``forms``), the Script view and Clone's voice save."""
        for view in forms:
            view.render_requested.connect(lambda request, v=view: self.render(v, request))
            view.cancel_requested.connect(lambda v=view: self.cancel(v))
            view.transcribe_requested.connect(lambda path, v=view: self.transcribe(v, path))
            view.reference.reference_changed.connect(self._clip_changed)
        clone.save_voice_requested.connect(lambda request: self.save_voice(clone, request))
        script.render_requested.connect(lambda request: self.render_lines(script, request))
        script.cancel_requested.connect(lambda: self.cancel(script))

    # ------------------------------------------------------------------ intents -> controller
    def render(self, view, request: RenderRequest) -> None:
        """A Generate of ``view`` (also a take rendered again): its takes go to the panel.
        Here, the request's own checks come first: the speech recogniser's download is
        offered only when an empty transcript is the one thing missing."""
        here = self._model.status.server_url is None  # a server checks and transcribes itself
        if here:
            info = self._model.info
            refusal = render_problem(request, info.sample_rate if info else 24_000,
                                     info.hop_length if info else 960)
            if refusal is not None:
                self._refuse(view, refusal)
                return
        if (here and request.reference is not None and not (request.ref_text or "").strip()
                and request.voice_id is None
                and not self._model.asr_ready(view, lambda: self.render(view, request),
                                              for_render=True)):
            return  # an empty transcript is transcribed first: asked before a download
        if self._stream():
            request = dataclasses.replace(request, stream=True)
        job = self._watch(view, self._controller.render(request))
        self._counts[job] = [0, len(request.seeds), "take"]
        if request.until_pass:  # one take at a time: "Rendering take 2 of at most 3 …"
            job.stage.connect(lambda stage: self._attempt(job, stage))
        job.chunk.connect(lambda chunk: view.on_chunk(job.number, chunk))
        job.stage.connect(view.on_stage)
        job.done.connect(lambda result: self._finished(view, job, result))
        self._status.show_message("Rendering …")

    def _refuse(self, view, refusal: Refusal) -> None:
        view.on_failed(refusal.sentence, refusal.clip)
        self._status.show_error(refusal.sentence)
        self._clip_refusal = refusal.sentence if refusal.clip is not None else None

    def _clip_changed(self, path=None) -> None:
        """A sentence about a clip goes with the clip (the view clears its own); a clip
        loaded is the user's next step that worked, so any older error goes too."""
        if self._clip_refusal is not None and self._status.message() == self._clip_refusal:
            self._status.show_message("")
        elif path is not None:
            self._status.move_on()
        self._clip_refusal = None

    def render_lines(self, view, request: LinesRequest) -> None:
        """A script's lines, each kept as a take and listed as it is done."""
        job = self._watch(view, self._controller.render_lines(request))
        self._counts[job] = [0, len(request.lines), "line"]
        job.line.connect(lambda done: self._line_rendered(view, done, job))
        job.stage.connect(self._status.show_message)  # judging a line's take
        job.done.connect(lambda result: self._lines_finished(view, job, result))
        if self._stream():
            view.listen(request.keys)
        self._status.show_message(f"Rendering {len(request.lines)} line"
                                  f"{'s' if len(request.lines) != 1 else ''} …")

    def cancel(self, view) -> None:
        view.stop_live()
        for owner, job in self._renders:
            if owner is view:
                self._controller.cancel(job)
                self._status.show_message(CANCELLING)  # "Rendering …" until "Cancelled."

    def transcribe(self, view, path: Path) -> None:
        if not self._model.asr_ready(view, view.reference.transcribeButton.click):
            return
        job = self._controller.transcribe(path)
        job.done.connect(lambda text: self._transcribed(view, path, text))
        job.failed.connect(lambda sentence: (view.on_transcribe_failed(sentence, path),
                                             self._status.show_error(sentence)))
        job.cancelled.connect(lambda: (view.on_transcribe_failed("Transcription cancelled.",
                                                                 path),
                                       self._status.show_message("Cancelled.")))
        self._status.show_message(f"Transcribing {path.name} …")

    def save_voice(self, view, request) -> None:
        """A voice saved for ``view`` (Clone's reference, a take's Save as voice… dialog):
        it waits for the answer between ``voice_save_started`` and ``voice_saved`` (which
        returns the status bar's sentence) or ``voice_save_failed``."""
        job = self._controller.save_voice(request)
        self._saves.append(job)
        job.ended.connect(lambda: self._saves.remove(job))
        job.done.connect(lambda voice_id: self._voice_saved(view, voice_id))
        job.failed.connect(lambda sentence: (view.voice_save_failed(sentence),
                                             self._status.show_error(sentence)))
        view.voice_save_started()
        self._status.show_message(f"Saving the voice '{request.name}' …")

    def running(self) -> list[tuple[str, str]]:
        """What quitting now would lose: ("A render", "1 of 3 takes done") for each render
        running, ("A voice save", "") for each voice being saved."""
        work = []
        for _view, job in self._renders:
            done, asked, unit = self._counts.get(job, (0, 0, "take"))
            work.append(("A script render" if unit == "line" else "A render",
                         f"{done} of {asked} {unit}{'s' if asked != 1 else ''} done"))
        return work + [("A voice save", "")] * len(self._saves)

    def _attempt(self, job, stage: str) -> None:
        numbers = attempt_numbers(stage)
        if numbers is not None and job in self._counts:
            self._counts[job][0] = numbers[0] - 1  # the takes before this try are kept

    # ------------------------------------------------------------------ job -> its view
    def _watch(self, view, job):
        """A render job of ``view`` (a Generate or a script's lines): its progress and its
        end go to that view alone, and the view stays busy while it has one running."""
        self._renders.append((view, job))
        view.set_busy(True)
        job.progress.connect(view.on_progress)
        job.failed.connect(lambda sentence: self._render_failed(view, job, sentence))
        job.cancelled.connect(lambda: self._render_cancelled(view, job))
        return job

    def _render_ended(self, view, job) -> None:
        """``job`` is over: ``view`` is told when it has no other (told "still busy", a
        view being cancelled took back its Cancel before its last job stopped)."""
        self._renders = [(v, j) for v, j in self._renders if j is not job]
        self._counts.pop(job, None)
        if not any(owner is view for owner, _job in self._renders):
            view.set_busy(False)

    def _finished(self, view, job, result: RenderResult) -> None:
        self._render_ended(view, job)
        ids = self._takes.show_result(result)
        # After the takes are listed: the live playback (the first take's chunks) becomes
        # the first take's, even when a better judged take is the one selected.
        view.on_finished(self._takes.model.key_for(ids[0]) if ids else None)
        takes = len(result.takes)
        audio = result.audio_seconds
        rtf = result.seconds / audio if audio > 0 else 0.0
        # What matters first (the status line is cut where it does not fit, whole in its
        # tooltip): how many, then what judging found, then the speed.
        text = f"Rendered {takes} take{'s' if takes != 1 else ''} in {result.seconds:.1f} s."
        if result.judging_note:
            text += " " + result.judging_note
        text += f" {audio:.1f} s of audio, {real_time_text(rtf)}."
        if result.first_audio_seconds is not None:
            text += f" First audio after {result.first_audio_seconds:.1f} s."
            self._status.set_first_audio(result.first_audio_seconds)
        if result.warnings:
            text += " " + " ".join(result.warnings)
        self._status.show_message(text)

    def _line_rendered(self, view, done: LineDone, job=None) -> None:
        if job in self._counts:
            self._counts[job][0] += 1
        self._takes.refresh()  # the line's take is in the library: list it now
        view.on_line(done)

    def _lines_finished(self, view, job, result: LinesResult) -> None:
        self._render_ended(view, job)
        self._takes.refresh()  # the lines' takes are in the library now
        view.on_lines_finished(result)

    def _render_failed(self, view, job, sentence: str) -> None:
        if self._model.status.server_url is not None:
            self._model.probe_server()  # a render the server refused: does it still answer?
        self._render_ended(view, job)
        view.on_failed(sentence)
        self._status.show_error(sentence)

    def _render_cancelled(self, view, job) -> None:
        self._render_ended(view, job)
        view.on_cancelled()
        self._status.show_message("Cancelled.")

    def _transcribed(self, view, clip: Path, text: str) -> None:
        if not view.set_transcript(text, clip):
            # The user picked another clip meanwhile: this transcript describes the old one.
            self._status.show_message(f"The transcript of {clip.name} was not used: "
                                      "the clip changed while it was transcribed.")
            return
        self._status.show_message("Transcription ready.")

    def _voice_saved(self, view, voice_id: str) -> None:
        said = view.voice_saved(voice_id)
        if said:
            self._status.show_message(said)
