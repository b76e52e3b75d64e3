"""CleanupPanel: the reference cleanup's steps as check boxes, what they did (on the clip's
waveform and in one line), the warnings, and "Listen to cleaned".

The cleaning runs as a :class:`~studio.views.file_task.FileTask` (DeepFilterNet takes
about 0.7 s per 10 s of clip); the work itself is :func:`studio.service.cleanup.cleaned_clip`,
the same the command line's ``synth --clean`` runs. While it runs, a Generate waits for it
(:meth:`when_ready`), so a clone never uses a clip other than the one shown.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.errors import UserError
from studio.judges.cleanup import DEFAULT_STEPS, LOUDNESS, NOISE, STEPS, TRIM
from studio.views.file_task import FileTask
from studio.views.widgets.labels import MessageLabel, hint_label

EXPLAIN = ("The clip is cleaned before it is encoded; your file is kept. Music under the "
           "voice and room echo are not checked.")
# Each says what it acts on: the reference clip, before it is encoded. The form's Advanced
# switches act on the generated speech (Quiet background, Shorten output pauses) or on the
# clip as the model encodes it (Auto-trim reference); no two share a word.
TITLE = "Clean the clip:"
TITLE_TIP = ("The reference clip, before it is encoded: each ticked step runs once and "
             "shows on the waveform; your file is kept")
TIPS = {
    NOISE: "The reference clip: take out its hiss, hum and room noise (DeepFilterNet3). "
           "Advanced ▸ Quiet background is another thing: it asks the model for generated "
           "speech without the clip's background",
    TRIM: "The reference clip: cut the silence before its first word and after its last",
    LOUDNESS: "The reference clip: bring it to a clear speech level (-20 LUFS) without "
              "clipping",
}
LABELS = {NOISE: "Noise", TRIM: "Silent ends", LOUDNESS: "Loudness"}  # after TITLE
CLEANING = "Cleaning the clip…"
ALREADY = "This clip was cleaned already (a take's or a cleaned clip's); it is used as it is."
FAILED = "The clip could not be cleaned"


def step_problem(step: str) -> str | None:
    """Why ``step`` cannot run here (its package is missing), or None; nothing is loaded."""
    from studio.judges import assets

    try:
        if step == NOISE:
            assets.deepfilter_files()
        elif step == TRIM:
            assets.silero_vad_model()
    except UserError as exc:
        return str(exc)
    return None


class CleanupPanel(QWidget):
    """``waveform``: the reference's WaveformView, which shows the cleanup; ``player``:
    the shared Player (None: no Listen button)."""

    cleaned = Signal(object)  # CleanedClip of the current clip and steps
    state_changed = Signal()

    def __init__(self, waveform=None, player=None, *, folder: Path | None = None,
                 cleaner=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cleanupPanel")
        self.setAccessibleName("Reference cleanup")
        self._waveform = waveform
        self._player = player
        self._folder = folder
        self._cleaner = cleaner
        self._find_speakers = cleaner is None  # ours: the one-speaker check where it can run
        self._source: Path | None = None
        self._result = None  # the CleanedClip for (source, steps) as they are now
        self._task: FileTask | None = None
        self._running: tuple[Path, tuple[str, ...]] | None = None
        self._waiting: list[Callable[[Path | None], None]] = []
        self._audio = None  # the cleaned clip's samples, for the overlay and Listen

        self.checks: dict[str, QCheckBox] = {}
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)  # the row fits the narrowest view (520 px)
        title = QLabel(TITLE)
        title.setObjectName("cleanupTitle")
        title.setToolTip(TITLE_TIP)
        row.addWidget(title)
        for step in STEPS:
            box = QCheckBox(LABELS[step])
            box.setObjectName(f"clean_{step}Check")
            box.setAccessibleName(f"Clean the clip: {LABELS[step].lower()}")
            problem = step_problem(step)
            box.setEnabled(problem is None)
            box.setToolTip(problem or TIPS[step])
            box.setChecked(problem is None and step in DEFAULT_STEPS)
            box.toggled.connect(self._steps_changed)
            self.checks[step] = box
            row.addWidget(box)
        row.addStretch(1)
        self.listenButton = QPushButton("Listen to cleaned")
        self.listenButton.setObjectName("listenCleanedButton")
        self.listenButton.setToolTip("Play the clip as it will be encoded")
        self.listenButton.clicked.connect(self.listen)
        self.listenButton.setVisible(player is not None)
        row.addWidget(self.listenButton)
        self.explain = hint_label(EXPLAIN)
        self.explain.setObjectName("cleanupExplain")
        self.summary = hint_label("")
        self.summary.setObjectName("cleanupSummary")
        self.warnings = MessageLabel()
        self.warnings.setObjectName("cleanupWarnings")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(row)
        layout.addWidget(self.explain)
        layout.addWidget(self.summary)
        layout.addWidget(self.warnings)
        self._refresh()

    # ------------------------------------------------------------------ queries
    def steps(self) -> tuple[str, ...]:
        return tuple(s for s in STEPS if self.checks[s].isChecked() and self.checks[s].isEnabled())

    def busy(self) -> bool:
        return self._running is not None

    def _cleaned_already(self) -> bool:
        """A clip from the cleaned clips' folder (a take's reference brought back): cleaning
        it again would take out what the first cleaning left."""
        from studio.service.cleanup import default_folder

        folder = self._folder if self._folder is not None else default_folder()
        return self._source is not None and self._source.parent == folder

    def clip(self) -> Path | None:
        """The clip to encode now: the cleaned one, the source when no step is on, None
        while it is being cleaned (or could not be)."""
        if self._source is None or not self.steps() or self._cleaned_already():
            return self._source
        return self._result.path if self._result is not None else None

    def report(self):
        return self._result.report if self._result is not None else None

    # ------------------------------------------------------------------ state in
    def set_source(self, path: Path | None) -> None:
        """The reference clip (None: none, or a saved voice, which is used as saved)."""
        if path == self._source:
            return
        self._source = path
        self._update()

    def set_steps(self, steps: tuple[str, ...]) -> None:
        for step, box in self.checks.items():
            box.blockSignals(True)
            box.setChecked(box.isEnabled() and step in steps)
            box.blockSignals(False)
        self._update()

    def when_ready(self, then: Callable[[Path | None], None]) -> None:
        """Call ``then(clip)`` once the clip is cleaned (at once when it is); None: it
        could not be, the sentence is shown."""
        if self._running is None:
            then(self.clip())
        else:
            self._waiting.append(then)

    # ------------------------------------------------------------------ work
    def _steps_changed(self) -> None:
        self.state_changed.emit()
        self._update()

    def _update(self) -> None:
        self._result, self._audio = None, None
        self.warnings.clear_message()
        self._show()
        if self._source is None or not self.steps() or self._cleaned_already():
            self._refresh()
            return
        if self._running is None:
            self._start(self._source, self.steps())
        self._refresh()

    def _start(self, source: Path, steps: tuple[str, ...]) -> None:
        from studio.service.cleanup import cleaned_clip

        cleaner, folder = self._cleaner_now(), self._folder

        find_speakers = self._find_speakers

        def work(progress, _cancel):
            from studio.judges.cleanup import speaker_encoder_or_none
            from studio.sound.files import read_audio

            if find_speakers and cleaner.speakers is None:  # loads torch: on this thread
                cleaner.speakers = speaker_encoder_or_none()
            made = cleaned_clip(source, steps, cleaner, folder, progress)

            audio, _rate = read_audio(made.path)
            return made, audio.reshape(-1)

        self._running = (source, steps)
        self._task = FileTask(work, FAILED, parent=self)
        self._task.done.connect(self._done)
        self._task.failed.connect(self._failed)
        self._task.start("reference cleanup")

    def _cleaner_now(self):
        if self._cleaner is None:
            from studio.judges.cleanup import Cleaner

            self._cleaner = Cleaner()
        return self._cleaner

    def _finished(self) -> bool:
        """The task ended; True when its answer is still the one wanted."""
        asked, self._running, self._task = self._running, None, None
        if asked == (self._source, self.steps()):
            return True
        if self._source is not None and self.steps() and not self._cleaned_already():
            self._start(self._source, self.steps())
        else:
            self._release(self.clip())
        self._refresh()
        return False

    def _done(self, outcome) -> None:
        made, audio = outcome
        if not self._finished():
            return
        self._result, self._audio = made, audio
        self._show()
        self._refresh()
        self.cleaned.emit(made)
        self._release(made.path)

    def _failed(self, sentence: str) -> None:
        if not self._finished():
            return
        self.warnings.show_message(sentence)
        self._refresh()
        self._release(None)

    def _release(self, clip: Path | None) -> None:
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then(clip)

    # ------------------------------------------------------------------ showing
    def _show(self) -> None:
        report = self.report()
        if self._waveform is not None:
            if report is None or self._audio is None:
                self._waveform.set_cleaned(0.0, 0.0, None)
            else:
                rate = report.sample_rate
                start = (report.trimmed_start or 0) / rate
                end = self._waveform.duration() - (report.trimmed_end or 0) / rate
                self._waveform.set_cleaned(start, end, self._audio)
        if report is None:
            return
        # The waveform's colours said nothing to the review: the line under it says them.
        drawn = " On the waveform: the cleaned clip in green over the original" + (
            ", the trimmed ends greyed." if report.trimmed_start or report.trimmed_end else ".")
        self.summary.setText(report.summary() + (drawn if self._waveform is not None else ""))
        if report.warnings:
            self.warnings.show_message(" ".join(report.warnings))

    def _refresh(self) -> None:
        if self.busy():
            self.summary.setText(CLEANING)
        elif self.steps() and self._cleaned_already():
            self.summary.setText(ALREADY)
        elif self.report() is None:
            self.summary.setText("")
        self.summary.setVisible(bool(self.summary.text()))
        self.listenButton.setEnabled(self._audio is not None and self._player is not None)
        self.listenButton.setVisible(self._player is not None)

    def listen(self) -> None:
        if self._player is None or self._audio is None or self.report() is None:
            return
        key = ("cleaned reference", str(self._result.path))
        if self._player.key() == key:
            self._player.toggle()
            return
        self._player.load(self._audio, self.report().sample_rate, key)
        self._player.play()
