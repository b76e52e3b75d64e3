"""Screenshots of judged takes in real windows on Xvfb: the takes list with the score and
badges, a take's Judgements section, and A/B with the judgements side by side (issue 28).

    python tools/screens_judged.py CHECKPOINT OUT_DIR [WxH ...]   (default 1366x768 1024x640)

The take library is filled before the launch with one batch of four judged takes (espeak-ng
speech when it is installed, so the waveforms look like speech) and an older unjudged take;
the judgements are made by the judges' own scoring from fixed measurements (what the
recogniser heard, the voice similarity, the DNSMOS score), as tests/views/take_fixtures.py
does. ``import -window root`` captures the whole screen, as a user sees it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "journeys"), str(ROOT / "tests" / "views")]

from studio_process import Studio  # noqa: E402

DISPLAY = os.environ.get("SCREENS_DISPLAY", ":62")
ASKED = "The quick brown fox jumps over the lazy dog, then naps in the sun."
# (what the recogniser heard, voice similarity, DNSMOS overall) per take, in render order
TAKES = (
    ("the quick fox jumps over the lazy dog then naps in the sun", 0.88, 3.6),
    (None, 0.94, 3.9),
    ("the quick brown box jumps over a very lazy dog then naps in the sun", 0.61, 2.3),
    (None, 0.81, 3.0),
)


def speech(text: str, rate: int = 24000):
    """espeak-ng saying ``text`` at ``rate`` (None when espeak-ng is missing)."""
    import numpy as np
    import soundfile as sf

    from studio.engine.audio import resample

    if shutil.which("espeak-ng") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        wav = Path(folder) / "say.wav"
        subprocess.run(["espeak-ng", "-v", "en+f3", "-w", str(wav), text], check=True)
        audio, source = sf.read(wav, dtype="float32")
    return np.asarray(resample(audio, source, rate), dtype=np.float32)


def fill(data: Path) -> None:
    from take_fixtures import RATE, add, judgement

    from studio.library.takes import TakeLibrary

    audio = speech(ASKED, RATE)
    with TakeLibrary(data) as library:
        add(library, "An older take, rendered before judging was on.", seed=3, batch="old",
            audio=speech("An older take, rendered before judging was on.", RATE))
        for seed, (heard, similarity, quality) in enumerate(TAKES, start=1):
            take = add(library, ASKED, seed=seed, batch="four", audio=audio)
            library.set_judgements(take.id, judgement(ASKED, heard, similarity, quality,
                                                      audio=audio))


def capture(path: Path) -> None:
    subprocess.run(["import", "-display", DISPLAY, "-window", "root", str(path)], check=True)


def shoot(checkpoint: Path, out: Path, size: str) -> None:
    server = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = Path(tempfile.mkdtemp(prefix=f"judged-{size}-"))
    try:
        time.sleep(1.0)
        fill(home / "data")
        studio = Studio(home, checkpoint, display=DISPLAY)
        try:
            studio.connect()
            studio.wait_model_loaded()
            studio.click_row("sidebar", 1)  # Design
            time.sleep(0.6)
            capture(out / f"{size}-takes.png")
            studio.click("takeDetail/judgementsSection/sectionToggle")
            time.sleep(0.4)
            capture(out / f"{size}-judgements-best.png")
            studio.click_row("takesList", 3)  # the poor take: words dropped and changed
            time.sleep(0.4)
            capture(out / f"{size}-judgements-poor.png")
            studio.click("takeDetail/judgementsSection/sectionToggle")
            studio.click_row("takesList", 0)
            studio.click_row("takesList", 3, modifiers=["ctrl"])
            studio.click("takeDetail/compareButton")
            studio.wait_until(lambda: studio.request("exists", target="abDialog")["visible"],
                              10, "the A/B window")
            time.sleep(0.6)
            capture(out / f"{size}-ab.png")
            studio.close()
        finally:
            studio.stop()
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[3].strip())
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    checkpoint, out = Path(argv[0]), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for size in argv[2:] or ["1366x768", "1024x640"]:
        shoot(checkpoint, out, size)
        print(f"{size}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
