"""A process killed with SIGKILL while it saves takes never damages the library:
on reopen every listed take plays, and partial files are gone."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from studio.library.takes import TakeLibrary

ROOT = Path(__file__).resolve().parents[2]
SAVER = """
import sys
import numpy as np
from studio.library.takes import TakeLibrary
from studio.library.take_record import TakeRun, TakeSettings

rng = np.random.default_rng(int(sys.argv[2]))
run = TakeRun("tiny", "cpu", "fp32", "off", "off", None, "0.1.0", 1.0, 0.5)
with TakeLibrary(sys.argv[1]) as lib:
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        settings = TakeSettings(f"Take {n}", None, None, "design", None, None, None, None,
                                True, None, None, n, {})
        seconds = rng.uniform(0.5, 4.0)  # long enough that kills often land in a write
        audio = (0.3 * rng.standard_normal(int(24000 * seconds))).astype(np.float32)
        lib.add(settings, run, audio, 24000, batch=str(n))
"""


def _kill_while_saving(folder: Path, seed: int, delay: float) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SAVER, str(folder), str(seed)],
                            stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(delay)
    finally:
        proc.kill()  # SIGKILL on POSIX: no handler, no flush, no cleanup
        proc.wait(timeout=30)
    assert proc.returncode == (-signal.SIGKILL if os.name == "posix" else 1)


def _leftovers(folder: Path, known: set[str]) -> list[str]:
    return [p.name for p in (folder / "takes").iterdir()
            if p.name.endswith(".tmp") or (p.suffix == ".flac" and p.stem not in known)]


def test_sigkill_during_saves_leaves_a_sound_library_and_no_partial_files(tmp_path):
    folder = tmp_path / "data"
    rng = random.Random(1234)
    saved, partial = [], []
    for round_ in range(6):
        _kill_while_saving(folder, round_, rng.uniform(0.3, 1.5))
        with TakeLibrary(folder, read_only=True) as reader:  # a reader sees the crash as it is
            takes = reader.list()
            assert reader.check_integrity() == []
        saved.append(len(takes))
        partial.append(len(_leftovers(folder, {t.id for t in takes})))
    assert saved[-1] > 0 and saved == sorted(saved)
    print("takes after each kill:", saved, "partial files each kill left:", partial)
    # Make sure a partial file exists for the sweep even if no kill happened to land in a write.
    (folder / "takes" / ".planted.flac.0123456789ab.tmp").write_bytes(b"partial")
    with TakeLibrary(folder) as lib:  # a writer opening: the restart
        takes = lib.list()
        assert len(takes) == saved[-1] and lib.check_integrity() == []
        for take in takes:
            audio, rate = lib.read_audio(take.id)
            assert rate == 24000 and audio.size == round(take.audio_seconds * rate) > 0
        assert _leftovers(folder, {t.id for t in takes}) == []
