"""Fakes for the view tests: a controller whose worker has the real signal set, a
player that records calls, a settings store in a temp INI file, and results."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QSettings, Signal

from studio.audio.backend import AudioStatus
from studio.service.requests import RenderRequest, RenderResult, TakeAudio
from studio.settings import Settings
from studio.worker.job import Job

PLAYABLE = AudioStatus(True, None, [(0, "Speakers"), (3, "HDMI Output")], [(1, "Microphone")],
                       default_output=0, default_input=1)
SILENT = AudioStatus(False, "Playback is off: no audio output device was found.",
                     recording_reason="Recording is off: no audio input device (microphone) "
                                      "was found.")
CPU_ONLY = {
    "off": (True, None),
    "auto": (True, None),
    "graph": (False, "graph: no CUDA GPU"),
    "compile": (False, "compile: no CUDA GPU"),
    "flashinfer": (False, "flashinfer: package not installed; no CUDA GPU"),
    "flashinfer-graph": (False, "flashinfer: package not installed; no CUDA GPU"),
}


def make_settings(path: Path, environ: dict[str, str] | None = None) -> Settings:
    return Settings(QSettings(str(path), QSettings.Format.IniFormat), environ=environ or {})


def fake_window(qtbot, tmp_path: Path, controller=None, size: tuple[int, int] | None = None,
                **options):
    """The studio's main window on fakes (settings in ``tmp_path``, CPU-only acceleration);
    with ``size``, shown at that size and exposed. ``options`` go to MainWindow."""
    from studio.views.main_window import MainWindow

    window = MainWindow(make_settings(tmp_path / "settings.ini"), controller or FakeController(),
                        FakePlayer(), audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY,
                        **options)
    qtbot.addWidget(window)
    if size is not None:
        window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
    return window


class FakeWorker(QObject):
    """The InferenceWorker's signals, nothing else."""

    model_loading = Signal(str)
    model_loaded = Signal(object)
    model_failed = Signal(str)
    model_missing = Signal(str)
    folder_checked = Signal(str, str)
    accel_changed = Signal(object)
    accel_availability = Signal(object)
    cache_cleared = Signal(int)
    takes_changed = Signal()
    takes_failed = Signal(str)
    voices_changed = Signal()
    voices_failed = Signal(str)
    voices_note = Signal(str)


class FakeProbe(QObject):
    """ConnectionTest's face: records each start; the test answers with its signals."""

    succeeded = Signal(str)
    failed = Signal(str)

    def __init__(self):
        super().__init__()
        self.started: list[tuple] = []

    def start(self, url, api_key, dialect) -> None:
        self.started.append((url, api_key, dialect))


