"""ReferencePanel: choosing, dropping and recording a clip, inline errors, play,
transcribe, and saved state. Audio devices are faked: playback and recording are
the audio package's business, tested there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QObject, QPoint, QPointF, QSettings, Qt, QUrl, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from studio_fakes import FakeRecorder

from studio.audio.backend import AudioStatus
from studio.audio.recorder import DEVICE_LOST
from studio.settings import Settings
from studio.sound.files import read_audio, write_audio_atomic
from studio.views.reference_panel import (
    AUTO_TRANSCRIPT_NOTE,
    EMPTY_RECORDING,
    RECORDING_KEPT,
    ReferencePanel,
)

PLAYABLE = AudioStatus(True, None, [(0, "Speakers")], [(1, "Microphone")])
NO_PORTAUDIO = AudioStatus(
    False,
    "Playback is off: the PortAudio library is not installed (install libportaudio2).",
    recording_reason="Recording is off: the PortAudio library is not installed "
                     "(install libportaudio2).",
)


class FakePlayer(QObject):
    state_changed = Signal(str)
    position_changed = Signal(float)
    finished = Signal()
    error = Signal(str)
    loaded = Signal(object)

    def __init__(self):
        super().__init__()
        self._key = None
        self._state = "stopped"
        self.calls: list[tuple] = []

    def key(self):
        return self._key

    def state(self):
        return self._state

    def load(self, audio, sample_rate, key=None):
        self.calls.append(("load", audio.shape, sample_rate, key))
        self._key = key
        self._set("stopped")
        self.loaded.emit(key)

    def play(self):
        self.calls.append(("play",))
        self._set("playing")

    def pause(self):
        self.calls.append(("pause",))
        self._set("paused")

    def toggle(self):
        self.calls.append(("toggle",))
        self._set("paused" if self._state == "playing" else "playing")

    def stop(self):
        self.calls.append(("stop",))
        self._set("stopped")

    def seek(self, seconds):
        self.calls.append(("seek", seconds))
        self.position_changed.emit(seconds)

    def _set(self, state):
        if state != self._state:
            self._state = state
            self.state_changed.emit(state)


@pytest.fixture
def clip(tmp_path, speech) -> Path:
    path = tmp_path / "voice.wav"
    write_audio_atomic(path, speech(2.0), 24000)
    return path


@pytest.fixture
def player():
    return FakePlayer()


@pytest.fixture
def recorder(speech):
    return FakeRecorder(speech(1.5, seed=3))


@pytest.fixture
def panel(qtbot, player, recorder):
    widget = ReferencePanel(player, recorder=recorder, audio_status=PLAYABLE)
    qtbot.addWidget(widget)
    return widget


def test_a_valid_clip_shows_its_waveform_and_enables_play(qtbot, panel, clip):
    assert not panel.playButton.isEnabled() and not panel.transcribeButton.isEnabled()
    with qtbot.waitSignal(panel.reference_changed) as changed:
        assert panel.set_reference(clip)
    assert changed.args == [clip]
    assert panel.reference() == clip
    assert panel.refPathEdit.text() == str(clip)
    assert panel.waveform.has_audio()
    assert panel.waveform.duration() == pytest.approx(2.0)
    assert panel.playButton.isEnabled() and panel.transcribeButton.isEnabled()
    assert panel.clipInfo.text() == "2.0 s · 24 kHz · mono"
    assert panel.message_text() == ""
    assert panel.note.text() == AUTO_TRANSCRIPT_NOTE


def test_a_corrupt_file_is_one_inline_sentence_and_replaces_nothing(qtbot, panel, clip,
                                                                     tmp_path):
    """Issue 25 (4): a damaged clip used to throw away the good clip and the typed
    transcript; now it changes nothing but the message."""
    panel.set_reference(clip)
    panel.refTextEdit.setPlainText("The words I typed.")
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF\x00\x00not really audio")
    with qtbot.assertNotEmitted(panel.reference_changed):
        assert not panel.set_reference(broken)
    assert panel.reference() == clip
    assert panel.transcript() == "The words I typed."
    assert panel.waveform.has_audio() and panel.transcribeButton.isEnabled()
    message = panel.message_text()
    assert message.startswith(f"The audio file {broken} is damaged")
    assert message.endswith("The clip you had is still in use.")
    assert "\n" not in message and "Traceback" not in message
    assert not panel.message.isHidden() and panel.message.is_error()
    assert panel.refPathEdit.text() == str(clip)


def test_a_corrupt_file_with_no_clip_before_is_left_to_fix(qtbot, panel, tmp_path):
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF\x00\x00not really audio")
    assert not panel.set_reference(broken)
    assert panel.reference() is None
    assert panel.message_text().startswith(f"The audio file {broken} is damaged")
    assert panel.refPathEdit.text() == str(broken)  # left for the user to fix
    assert not panel.waveform.has_audio()
    assert not panel.playButton.isEnabled() and not panel.transcribeButton.isEnabled()


def test_replacing_a_clip_and_its_transcript_is_undone(qtbot, panel, clip, tmp_path, speech):
    from studio.sound.files import write_audio_atomic

    other = tmp_path / "other.wav"
    write_audio_atomic(other, speech(3.0, seed=3), 24000)
    panel.set_reference(clip)
    panel.refTextEdit.setPlainText("Typed for the first clip.")
    panel.set_reference(other)  # a new clip clears the transcript
    assert panel.reference() == other and panel.transcript() is None
    panel.undoStack.undo()
    assert panel.reference() == clip and panel.transcript() == "Typed for the first clip."
    panel.undoStack.redo()
    assert panel.reference() == other and panel.transcript() is None
    panel.undoStack.undo()
    assert panel.set_transcript("From the recogniser.", clip)
    assert panel.transcript() == "From the recogniser."
    panel.undoStack.undo()
    assert panel.transcript() == "Typed for the first clip."


def test_a_clips_transcript_comes_back_with_the_clip(panel, clip, tmp_path, speech):
    """Review 8, finding 5: the transcript typed for me.wav was lost after trying another
    clip; it belongs to its clip for the session, and a clip never used starts empty."""
    other, third = tmp_path / "silence.wav", tmp_path / "third.wav"
    write_audio_atomic(other, speech(3.0, seed=3), 24000)
    write_audio_atomic(third, speech(3.0, seed=4), 24000)
    panel.set_reference(clip)
    panel.refTextEdit.setPlainText("Typed for me.")
    panel.set_reference(other)
    assert panel.transcript() is None
    panel.refTextEdit.setPlainText("Typed for the other one.")
    panel.set_reference(clip)
    assert panel.transcript() == "Typed for me."
    panel.set_reference(other)
    assert panel.transcript() == "Typed for the other one."
    panel.set_reference(third)
    assert panel.transcript() is None
    panel.set_reference(None)  # no clip: no transcript; the clip's comes back with it
    assert panel.transcript() is None
    panel.set_reference(clip)
    assert panel.transcript() == "Typed for me."


def test_typing_a_path_reads_it_once(panel, clip, tmp_path):
    panel.refPathEdit.setText(str(tmp_path / "missing.wav"))
    panel.refPathEdit.editingFinished.emit()
    assert "does not exist" in panel.message_text()
    panel.refPathEdit.setText(str(clip))
    panel.refPathEdit.editingFinished.emit()
    assert panel.reference() == clip and panel.message_text() == ""


def test_dropping_a_file_url_sets_the_reference(qtbot, panel, clip):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(clip))])
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    panel.dragEnterEvent(enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(panel.reference_changed):
        panel.dropEvent(drop)
    assert drop.isAccepted()
    assert panel.reference() == clip

    text_only = QMimeData()
    text_only.setText("just words")
    assert not panel.handle_drop(text_only)
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, text_only,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    panel.dragEnterEvent(enter)
    assert not enter.isAccepted()


def test_transcribe_emits_the_path_and_the_transcript_is_none_when_empty(qtbot, panel, clip):
    assert panel.transcript() is None
    panel.set_reference(clip)
    with qtbot.waitSignal(panel.transcribe_requested) as asked:
        panel.transcribeButton.click()
    assert asked.args == [clip]

    panel.set_transcribing(True)
    assert not panel.transcribeButton.isEnabled() and panel.refTextEdit.isReadOnly()
    panel.set_transcript("  Hello from the clip.  ")
    assert panel.transcribeButton.isEnabled() and not panel.refTextEdit.isReadOnly()
    assert panel.transcript() == "Hello from the clip."

    panel.refTextEdit.setPlainText("   \n ")
    assert panel.transcript() is None


def test_a_new_clip_clears_the_old_transcript(panel, clip, tmp_path, speech):
    other = tmp_path / "other.wav"
    write_audio_atomic(other, speech(1.0, seed=1), 24000)
    panel.set_reference(clip)
    panel.set_transcript("Words of the first clip.")
    panel.set_reference(clip)  # the same clip again keeps it
    assert panel.transcript() == "Words of the first clip."
    panel.set_reference(other)
    assert panel.transcript() is None


def test_play_loads_the_clip_into_the_shared_player_then_toggles(panel, player, clip):
    panel.set_reference(clip)
    panel.playButton.click()
    assert [c[0] for c in player.calls] == ["load", "play"]
    load = player.calls[0]
    assert load[1] == (48000,) and load[2] == 24000
    assert "Pause" in panel.playButton.toolTip()
    panel.playButton.click()
    assert player.calls[-1] == ("toggle",)
    assert player.state() == "paused" and "Play" in panel.playButton.toolTip()


def test_seeking_before_play_starts_there(panel, player, clip):
    panel.set_reference(clip)
    panel.waveform.resize(400, 64)
    panel.waveform.seek_requested.emit(1.5)
    assert panel.waveform.position() == pytest.approx(1.5)
    assert player.calls == []  # the player holds someone else's clip: leave it alone
    panel.playButton.click()
    assert [c[0] for c in player.calls] == ["load", "seek", "play"]
    assert player.calls[1] == ("seek", pytest.approx(1.5))
    panel.waveform.seek_requested.emit(0.5)  # now ours: the player seeks
    assert player.calls[-1] == ("seek", pytest.approx(0.5))
    assert panel.waveform.position() == pytest.approx(0.5)


def test_clicking_the_waveform_asks_to_seek(qtbot, panel, clip):
    panel.set_reference(clip)
    panel.show()
    panel.waveform.resize(400, 64)
    with qtbot.waitSignal(panel.waveform.seek_requested) as asked:
        qtbot.mouseClick(panel.waveform, Qt.MouseButton.LeftButton, pos=QPoint(200, 30))
    assert asked.args[0] == pytest.approx(1.0, abs=0.01)


def test_play_and_record_say_why_they_are_off(qtbot, recorder, clip):
    panel = ReferencePanel(FakePlayer(), recorder=recorder, audio_status=NO_PORTAUDIO)
    qtbot.addWidget(panel)
    panel.set_reference(clip)
    assert not panel.playButton.isEnabled()
    assert panel.playButton.toolTip() == NO_PORTAUDIO.reason
    assert not panel.recordButton.isEnabled()
    assert panel.recordButton.toolTip() == NO_PORTAUDIO.recording_reason
    assert panel.reference() == clip  # the clip itself is still usable for cloning


def test_recording_is_saved_as_a_wav_and_used(qtbot, panel, recorder, tmp_path):
    panel.show()
    panel.recordButton.click()
    assert recorder.started_with == (None, 24000)
    assert panel.recordButton.text() == "Stop"
    assert panel.levelMeter.isVisible()
    recorder.level_changed.emit(-18.0)
    assert panel.levelMeter.level() == pytest.approx(-18.0)
    assert panel.recordTime.text() == "0:03"
    with qtbot.waitSignal(panel.reference_changed) as changed:
        panel.recordButton.click()
    path = changed.args[0]
    assert path.parent == tmp_path / "data" / "recordings"  # the private data folder
    assert path.suffix == ".wav" and path.is_file()
    audio, rate = read_audio(path)
    assert rate == 24000 and audio.shape == (1, 36000)
    assert panel.reference() == path
    assert panel.recordButton.text() == "Record" and not panel.levelMeter.isVisible()


def test_an_empty_recording_is_told_inline(panel, recorder):
    recorder.audio = np.zeros(0, dtype=np.float32)
    panel.recordButton.click()
    panel.recordButton.click()
    assert panel.message_text() == EMPTY_RECORDING
    assert panel.reference() is None


def test_a_recorder_error_is_told_inline(panel, recorder):
    recorder.error.emit("Recording failed: the audio input device could not start (busy).")
    assert panel.message_text().startswith("Recording failed")


def test_a_device_lost_mid_recording_keeps_what_was_recorded(qtbot, panel, recorder, tmp_path):
    panel.recordButton.click()
    recorder.recording = False  # the real recorder halts itself, keeping the samples
    with qtbot.waitSignal(panel.reference_changed) as changed:
        recorder.error.emit(DEVICE_LOST)
    path = changed.args[0]
    assert path.is_file() and read_audio(path)[0].shape == (1, 36000)
    assert panel.reference() == path
    assert panel.message_text() == (f"{DEVICE_LOST} "
                                    f"{RECORDING_KEPT.format(seconds=1.5)}")


def test_closing_the_studio_mid_recording_saves_the_recording(qtbot, panel, recorder):
    panel.recordButton.click()
    with qtbot.waitSignal(panel.reference_changed) as changed:
        panel.finish()
    assert changed.args[0].is_file() and panel.reference() == changed.args[0]
    assert recorder.closed and not recorder.is_recording()


def test_state_round_trip(qtbot, panel, clip, tmp_path):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        environ={})
    panel.set_reference(clip)
    panel.set_transcript("The saved transcript.")
    panel.save_state(settings)

    again = ReferencePanel(FakePlayer(), recorder=FakeRecorder(np.zeros(0, np.float32)),
                           audio_status=PLAYABLE)
    qtbot.addWidget(again)
    again.restore_state(settings)
    assert again.reference() == clip and again.transcript() == "The saved transcript."

    clip.unlink()  # a clip deleted since is dropped without a complaint
    third = ReferencePanel(FakePlayer(), recorder=FakeRecorder(np.zeros(0, np.float32)),
                           audio_status=PLAYABLE)
    qtbot.addWidget(third)
    third.restore_state(settings)
    assert third.reference() is None and third.message_text() == ""


# ---------------------------------------------------------------------------------- trimming
@pytest.fixture
def long_clip(tmp_path, speech) -> Path:
    path = tmp_path / "long take.wav"
    write_audio_atomic(path, speech(14.0, seed=5), 24000)
    return path


def _drag(qtbot, wave, start: float, end: float) -> None:
    """Press at ``start`` of the width, move to ``end``, release: as a mouse drags."""
    from PySide6.QtTest import QTest

    y = wave.height() // 2
    a, b = QPoint(int(wave.width() * start), y), QPoint(int(wave.width() * end), y)
    QTest.mousePress(wave, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for step in range(1, 6):
        QTest.mouseMove(wave, a + (b - a) * step / 5)
    QTest.mouseRelease(wave, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)


def test_a_drag_selects_and_says_whether_the_length_clones_well(qtbot, panel, long_clip):
    panel.resize(700, 300)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_reference(long_clip)
    assert panel.selectionInfo.text() == "Drag across the waveform to select the part to keep."
    assert not panel.trimButton.isVisible()
    wave = panel.waveform
    _drag(qtbot, wave, 0.1, 0.5)  # about 5.6 s of 14
    start, end = wave.selection()
    assert 5.0 < end - start < 6.2
    assert panel.selectionInfo.text().endswith(": a good length") and panel.trimButton.isVisible()
    _drag(qtbot, wave, 0.1, 0.15)  # under a second
    assert panel.selectionInfo.text().endswith(": 3-10 s clones best")
    qtbot.mouseClick(wave, Qt.MouseButton.LeftButton, pos=QPoint(wave.width() // 2, 10))
    assert wave.selection() is None and not panel.trimButton.isVisible()


def test_trim_keeps_the_selected_samples_in_a_new_clip(qtbot, panel, long_clip, tmp_path):
    panel._recordings_dir = tmp_path / "recordings"
    original = long_clip.read_bytes()
    panel.set_reference(long_clip)
    panel.refTextEdit.setPlainText("All fourteen seconds of words.")
    panel.waveform.set_selection((2.0, 6.5))
    with qtbot.waitSignal(panel.reference_changed) as changed:
        trimmed = panel.trim()
    assert changed.args == [trimmed] and panel.reference() == trimmed
    assert trimmed.parent == tmp_path / "recordings" and trimmed.name == "long take 2.0-6.5s.wav"
    audio, rate = read_audio(trimmed)
    source, _ = read_audio(long_clip)
    assert np.allclose(audio[0], source[0, 2 * rate:int(6.5 * rate)], atol=1e-4)  # 16-bit rounding
    assert long_clip.read_bytes() == original  # the user's file is not touched
    assert panel.transcript() == "All fourteen seconds of words."  # for the user to shorten
    assert "make sure the transcript says only" in panel.message_text()
    panel.set_reference(long_clip)
    panel.waveform.set_selection((2.0, 6.5))
    assert panel.trim().name == "long take 2.0-6.5s (2).wav"  # never overwrites
