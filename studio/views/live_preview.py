"""The render in progress, heard and seen: the first take's waveform grows chunk by
chunk and plays as it arrives ("Play as it renders").

The preview drives the shared player only while the player holds its clip (the key
``("live", job)``): a take the user plays meanwhile is left alone, and the waveform
still grows. When the render ends the clip is handed on under the take's key, so the
takes panel shows the same playback carrying on; a cancel or failure stops it.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from studio.views.widgets.waveform import WaveformView


class LivePreview(QFrame):
    def __init__(self, player=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("livePreview")
        self.setAccessibleName("Render in progress")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._player = player
        self._job: int | None = None
        self._dropped: int | None = None  # a cancelled job whose late chunks are ignored
        self._parts: list[np.ndarray] = []
        self._rate = 0
        self._ready = 0  # chunks arrived
        self._chunks = 0
        self._buffering = False

        self.stateLabel = QLabel()
        self.stateLabel.setObjectName("liveState")
        self.stateLabel.setAccessibleName("Playback of the render in progress")
        self.playButton = QPushButton("Pause")
        self.playButton.setObjectName("livePlayButton")
        self.playButton.setToolTip("Pause or resume listening; the render carries on")
        self.playButton.clicked.connect(self._toggle)
        self.waveform = WaveformView()
        self.waveform.setObjectName("liveWaveform")
        self.waveform.setAccessibleName("Waveform of the render in progress")
        self.waveform.setMinimumHeight(34)
        self.waveform.setMaximumHeight(34)
        self.waveform.seek_requested.connect(self._seek)

        # One row: the form must keep Cancel in view on a small screen while this shows.
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(8)
        layout.addWidget(self.waveform, 1)
        layout.addWidget(self.stateLabel)
        layout.addWidget(self.playButton)
        self.hide()
        if player is not None:
            player.position_changed.connect(self._position)
            player.buffering_changed.connect(self._buffering_changed)
            player.state_changed.connect(lambda _state: self._show_state())

    # ------------------------------------------------------------------ state in
    def key(self) -> tuple[str, int | None]:
        return ("live", self._job)

    def job(self) -> int | None:
        return self._job

    def add_chunk(self, job: int, chunk) -> None:
        """The next chunk of ``job``'s first take (a ``StreamChunk``); chunk 0 starts over."""
        if job == self._dropped:
            return
        if job != self._job or chunk.index == 0:
            self._begin(job, chunk.sample_rate)
        self._parts.append(chunk.audio)
        self._ready, self._chunks = chunk.index + 1, chunk.chunks
        self.waveform.set_audio(np.concatenate(self._parts), self._rate)
        self.show()
        if self._holds():
            self._player.append(chunk.audio)
            if chunk.last:
                self._player.end_stream()
            self.waveform.set_position(self._player.position())
            if chunk.index == 0:
                self._player.play()  # last: its signals may end the job (Cancel on first sound)
        self._show_state()

    def finish(self, take_key: object = None) -> None:
        """The render is done: playback carries on as the take's (``take_key``)."""
        if self._holds():
            self._player.end_stream()
            if take_key is not None:
                self._player.set_key(take_key)
        self._end()

    def abort(self) -> None:
        """Cancelled or failed: playback stops now, and late chunks of the job are ignored."""
        if self._holds():
            self._player.stop()
            self._player.end_stream()
        self._dropped = self._job
        self._end()

    # ------------------------------------------------------------------ queries
    def state_text(self) -> str:
        return self.stateLabel.text()

    # ------------------------------------------------------------------ internals
    def _begin(self, job: int, rate: int) -> None:
        self._job, self._rate, self._parts, self._buffering = job, rate, [], False
        if self._player is not None:
            self._player.begin_stream(rate, key=self.key())

    def _holds(self) -> bool:
        return (self._player is not None and self._job is not None
                and self._player.key() == self.key())

    def _end(self) -> None:
        self._job, self._parts, self._ready, self._chunks = None, [], 0, 0
        self._buffering = False
        self.waveform.set_audio(None)
        self.hide()

    def _show_state(self) -> None:
        if self._job is None:
            return
        # A server's stream does not say how many pieces come (chunks 0).
        progress = (f"{self._ready} of {self._chunks} chunks" if self._chunks
                    else f"{self._ready} piece{'s' if self._ready != 1 else ''} received")
        playing = self._holds() and self._player.state() == "playing"
        if playing and self._buffering:
            text = (f"Buffering · waiting for chunk {self._ready + 1} of {self._chunks}…"
                    if self._chunks else "Buffering · waiting for the server…")
        elif playing:
            text = f"Playing as it renders · {progress}"
        elif self._holds():
            text = f"Paused · {progress}"
        else:
            text = f"Rendering · {progress}"
        self.stateLabel.setText(text)
        self.stateLabel.setAccessibleDescription(text)
        self.playButton.setText("Pause" if playing else "Play")
        self.playButton.setEnabled(self._holds())

    @Slot(float)
    def _position(self, seconds: float) -> None:
        if self._holds():
            self.waveform.set_position(seconds)

    @Slot(bool)
    def _buffering_changed(self, buffering: bool) -> None:
        if self._holds():
            self._buffering = buffering
            self._show_state()

    def _toggle(self) -> None:
        if self._holds():
            self._player.toggle()

    def _seek(self, seconds: float) -> None:
        if self._holds():
            self._player.seek(seconds)