class FakeController(QObject):
    """WorkerController's methods, recording each call; the jobs are real ``Job``s
    numbered from 1, which a test ends with ``job.report(...)`` as the worker would.

    With ``library`` (a writable TakeLibrary) the take edits are applied to it at
    once and ``takes_changed`` follows, as the real worker does a moment later.
    """

    takes_changed = Signal()
    accel_availability = Signal(object)  # re-emitted from the worker, as the real one does

    def __init__(self, library=None):
        super().__init__()
        self.library = library
        self.worker = FakeWorker()
        self.worker.accel_availability.connect(self.accel_availability)
        self.calls: list[tuple] = []
        self._ids = itertools.count(1)

    def load_model(self, request) -> None:
        self.calls.append(("load_model", request))

    def check_folder(self, folder: str) -> None:
        self.calls.append(("check_folder", folder))

    def _job(self, name: str, request) -> Job:
        job = Job(name, next(self._ids), parent=self)
        self.calls.append((name, job, request))
        return job

    def render(self, request) -> Job:
        return self._job("render", request)

    def render_lines(self, request) -> Job:
        return self._job("render_lines", request)

    def transcribe(self, path) -> Job:
        return self._job("transcribe", path)

    def cancel(self, job=None) -> None:
        self.calls.append(("cancel", job))

    def set_accel(self, mode: str) -> None:
        self.calls.append(("set_accel", mode))

    def set_backend(self, config) -> None:
        self.calls.append(("set_backend", config))

    def clear_cache(self) -> None:
        self.calls.append(("clear_cache",))

    def save_voice(self, request) -> Job:
        return self._job("save_voice", request)

    def rename_voice(self, voice_id: str, name: str) -> None:
        self.calls.append(("rename_voice", voice_id, name))

    def delete_voice(self, voice_id: str) -> None:
        self.calls.append(("delete_voice", voice_id))

    def undelete_voice(self, voice_id: str) -> None:
        self.calls.append(("undelete_voice", voice_id))

    def update_voice(self, voice_id: str, changes) -> None:
        self.calls.append(("update_voice", voice_id, dict(changes)))

    def set_voice_transcript(self, voice_id: str, transcript: str) -> None:
        self.calls.append(("set_voice_transcript", voice_id, transcript))

    def duplicate_voice(self, voice_id: str) -> None:
        self.calls.append(("duplicate_voice", voice_id))

    def import_voice(self, bundle) -> None:
        self.calls.append(("import_voice", bundle))

    def export_voice(self, voice_id: str, target) -> None:
        self.calls.append(("export_voice", voice_id, target))

    def shutdown(self) -> bool:
        self.calls.append(("shutdown",))
        return True

    def _take_edit(self, name: str, *args) -> None:
        self.calls.append((name, *args))
        if self.library is not None:
            method = {"star_take": "set_starred", "rename_take": "rename",
                      "note_take": "set_notes", "delete_takes": "delete",
                      "undelete_takes": "undelete"}[name]
            getattr(self.library, method)(*args)
            self.takes_changed.emit()

    def star_take(self, take_id: str, starred: bool) -> None:
        self._take_edit("star_take", take_id, starred)

    def rename_take(self, take_id: str, name: str) -> None:
        self._take_edit("rename_take", take_id, name)

    def note_take(self, take_id: str, notes: str) -> None:
        self._take_edit("note_take", take_id, notes)

    def delete_takes(self, ids) -> None:
        self._take_edit("delete_takes", tuple(ids))

    def undelete_takes(self, ids) -> None:
        self._take_edit("undelete_takes", tuple(ids))

    def set_asr_check(self, enabled: bool) -> None:
        self.calls.append(("set_asr_check", enabled))

    def set_judging(self, settings) -> None:
        self.calls.append(("set_judging", settings))

    def named(self, name: str) -> list[tuple]:
        return [c for c in self.calls if c[0] == name]


class FakePlayer(QObject):
    """The Player API with its signals; state changes happen at once."""

    state_changed = Signal(str)
    position_changed = Signal(float)
    finished = Signal()
    error = Signal(str)
    loaded = Signal(object)
    buffering_changed = Signal(bool)

    def __init__(self):
        super().__init__()
        self.calls: list[tuple] = []
        self.streamed: list = []  # what append() was given, in order
        self._open_end = False
        self._state = "stopped"
        self._key: object = None
        self._duration = 0.0
        self._position = 0.0
        self._gain = 1.0

    def state(self) -> str:
        return self._state

    def key(self) -> object:
        return self._key

    def duration(self) -> float:
        return self._duration

    def position(self) -> float:
        return self._position

    def gain(self) -> float:
        return self._gain

    def load(self, audio, sample_rate, key=None, *, gain=1.0) -> None:
        self.calls.append(("load", key))
        self._key, self._duration = key, len(audio) / sample_rate
        self._position, self._gain = 0.0, gain
        self._set("stopped")
        self.loaded.emit(key)

    def play_at_same_position(self, audio, sample_rate, key=None, *, gain=1.0) -> None:
        """The real player's A/B switch: another clip, the same time and state."""
        self.calls.append(("switch", key, self._position, gain))
        self._key, self._duration, self._gain = key, len(audio) / sample_rate, gain
        self._position = min(self._position, self._duration)
        self.loaded.emit(key)
        self.position_changed.emit(self._position)

    def begin_stream(self, sample_rate, key=None, *, gain=1.0) -> None:
        self.calls.append(("begin_stream", key))
        self._key, self._duration, self._position, self._rate = key, 0.0, 0.0, sample_rate
        self._gain = gain
        self.streamed, self._open_end = [], True
        self._set("stopped")
        self.loaded.emit(key)

    def append(self, audio) -> None:
        assert self._open_end, "append() without begin_stream()"
        self.streamed.append(audio)
        self._duration += len(audio) / self._rate

    def end_stream(self) -> None:
        self.calls.append(("end_stream",))
        self._open_end = False

    def streaming(self) -> bool:
        return self._open_end

    def set_key(self, key) -> None:
        self.calls.append(("set_key", key))
        self._key = key
        self.loaded.emit(key)

    def play(self) -> None:
        self.calls.append(("play",))
        self._set("playing")

    def pause(self) -> None:
        self.calls.append(("pause",))
        self._set("paused")

    def toggle(self) -> None:
        self.pause() if self._state == "playing" else self.play()

    def stop(self) -> None:
        self._set("stopped")

    def seek(self, seconds: float) -> None:
        self.calls.append(("seek", seconds))
        self._position = seconds
        self.position_changed.emit(seconds)

    def set_device(self, index) -> None:
        self.calls.append(("set_device", index))

    def close(self) -> None:
        self.calls.append(("close",))

    def _set(self, state: str) -> None:
        self._state = state
        self.state_changed.emit(state)


