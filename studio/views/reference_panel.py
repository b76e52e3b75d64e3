"""ReferencePanel: the clip to clone (file, drag and drop, or microphone), its waveform
with play, and its transcript.

The panel owns no playback: it loads its clip into the shared Player on Play and
follows the player's signals only while the player holds its clip (``player.key()``).
A clip that cannot be read is told inline, in the reader's one sentence.

Long because file, drop, microphone and trim all feed the one clip and transcript this
widget holds; its Qt-free checks are in :mod:`studio.sound.clip_check`.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import numpy as np
from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from studio.audio.backend import AudioStatus
from studio.errors import UserError
from studio.paths import data_dir
from studio.sound.clip_check import best_window, check_clip
from studio.sound.files import read_audio, write_audio_atomic
from studio.views import file_dialogs
from studio.views.clip_meter import ClipMeter
from studio.views.play_state import play_icon, play_off
from studio.views.remembered_text import RememberedText
from studio.views.undo import UndoStack, push_edit
from studio.views.widgets.fitted_height import FitsItsWidth
from studio.views.widgets.labels import MessageLabel, hint_label
from studio.views.widgets.level_meter import LevelMeter
from studio.views.widgets.waveform import SWEET_SPOT_S, WaveformView
from studio.views.words import shown_name, start_folder

AUDIO_FILTER = "Audio files (*.wav *.flac *.ogg *.mp3 *.aiff *.aif);;All files (*)"
WAVE_HEIGHT = 64
# With no clip the box only says so: slim, so the text below stays in view on a small screen.
EMPTY_WAVE_HEIGHT = 30
RECORD_RATE = 24000  # the model's own rate: no resampling on the way in
AUTO_TRANSCRIPT_NOTE = "Leave empty to transcribe automatically when you generate."
# ...while the recogniser is not here: what the first time costs.
AUTO_TRANSCRIPT_DOWNLOAD = ("Leave empty to transcribe automatically when you generate "
                            "(the first time downloads a speech recogniser, {size}).")
RECORDING_KEPT = "The {seconds:.1f} s recorded before that were saved and are used as the clip."
EMPTY_RECORDING = "The recording is empty; check that the microphone is connected and try again."


def dropped_path(mime: QMimeData) -> Path | None:
    """The first local file in a drag's data, or None."""
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile():
            return Path(url.toLocalFile())
    return None


