"""The Script view asking the worker for lines (a LinesRequest, batched by voice, in
script order) and following the job the main window routes back: progress, each line's
take as it arrives (played in order while listening), the end, a failure, a cancel."""

from __future__ import annotations

import random
from types import SimpleNamespace

from studio.errors import UserError


class RendersLines:
    """ScriptView's rendering part (it holds the widgets and the open project)."""

    def render_stale(self) -> None:
        if self.project is not None:
            self.render_lines([line.id for line in self.project.stale_lines()])

    def render_lines(self, line_ids, *, new_seed: bool = False) -> None:
        """Ask the worker for these lines, batched by voice, in script order."""
        from studio.engine.options import DecodeOptions, GenerationOptions
        from studio.service.lines import line_request
        from studio.service.requests import LinesRequest

        if self.project is None or self._busy or not line_ids:
            return
        options = GenerationOptions(decode=DecodeOptions(num_step=self.presetCombo.currentData()))
        speakers = {s.id: s for s in self.project.speakers()}
        order = {line.id: n for n, line in enumerate(self.project.lines())}
        requests, keys = [], []
        speaker = None
        try:
            for line_id in sorted(line_ids, key=lambda i: order.get(i, 0)):
                line, speaker = self.project.line(line_id), speakers[self.project.line(line_id).speaker]
                seed = random.randrange(2**31) if new_seed else (
                    line.seed if line.seed is not None else speaker.seed if speaker.seed is not None
                    else random.randrange(2**31))
                requests.append(line_request(speaker, line, options, seed=seed,
                                             saved=self._saved(speaker),
                                             project=str(self.project.path),
                                             number=order.get(line_id, 0) + 1))
                keys.append(line_id)
        except UserError as exc:
            sentence = self._with_undo(str(exc), speaker)
            self.notice.show_message(sentence)
            if speaker is not None and speaker.kind == "voice":  # gone once the voice is back
                self._missing_said = (speaker.voice or "", sentence)
            return
        self._in_flight = {key: "queued" for key in keys}
        self.notice.clear_message()
        self.render_requested.emit(LinesRequest(tuple(requests), tuple(keys),
                                                self.project.dictionary() or None))

    def _with_undo(self, sentence: str, speaker) -> str:
        """A deleted saved voice's sentence, saying that Undo brings it back when it would."""
        from studio.views.undo import deleted_voice

        if (speaker is not None and speaker.kind == "voice"
                and self.undo_gives_back(deleted_voice(speaker.voice or ""))):
            return f"{sentence.rstrip('.')}, or bring it back with Edit ▸ Undo (Ctrl+Z)."
        return sentence

    def _saved(self, speaker):
        if speaker.kind != "voice":
            return None
        try:
            voice = self.library().find(speaker.voice)
            return SimpleNamespace(id=voice.id, transcript=voice.transcript,
                                   clip=self.library().clip_path(voice.id))
        except UserError:
            return None

    # The main window routes the lines job's signals here (as it does a form's).
    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.progress.setVisible(busy)
        if busy:
            self._cancelling = False  # a new render: its Cancel is not pressed yet
            self.progress.setRange(0, 0)
            self.progress.setFormat("Starting …")
        else:
            self._in_flight.clear()
            if self._listener is not None:
                self._listener.finish()
            self._render_ended()
        self._refresh()

    def on_progress(self, step: int, steps: int, done: int, total: int) -> None:
        if self._cancelling:
            return  # the steps reported before the worker saw the cancel
        self.progress.setRange(0, max(1, total * steps))
        self.progress.setValue(done * steps + step)
        self.progress.setFormat(f"Line {min(done + 1, total)} of {total} · step {step}/{steps}")
        rendering = [k for k, v in self._in_flight.items() if v in ("queued", "rendering")]
        if rendering and self._in_flight[rendering[0]] != "rendering":
            self._in_flight[rendering[0]] = "rendering"
            self.model.reload(self._rows())

    def listen(self, keys) -> None:
        """Play the lines just asked for (their keys) in script order as they arrive."""
        if self._listener is None or self.project is None:
            return
        pauses = {}
        for key in keys:
            try:
                pauses[key] = self.project.line(key).pause_after
            except UserError:
                continue  # deleted since it was asked for
        self._listener.start(self._key(), [k for k in keys if k in pauses], pauses,
                             exists=self._exists)
        self._spans = self._listener.spans

    def on_line(self, done) -> None:
        """A line rendered (LineDone): its take becomes the line's choice, and it plays
        when the lines before it have (while listening)."""
        self._in_flight.pop(done.key, None)
        exists = self.project is not None and self._exists(done.key)
        if self._listener is not None:
            self._listener.line_done(done.key, done.take.audio if exists else None,
                                     done.take.sample_rate)
        if not exists:
            return  # deleted while it rendered
        if done.take.take_id is not None:
            self.project.choose_take(done.key, done.take.take_id)
        self._refresh()

    def _exists(self, line_id: int) -> bool:
        try:
            self.project.line(line_id)
            return True
        except UserError:
            return False

    def on_lines_finished(self, result) -> None:
        text = (f"Rendered {result.rendered} line{'s' if result.rendered != 1 else ''} "
                f"({result.audio_seconds:.1f} s of audio) in {result.seconds:.1f} s.")
        if result.warnings:
            text += " " + " ".join(result.warnings)
        self.message.emit(text)

    def on_failed(self, sentence: str) -> None:
        self.notice.show_message(sentence)

    def on_cancelled(self) -> None:
        self.message.emit("Cancelled; the lines rendered before it keep their takes.")

    def stop_live(self) -> None:
        """Cancel: the lines playing as they render stop now."""
        if self._listener is not None:
            self._listener.abort()