def make_result(text: str = "Hello there.", mode: str = "clone", seeds=(7,),
                seconds_each: float = 1.0, render_seconds: float = 0.5) -> RenderResult:
    rate = 24000
    takes = tuple(
        TakeAudio(np.zeros(int(rate * seconds_each), dtype=np.float32), rate, seed)
        for seed in seeds
    )
    return RenderResult(
        request=RenderRequest(text=text, mode=mode, seeds=tuple(seeds)),
        takes=takes,
        seconds=render_seconds,
        prompt_source="none",
        device="cpu",
        precision="fp32",
        accel_requested="off",
        accel_active="off",
        fallback_reason=None,
    )


def save_result(library, result: RenderResult, batch: str = "batch-1") -> RenderResult:
    """What the worker does before ``finished``: each take into ``library`` (a writer),
    its id on the result."""
    import dataclasses

    from studio.library.take_record import TakeRun
    from studio.service.snapshot import settings_of

    audio_seconds = result.audio_seconds
    run = TakeRun(model_source="tiny", device=result.device, precision=result.precision,
                  accel_requested=result.accel_requested, accel_active=result.accel_active,
                  fallback_reason=result.fallback_reason, engine_version="test",
                  seconds=result.seconds,
                  rtf=result.seconds / audio_seconds if audio_seconds else 0.0)
    takes = []
    for t in result.takes:
        take = library.add(settings_of(result.request, t.seed, None, None), run, t.audio,
                           t.sample_rate, batch=batch)
        takes.append(dataclasses.replace(t, take_id=take.id))
    return dataclasses.replace(result, takes=tuple(takes))


class FakeRecorder(QObject):
    """A microphone that hands back ``audio`` on stop."""

    state_changed = Signal(str)
    level_changed = Signal(float)
    limit_reached = Signal(str)
    error = Signal(str)

    def __init__(self, audio: np.ndarray):
        super().__init__()
        self.audio = audio
        self.recording = False
        self.started_with = None

    def is_recording(self):
        return self.recording

    def elapsed(self):
        return 3.2

    def start(self, device=None, sample_rate=24000):
        self.started_with = (device, sample_rate)
        self.recording = True
        self.state_changed.emit("recording")
        return True

    def stop(self):
        # Like the real one: what was recorded since start, handed over once.
        audio = self.audio if self.started_with is not None else np.zeros(0, np.float32)
        self.audio = np.zeros(0, dtype=np.float32)
        self.recording = False
        self.state_changed.emit("stopped")
        return audio, 24000

    def close(self):
        self.stop()
        self.closed = True
