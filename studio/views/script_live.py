"""Hearing a script while it renders: the lines of a lines job play in script order,
each followed by its pause, as their batches end.

Lines render batched by voice, so they do not end in script order: a line that is ready
waits until every line before it has played, and where the next line's batch has not
ended yet the playback waits on silence. The stream is one clip under the
script's player key, so the Script view's playhead (its spans) follows it as it follows
the mix; its loudness is set once, from the first line, to the mix's target.
"""

from __future__ import annotations

import numpy as np

from studio.scripts.render import DEFAULT_LUFS, PEAK_LIMIT


class ScriptListener:
    """One lines job's playback; the Script view owns it and feeds it finished lines."""

    def __init__(self, player):
        self._player = player
        self._key: object = None  # the player key while this job's lines may still play
        self._order: list[int] = []
        self._pauses: dict[int, float] = {}
        self._ready: dict[int, np.ndarray | None] = {}
        self._exists = lambda _line: True
        self._next = 0
        self._rate = 0
        self._frames = 0
        self.spans: list[tuple[int, float, float]] = []  # (line id, start, end) in seconds

    def start(self, key: object, order, pauses, exists=None) -> None:
        """A lines job began: its line ids in script order, each with its pause after;
        ``exists(line id)`` says whether a line is still in the script (a deleted one is
        not waited for)."""
        self._key, self._order, self._pauses = key, list(order), dict(pauses)
        self._exists = exists or (lambda _line: True)
        self._ready, self._next, self._rate, self._frames = {}, 0, 0, 0
        self.spans = []

    def holds(self) -> bool:
        """The player is playing (or paused in) this job's stream."""
        return self._rate > 0 and self._player.key() == self._key and self._player.streaming()

    def line_done(self, line_id: int, audio: np.ndarray | None, rate: int) -> None:
        """``line_id`` rendered (``audio`` None: it was deleted meanwhile, so skip it)."""
        if self._key is None or line_id not in self._pauses:
            return
        self._ready[line_id] = None if audio is None else np.asarray(audio, np.float32).ravel()
        while self._next < len(self._order) and (self._order[self._next] in self._ready
                                                 or not self._exists(self._order[self._next])):
            line = self._order[self._next]
            self._next += 1
            clip = self._ready.pop(line, None)
            if clip is not None and clip.size and not self._feed(line, clip, rate):
                self._key = None  # the user played something else: this job stays quiet
                return
        if self._next == len(self._order):
            self.finish()

    def finish(self) -> None:
        """The job ended: what arrived plays to its end."""
        if self.holds():
            self._player.end_stream()
        self._key = None

    def abort(self) -> None:
        """Cancelled: the playback of the job stops now."""
        if self.holds():
            self._player.stop()
            self._player.end_stream()
        self._key = None

    def _feed(self, line: int, clip: np.ndarray, rate: int) -> bool:
        first = self._rate == 0
        if first:
            self._rate = rate
            self._player.begin_stream(rate, key=self._key, gain=_gain(clip, rate))
        elif not self.holds() or rate != self._rate:
            return False
        pause = np.zeros(round(self._pauses[line] * rate), np.float32)
        start = self._frames
        self._frames += clip.size + pause.size
        self.spans.append((line, start / rate, (start + clip.size) / rate))
        self._player.append(np.concatenate([clip, pause]))
        if first:
            self._player.play()
        return True


def _gain(clip: np.ndarray, rate: int, lufs: float = DEFAULT_LUFS) -> float:
    """The gain that brings ``clip`` to the mix's loudness target without clipping."""
    from studio.sound.loudness import loudness_lufs

    measured = loudness_lufs(clip, rate)
    gain = 1.0 if measured is None else 10 ** ((lufs - measured) / 20)
    peak = float(np.abs(clip).max())
    return min(gain, PEAK_LIMIT / peak) if peak > 0 else gain
