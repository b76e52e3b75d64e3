"""Screenshots of every view in real windows on Xvfb, at laptop and desktop sizes.

    python tools/screens_xvfb.py CHECKPOINT OUT_DIR [WxH ...]   (default 1024x640 1366x768 1920x1080)

Each size gets its own X server (no window manager, so the window is what the studio
asks for) and a launched ``omnivoice-desktop`` driven over the journey driver's socket;
``import -window root`` captures the whole screen, so anything off-screen is missing
from the picture, as it is for a user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "journeys"))

from studio_process import Studio

VIEWS = ("clone", "design", "voices", "script", "settings")
DISPLAY = os.environ.get("SCREENS_DISPLAY", ":65")


def capture(path: Path) -> None:
    subprocess.run(["import", "-display", DISPLAY, "-window", "root", str(path)], check=True)


def wheel(x: int, y: int, down: int) -> None:
    """Real wheel notches (X buttons 4 up, 5 down) with the pointer at x, y."""
    env = {**os.environ, "DISPLAY": DISPLAY}
    subprocess.run(["xdotool", "mousemove", str(x), str(y)], check=True, env=env)
    button = "5" if down > 0 else "4"
    subprocess.run(["xdotool", "click", "--repeat", str(abs(down)), "--delay", "30", button],
                   check=True, env=env)


def shoot(checkpoint: Path, out: Path, size: str) -> None:
    server = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    home = Path(tempfile.mkdtemp(prefix=f"screens-{size}-"))
    try:
        time.sleep(1.0)
        studio = Studio(home, checkpoint, display=DISPLAY)
        try:
            studio.connect()
            studio.wait_model_loaded()
            for row, view in enumerate(VIEWS):
                studio.click_row("sidebar", row)
                time.sleep(0.6)
                capture(out / f"{size}-{view}.png")
            for row, form in ((0, "cloneForm"), (1, "designForm")):
                studio.click_row("sidebar", row)
                studio.click(f"{form}/advancedSection/sectionToggle")
                studio.click(f"{form}/generateButton")  # no text: the inline message shows
                time.sleep(0.6)
                capture(out / f"{size}-{VIEWS[row]}-advanced.png")
                # The wheel over the page (at its left margin) scrolls it to the end.
                x, y, _w, h = studio.request("rect", target=f"{form}/formScroll")["rect"]
                wheel(x + 8, y + h // 2, down=15)
                time.sleep(0.6)
                capture(out / f"{size}-{VIEWS[row]}-advanced-end.png")
                studio.click(f"{form}/advancedSection/sectionToggle")
            studio.close()
        finally:
            studio.stop()
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(home, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2].strip())
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    checkpoint, out = Path(argv[0]), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for size in argv[2:] or ["1024x640", "1366x768", "1920x1080"]:
        shoot(checkpoint, out, size)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