def recording_path(folder: Path, now: _dt.datetime | None = None) -> Path:
    """A new file name under ``folder`` such as recording-20250101-093000.wav."""
    stamp = (now or _dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
    path = folder / f"recording-{stamp}.wav"
    n = 2
    while path.exists():
        path = folder / f"recording-{stamp}-{n}.wav"
        n += 1
    return path


MIN_GOOD_SECONDS, MAX_GOOD_SECONDS = SWEET_SPOT_S


def clip_summary(audio: np.ndarray, sample_rate: int) -> str:
    seconds = audio.shape[-1] / sample_rate
    channels = "mono" if audio.ndim == 1 or audio.shape[0] == 1 else f"{audio.shape[0]} ch"
    return f"{seconds:.1f} s · {sample_rate / 1000:g} kHz · {channels}"


def record_icon(size: int = 16) -> QIcon:
    """The usual red dot; the standard icon sets have no record symbol."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#d32f2f"))
    painter.drawEllipse(3, 3, size - 6, size - 6)
    painter.end()
    return QIcon(pixmap)


def _mmss(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


class ReferencePanel(FitsItsWidth, QWidget):  # its wrapped lines whole on a narrow page
    """The reference clip and its transcript.

    ``player`` is the app's shared Player (None: playback off). ``recorder`` defaults
    to a new :class:`studio.audio.recorder.Recorder`; ``audio_status`` to a fresh probe.
    """

    reference_changed = Signal(object)  # Path | None
    resizing = Signal()  # the clip is about to change, and with it the panel's height
    transcribe_requested = Signal(object)  # Path
    seek_requested = Signal(float)

    def __init__(self, player=None, *, state_prefix: str = "clone", recorder=None,
                 audio_status: AudioStatus | None = None, recordings_dir: Path | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._prefix = state_prefix.strip("/")
        self._player = player
        if recorder is None:
            from studio.audio.recorder import Recorder

            recorder = Recorder(self)
        self._recorder = recorder
        self._recordings_dir = recordings_dir
        self._reference: Path | None = None
        self._audio: np.ndarray | None = None  # mono float32, what Play loads
        self._rate = 0
        self._transcribing = False
        # Each clip's transcript this session: the transcript belongs to its clip, so
        # switching away and back gives it back (a clip never used starts empty).
        self._transcripts: dict[Path, str] = {}
        self._path_text = ""  # the path last read, as typed
        self.undoStack = UndoStack(self)  # the window's, once it has one
        self._last_folder: str | None = None  # where Browse last found a clip
        self._can_play = False
        self._play_reason: str | None = None
        self._can_record = False
        self._record_reason: str | None = None
        self.setAcceptDrops(True)
        self._build()
        self._connect()
        if audio_status is None:
            from studio.audio.backend import audio_status as probe

            audio_status = probe()
        self.set_audio_status(audio_status)
        self._refresh()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        style = self.style()
        self.clipLabel = QLabel("Reference &clip")
        font = self.clipLabel.font()
        font.setBold(True)
        self.clipLabel.setFont(font)

        self.clipInfo = hint_label("")
        self.clipInfo.setWordWrap(False)
        self.clipInfo.setAccessibleName("Clip details")
        self.clipInfo.setToolTip("Length, sample rate and channels of the reference clip")
        self.levelMeter = LevelMeter()
        self.levelMeter.setObjectName("levelMeter")
        # Narrower than its 160 px on a small page: the header fits 520 px while recording.
        self.levelMeter.setMaximumWidth(160)
        self.recordTime = QLabel("0:00")
        self.recordTime.setAccessibleName("Recording time")
        self.recordTime.setToolTip("Time recorded so far")
        self.browseButton = QPushButton("Browse…")
        self.browseButton.setObjectName("browseButton")
        self.browseButton.setAccessibleName("Browse for a reference clip")
        self.browseButton.setToolTip("Choose an audio file of the voice to clone (3-10 s is best)")
        self.browseButton.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon))
        self.recordButton = QPushButton("Record")
        self._record_icon = record_icon()
        self.recordButton.setObjectName("recordButton")
        self.recordButton.setAccessibleName("Record from the microphone")

        header = QHBoxLayout()
        header.setSpacing(8)
        header.addWidget(self.clipLabel)
        header.addSpacing(6)
        header.addWidget(self.clipInfo)
        header.addStretch(1)
        header.addWidget(self.levelMeter)
        header.addWidget(self.recordTime)
        header.addWidget(self.browseButton)
        header.addWidget(self.recordButton)

        self.refPathEdit = QLineEdit()
        self.refPathEdit.setObjectName("refPathEdit")
        self.refPathEdit.setPlaceholderText(
            "Drop an audio file here, browse for one, or record from the microphone")
        self.refPathEdit.setAccessibleName("Reference clip path")
        self.refPathEdit.setToolTip("The audio file of the voice to clone; type or paste a path")
        self.refPathEdit.setClearButtonEnabled(True)
        self.refPathEdit.setAcceptDrops(False)  # a dropped file goes to the panel, not as text
        self.clipLabel.setBuddy(self.refPathEdit)
        self.message = MessageLabel()
        self.message.setObjectName("referenceMessage")

        self.playButton = QPushButton()
        self.playButton.setObjectName("playReferenceButton")
        self.playButton.setAccessibleName("Play reference clip")
        self.playButton.setIconSize(QSize(18, 18))
        self.playButton.setFixedSize(QSize(40, 40))
        self.playButton.hide()  # until a clip is loaded
        self.waveform = WaveformView(selectable=True)
        self.waveform.setObjectName("referenceWaveform")
        self.waveform.setFixedHeight(EMPTY_WAVE_HEIGHT)
        self.waveform.setAccessibleName("Reference waveform")
        wave = QHBoxLayout()
        wave.setSpacing(10)
        wave.addWidget(self.playButton, 0, Qt.AlignmentFlag.AlignVCenter)
        wave.addWidget(self.waveform, 1)
        self.selectionInfo = hint_label("")
        self.selectionInfo.setObjectName("selectionInfo")
        self.selectionInfo.setAccessibleName("Selection")
        self.selectionInfo.hide()  # until there is a clip to select in (an empty line took room)
        self.trimButton = QPushButton("Trim to selection")
        self.trimButton.setObjectName("trimButton")
        self.trimButton.setToolTip("Keep only the selected part of the clip (a new file; the "
                                   "original is not changed)")
        self.trimButton.hide()  # until a part of a clip is selected
        self.clipMeter = ClipMeter()  # length, clipping and noise, checked on every clip
        trim = QHBoxLayout()
        trim.setSpacing(8)
        trim.addSpacing(50)  # under the waveform, past the play button
        trim.addWidget(self.selectionInfo, 1)
        trim.addWidget(self.trimButton)

        self.transcriptLabel = QLabel("&Transcript")
        self.transcriptLabel.setFont(font)
        self.transcribeButton = QPushButton("Transcribe")
        self.transcribeButton.setObjectName("transcribeButton")
        self.transcribeButton.setAccessibleName("Transcribe the reference clip")
        self.refTextEdit = QPlainTextEdit()
        self.refTextEdit.setObjectName("refTextEdit")
        self.refTextEdit.setAccessibleName("Reference transcript")
        self.refTextEdit.setToolTip(
            "What is said in the reference clip, word for word. An exact transcript "
            "clones best.")
        self.refTextEdit.setPlaceholderText("What the reference clip says, word for word")
        self.refTextEdit.setTabChangesFocus(True)
        self.refTextEdit.setFixedHeight(62)
        self.transcriptLabel.setBuddy(self.refTextEdit)
        transcriptHeader = QHBoxLayout()
        transcriptHeader.setSpacing(8)
        transcriptHeader.addWidget(self.transcriptLabel)
        transcriptHeader.addStretch(1)
        transcriptHeader.addWidget(self.transcribeButton)
        self.note = hint_label(AUTO_TRANSCRIPT_NOTE)
        self.note.setObjectName("autoTranscriptNote")
        # A clip's earlier transcript put back says so there, selected to type over.
        self.remembered = RememberedText(self.refTextEdit, self.note)
        # A note about the transcript box, under it until a transcript is typed.
        self.transcriptMessage = MessageLabel()
        self.transcriptMessage.setObjectName("transcriptMessage")

        # A frame around the drop target, highlighted while a file is dragged over it.
        self.dropFrame = QFrame()
        self.dropFrame.setObjectName("dropFrame")
        self.dropFrame.setFrameShape(QFrame.Shape.NoFrame)
        self.dropFrame.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        clip = QVBoxLayout(self.dropFrame)
        clip.setContentsMargins(0, 0, 0, 0)
        clip.setSpacing(8)
        clip.addLayout(header)
        clip.addWidget(self.refPathEdit)
        clip.addWidget(self.message)
        clip.addLayout(wave)
        clip.addLayout(trim)
        clip.addWidget(self.clipMeter)
        self._clip_layout = clip

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.dropFrame)
        layout.addSpacing(4)
        layout.addLayout(transcriptHeader)
        layout.addWidget(self.refTextEdit)
        layout.addWidget(self.transcriptMessage)
        layout.addWidget(self.note)
        layout.addStretch(1)  # given more room than it needs, the panel stays at the top

    def _connect(self) -> None:
        self.refTextEdit.textChanged.connect(self._transcript_typed)
        self.browseButton.clicked.connect(self.browse)
        self.recordButton.clicked.connect(self._toggle_recording)
        self.refPathEdit.editingFinished.connect(self._path_edited)
        # The field's ⊗ (and deleting every character) clears the clip at once, not when
        # focus leaves: half-cleared, the picker still named the voice and its clip played.
        self.refPathEdit.textEdited.connect(lambda text: None if text.strip()
                                            else self._path_edited())
        self.playButton.clicked.connect(self.toggle_play)
        self.waveform.seek_requested.connect(self._seek)
        self.waveform.selection_changed.connect(lambda _s: self._refresh_trim())
        self.trimButton.clicked.connect(self.trim)
        self.clipMeter.trim_best_requested.connect(self.trim_best)
        self.transcribeButton.clicked.connect(self._request_transcribe)
        self._recorder.level_changed.connect(self._on_level)
        self._recorder.error.connect(self._on_record_error)
        self._recorder.limit_reached.connect(self._on_limit)
        if self._player is not None:
            self._player.state_changed.connect(self._on_player_state)
            self._player.position_changed.connect(self._on_player_position)
            self._player.loaded.connect(self._on_player_loaded)

    def add_under_clip(self, widget: QWidget) -> None:
        """A widget about the clip (the Clone view's cleanup), under its checks."""
        self._clip_layout.addWidget(widget)

    # ------------------------------------------------------------------ queries
    def reference(self) -> Path | None:
        return self._reference

    def transcript(self) -> str | None:
        text = self.refTextEdit.toPlainText().strip()
        return text or None

    def message_text(self) -> str:
        return self.message.text()

    def is_recording(self) -> bool:
        return bool(self._recorder.is_recording())

    # ------------------------------------------------------------------ state in
    def set_audio_status(self, status: AudioStatus) -> None:
        """Enable Play and Record from what the audio probe found; say why when off."""
        self._play_reason = play_off(self._player, status)
        self._can_play = self._play_reason is None
        self._can_record = status.recording_reason is None
        self._record_reason = status.recording_reason
        self._refresh()

    def set_reference(self, path: str | Path | None) -> bool:
        """Use the clip at ``path`` (None clears). Returns whether it could be read.

        A new clip takes its own transcript (the one it had earlier this session, else
        an empty one), as the old one described the old clip; Edit ▸ Undo gives both back. A clip that cannot be read replaces nothing: the clip and transcript
        the panel held stay, and the message names the file that failed.
        """
        return self._undoable("Replace the reference clip", lambda: self._set_reference(path))

    def _set_reference(self, path: str | Path | None) -> bool:
        previous = self._reference
        if path is None or str(path).strip() == "":
            self._path_text = ""
            self.refPathEdit.clear()
            self._use(None, None, 0)
            self.message.clear_message()
        else:
            path = Path(path).expanduser()
            try:
                audio, rate = read_audio(path)
            except UserError as exc:
                if previous is None:  # nothing to keep: the typed path stays, to fix
                    self._path_text = str(path)
                    self.refPathEdit.setText(str(path))
                    self.message.show_message(str(exc))
                else:
                    self._path_text = str(previous)
                    self.refPathEdit.setText(str(previous))
                    self.message.show_message(f"{exc} The clip you had is still in use.")
                return False
            self._use(path, audio, rate)
            self.show_as(shown_name(path))
            self.message.clear_message()
        if self._reference != previous:
            self._swap_transcript(previous)
            if self._transcribing:  # that transcription was of the old clip
                self.set_transcribing(False)
            self.reference_changed.emit(self._reference)
        return self._reference is not None

    def _swap_transcript(self, previous: Path | None) -> None:
        """The clip changed from ``previous``: its transcript is kept for it, and the new
        clip's comes back. With no clip before, what was typed stays for the new one."""
        typed = self.refTextEdit.toPlainText()
        if previous is not None:
            self._transcripts[previous] = typed
        remembered = self._transcripts.get(self._reference) if self._reference else None
        if previous is not None or (remembered and not typed.strip()):
            self.remembered.fill(remembered or "", remembered=True)

    def set_transcript(self, text: str, clip: Path | None = None) -> bool:
        """Show a transcript (from the Transcribe job) and end the transcribing state.

        ``clip`` is the file that was transcribed: when the panel holds another one by
        now, the transcript is not used (it describes the old clip) and False returned.
        A typed transcript it replaces comes back with Edit ▸ Undo."""
        if clip is not None and Path(clip) != self._reference:
            return False
        self.set_transcribing(False)
        self._undoable("Replace the transcript", lambda: self.refTextEdit.setPlainText(text))
        return True

    def set_undo_stack(self, stack: UndoStack) -> None:
        self.undoStack = stack

    def show_as(self, name: str) -> None:
        """What the clip field shows for the clip in use: its path, or a name for a clip
        the app keeps (a saved voice's, a take's), never the app's folders and hashes."""
        self._path_text = name
        self.refPathEdit.setText(name)
        self.refPathEdit.setToolTip(name)

    def use_clip(self, path: Path, transcript: str | None, words: str, shown: str | None = None
                 ) -> bool:
        """A clip and its transcript at once (a saved voice's), as one edit for Undo;
        ``shown``: what the clip field says instead of the path. False: unreadable,
        nothing replaced."""
        def change() -> bool:
            if not self._set_reference(path):
                return False
            self.set_transcribing(False)
            self.refTextEdit.setPlainText(transcript or "")
            if shown:
                self.show_as(shown)
            return True

        return self._undoable(words, change)

    def _undoable(self, words: str, change):
        """Run ``change``; when it replaced a clip or typed words, record it for Undo."""
        before = self._state()
        result = change()
        after = self._state()
        if before[:2] != after[:2] and (before[0] is not None or before[1].strip()):
            push_edit(self.undoStack, words, lambda: self._put(after),
                      lambda: self._put(before), done=True)
        return result

    def _state(self) -> tuple[Path | None, str, str]:
        return self._reference, self.refTextEdit.toPlainText(), self.refPathEdit.text()

    def _put(self, state: tuple[Path | None, str, str]) -> None:
        """Undo and Redo: the clip, transcript and clip field as they were."""
        if state[0] != self._reference:
            self._set_reference(state[0])
        self.refTextEdit.setPlainText(state[1])
        if state[0] is not None:
            self.show_as(state[2])

    def set_transcribing(self, busy: bool) -> None:
        self._transcribing = busy
        self.refTextEdit.setReadOnly(busy)
        self.transcribeButton.setText("Transcribing…" if busy else "Transcribe")
        self._refresh()

    def show_message(self, text: str, error: bool = True) -> None:
        self.message.show_message(text, error)

    def show_transcript_note(self, text: str) -> None:
        """A calm note by the Transcript box; it goes once a transcript is typed."""
        self.transcriptMessage.show_message(text, error=False)

    def _transcript_typed(self) -> None:
        if self.refTextEdit.toPlainText().strip():
            self.transcriptMessage.clear_message()

    def set_recogniser_size(self, size: str | None) -> None:
        """The speech recogniser's download size while it is missing (None: it is here)."""
        self.remembered.set_note(AUTO_TRANSCRIPT_NOTE if size is None
                                 else AUTO_TRANSCRIPT_DOWNLOAD.format(size=size))

    # ------------------------------------------------------------------ intents
    def browse(self) -> None:
        # The folder the user last chose a clip from, else home: never the app's own.
        start = start_folder(self._last_folder, avoid=data_dir())
        path, _ = file_dialogs.open_file_name(self, "Choose a reference clip", start,
                                              AUDIO_FILTER)
        if path:
            self._last_folder = str(Path(path).parent)
            self.set_reference(path)

    def handle_drop(self, mime: QMimeData) -> bool:
        """Use the first local file in ``mime``; the drop and paste path for tests too."""
        path = dropped_path(mime)
        if path is None:
            return False
        self.set_reference(path)
        return True

    def toggle_play(self) -> None:
        if not self._can_play or self._audio is None:
            return
        if self._player.key() == self._key():
            self._player.toggle()
            return
        self._player.load(self._audio, self._rate, self._key())
        start = self.waveform.position()
        if 0 < start < self.waveform.duration():
            self._player.seek(start)
        self._player.play()

    def _seek(self, seconds: float) -> None:
        if self._player is not None and self._player.key() == self._key():
            self._player.seek(seconds)
        else:
            self.waveform.set_position(seconds)  # where Play will start
        self.seek_requested.emit(seconds)

    def _request_transcribe(self) -> None:
        if self._reference is not None and not self._transcribing:
            self.transcribe_requested.emit(self._reference)

    def _path_edited(self) -> None:
        # Only a changed path is read again: focus leaving the field after an error
        # must not repeat the same message.
        text = self.refPathEdit.text().strip()
        if text != self._path_text:
            self.set_reference(text or None)

    # ------------------------------------------------------------------ recording
    def _toggle_recording(self) -> None:
        if self._recorder.is_recording():
            self.stop_recording()
        else:
            self.start_recording()

    def start_recording(self) -> None:
        if not self._can_record or self._recorder.is_recording():
            return
        if self._player is not None and self._player.state() == "playing":
            self._player.pause()  # no playback leaking into the microphone
        self.message.clear_message()
        self.levelMeter.reset()
        self.recordTime.setText("0:00")
        if self._recorder.start(None, RECORD_RATE):
            self._refresh()

    def stop_recording(self) -> Path | None:
        """Stop, save the take as a WAV under the recordings folder and use it."""
        audio, rate = self._recorder.stop()
        self._refresh()
        return self._save_recording(audio, rate)

    def finish(self) -> None:
        """The studio is closing: save a recording in progress, then let go of the input."""
        if self._recorder.is_recording():
            self.stop_recording()
        self._recorder.close()

    def _save_recording(self, audio: np.ndarray, rate: int) -> Path | None:
        if audio.size == 0:
            self.message.show_message(EMPTY_RECORDING)
            return None
        folder = self._recordings_dir or data_dir() / "recordings"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = recording_path(folder)
            write_audio_atomic(path, audio, rate)
        except UserError as exc:
            self.message.show_message(str(exc))
            return None
        except OSError as exc:
            self.message.show_message(
                f"The recording could not be saved in {folder} ({exc.strerror or exc}).")
            return None
        self.set_reference(path)
        return path

    def _on_level(self, dbfs: float) -> None:
        self.levelMeter.set_level(dbfs)
        if self._recorder.is_recording():
            self.recordTime.setText(_mmss(self._recorder.elapsed()))

    def _on_record_error(self, sentence: str) -> None:
        # The device stopped mid-recording: keep what was recorded before it did.
        audio, rate = self._recorder.stop()
        self._refresh()
        if audio.size and self._save_recording(audio, rate) is not None:
            sentence = f"{sentence} {RECORDING_KEPT.format(seconds=audio.size / rate)}"
        self.message.show_message(sentence)

    def _on_limit(self, sentence: str) -> None:
        # The recorder stopped itself and kept the samples: save them, then say why.
        audio, rate = self._recorder.stop()
        self._refresh()
        if self._save_recording(audio, rate) is not None:
            self.message.show_message(sentence, error=False)

    # ------------------------------------------------------------------ player
    def _key(self) -> object:
        return ("reference", self._prefix, str(self._reference))

    def _mine(self) -> bool:
        return self._player is not None and self._player.key() == self._key()

    def _on_player_state(self, _state: str) -> None:
        self._refresh_play()

    def _on_player_position(self, seconds: float) -> None:
        if self._mine():
            self.waveform.set_position(seconds)

    def _on_player_loaded(self, _key: object) -> None:
        self._refresh_play()

    # ------------------------------------------------------------------ rendering
    def _use(self, path: Path | None, audio: np.ndarray | None, rate: int) -> None:
        self.resizing.emit()
        if self._mine() and self._player.state() != "stopped":
            self._player.stop()
        self._reference = path
        if audio is None:
            self._audio, self._rate = None, 0
            self.waveform.set_audio(None)
            self.clipInfo.setText("")
            self.clipMeter.set_check(None)
        else:
            self._audio = audio.mean(axis=0).astype(np.float32) if audio.ndim == 2 else audio
            self._rate = int(rate)
            self.waveform.set_audio(self._audio, self._rate)
            self.clipInfo.setText(clip_summary(audio, rate))
            self.clipMeter.set_check(check_clip(self._audio, self._rate))
        if path is None:
            self.refPathEdit.setToolTip("The audio file of the voice to clone; type or paste a path")
        self.waveform.setFixedHeight(EMPTY_WAVE_HEIGHT if self._audio is None else WAVE_HEIGHT)
        self.playButton.setVisible(self._audio is not None)
        self._refresh()
        self._refresh_trim()

    def _refresh(self) -> None:
        recording = self._recorder.is_recording()
        self.levelMeter.setVisible(recording)
        self.recordTime.setVisible(recording)
        # The level and time take the old clip's details' place: beside them the header
        # was wider than the page at 1024x640, and Browse and Stop were cut off.
        self.clipInfo.setVisible(not recording)
        style = self.style()
        self.recordButton.setText("Stop" if recording else "Record")
        self.recordButton.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaStop)
                                  if recording else self._record_icon)
        self.recordButton.setEnabled(self._can_record)
        self.recordButton.setToolTip(
            self._record_reason if not self._can_record else
            "Stop recording and use the recording" if recording else
            "Record the voice from the microphone (3-10 s of clear speech is best)")
        self.browseButton.setEnabled(not recording)
        self.refPathEdit.setEnabled(not recording)
        has_clip = self._reference is not None
        self.transcribeButton.setEnabled(has_clip and not self._transcribing and not recording)
        self.transcribeButton.setToolTip(
            "Fill the transcript with speech recognition (Whisper)" if has_clip else
            "Choose a reference clip first")
        self._refresh_play()

    def _refresh_trim(self) -> None:
        selection = self.waveform.selection()
        if selection is None:
            self.selectionInfo.setText(
                "Drag across the waveform to select the part to keep." if self._audio is not None
                and self.waveform.duration() > MAX_GOOD_SECONDS else "")
        else:
            length = selection[1] - selection[0]
            verdict = ("a good length" if MIN_GOOD_SECONDS <= length <= MAX_GOOD_SECONDS
                       else f"{MIN_GOOD_SECONDS:.0f}-{MAX_GOOD_SECONDS:.0f} s clones best")
            self.selectionInfo.setText(
                f"{length:.1f} s selected, {selection[0]:.1f}-{selection[1]:.1f} s: {verdict}")
        has_selection = selection is not None and not self.is_recording()
        self.trimButton.setVisible(has_selection)
        self.selectionInfo.setVisible(bool(self.selectionInfo.text()))

    def trim(self) -> Path | None:
        """Use only the selected part: written as a new clip beside the recordings (the
        user's file stays as it is), the transcript kept for the user to shorten."""
        selection = self.waveform.selection()
        if selection is None or self._audio is None or self._reference is None:
            return None
        first, last = (int(round(t * self._rate)) for t in selection)
        audio = self._audio[first:last]
        folder = self._recordings_dir or data_dir() / "recordings"
        path = folder / f"{self._reference.stem} {selection[0]:.1f}-{selection[1]:.1f}s.wav"
        n = 2
        while path.exists():
            path = path.with_name(f"{path.stem.rsplit(' (', 1)[0]} ({n}).wav")
            n += 1
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_audio_atomic(path, audio, self._rate)
        except (UserError, OSError) as exc:
            self.message.show_message(str(exc) if isinstance(exc, UserError) else
                                      f"The trimmed clip could not be saved in {folder} "
                                      f"({exc.strerror or exc}).")
            return None
        transcript = self.refTextEdit.toPlainText()
        self.set_reference(path)
        self.refTextEdit.setPlainText(transcript)
        self.message.show_message(
            f"Trimmed to {len(audio) / self._rate:.1f} s; make sure the transcript says only "
            "what the trimmed clip says.", error=False)
        return path

    def trim_best(self) -> Path | None:
        """Trim a long clip to its best 10 s (the most clear speech, cut at pauses)."""
        if self._audio is None:
            return None
        self.waveform.set_selection(best_window(self._audio, self._rate))
        return self.trim()

    def _refresh_play(self) -> None:
        playing = self._mine() and self._player.state() == "playing"
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.playButton.setIcon(play_icon(self, icon))
        # No playback while recording: the speakers would leak into the microphone.
        enabled = self._can_play and self._audio is not None and not self.is_recording()
        self.playButton.setEnabled(enabled)
        if not self._can_play:
            self.playButton.setToolTip(self._play_reason)
        elif self._audio is None:
            self.playButton.setToolTip("Choose a reference clip to play it")
        else:
            self.playButton.setToolTip("Pause the reference clip" if playing else
                                       "Play the reference clip")

    # ------------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event) -> None:
        if dropped_path(event.mimeData()) is not None and not self.is_recording():
            event.acceptProposedAction()
            self._highlight(True)
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:
        self._highlight(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event) -> None:
        self._highlight(False)
        if not self.is_recording() and self.handle_drop(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def _highlight(self, on: bool) -> None:
        self.dropFrame.setStyleSheet(
            "#dropFrame { border: 2px dashed palette(highlight); border-radius: 6px; }"
            if on else "")

    # ------------------------------------------------------------------ persistence
    def save_state(self, settings) -> None:
        settings.set_state(f"{self._prefix}/reference",
                           str(self._reference) if self._reference else "")
        settings.set_state(f"{self._prefix}/ref_text", self.refTextEdit.toPlainText())

    def restore_state(self, settings) -> None:
        """Restore the last clip and transcript; a clip deleted since is dropped quietly."""
        path = settings.state(f"{self._prefix}/reference")
        if isinstance(path, str) and path and Path(path).is_file():
            self.set_reference(path)
        elif path == "":  # none saved (an undo snapshot of an empty panel included)
            self.set_reference(None)
        text = settings.state(f"{self._prefix}/ref_text")
        if isinstance(text, str):
            self.refTextEdit.setPlainText(text)
