"""A clip that comes as bytes (serve's ref_audio) is cleaned into the very file the same
clip on disk is cleaned into (both are named by the content's digest), so the studio, the
CLI, MCP and serve reuse each other's cleaning; the bytes are decoded only when no
cleaning is found, by the caller's own (bounded) decoder."""

from __future__ import annotations

import numpy as np

from studio.judges.cleanup import LOUDNESS, TRIM, CleanupReport
from studio.service.cleanup import cleaned_bytes, cleaned_clip
from studio.sound.files import read_audio, write_audio_atomic


class Halver:
    """Stands in for the real cleaner (tested in tests/judges): halves the clip."""

    def __init__(self):
        self.runs = 0

    def clean(self, audio, rate, steps, progress=None):
        self.runs += 1
        mono = audio.mean(axis=0) if audio.ndim == 2 else audio
        return mono * 0.5, CleanupReport(tuple(steps), rate, gain_db=-6.02)


def test_bytes_and_a_file_of_the_same_clip_meet_one_cleaned_file(tmp_path):
    t = np.arange(24000) / 24000
    source = tmp_path / "voice.wav"
    write_audio_atomic(source, (0.3 * np.sin(2 * np.pi * 150 * t)).astype(np.float32), 24000)
    data, folder, halver, decoded = source.read_bytes(), tmp_path / "cleaned", Halver(), []

    def decode():
        decoded.append(True)
        return read_audio(source)

    sent = cleaned_bytes(data, decode, (LOUDNESS,), halver, folder)
    assert not sent.reused and sent.source is None and decoded == [True]
    assert sent.path.parent == folder and sent.report.gain_db == -6.02
    assert np.allclose(read_audio(sent.path)[0], 0.5 * read_audio(source)[0], atol=1e-4)

    again = cleaned_bytes(data, decode, (LOUDNESS,), halver, folder)
    on_disk = cleaned_clip(source, (LOUDNESS,), halver, folder)
    assert again.reused and on_disk.reused and on_disk.path == again.path == sent.path
    assert decoded == [True] and halver.runs == 1  # found, neither decoded nor cleaned again

    other = cleaned_bytes(data, decode, (TRIM, LOUDNESS), halver, folder)
    assert other.path != sent.path and halver.runs == 2  # other steps, another file
