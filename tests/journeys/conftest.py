"""Fixtures for the journeys: the launched studio, a real X server, a reference clip.

Each journey starts ``omnivoice-desktop`` as a separate process with its own data
folder and settings; nothing of the studio is imported into it by this process.
Screenshots land in ``out/journeys/`` at the top of the checkout, to be looked at.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from studio_process import SCREENS, Studio


@pytest.fixture(scope="session")
def reference_clip(tmp_path_factory, speech) -> Path:
    import soundfile as sf

    path = tmp_path_factory.mktemp("clips") / "my voice.wav"
    sf.write(path, speech(3.0, seed=3), 24000)
    return path


def run_xvfb(screen: str):
    """A real X server (Debian's xvfb) with one screen of ``screen`` ("WxHxD"); yields
    its display name and stops it after."""
    binary = shutil.which("Xvfb")
    if binary is None:
        pytest.fail("Xvfb is not installed (apt-get install xvfb); the X11 journeys need it")
    read, write = os.pipe()
    server = subprocess.Popen([binary, "-displayfd", str(write), "-screen", "0", screen,
                               "-nolisten", "tcp"], pass_fds=(write,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        pytest.fail("Xvfb did not start")
    yield f":{number}"
    server.terminate()
    server.wait(10)


@pytest.fixture(scope="session")
def xvfb():
    """A real X server for the journeys that also run in real windows."""
    yield from run_xvfb("1600x1000x24")


@pytest.fixture
def laptop_display():
    """An X server with a 1366×768 screen, the laptop the first-contact issue was seen on."""
    yield from run_xvfb("1366x768x24")


@pytest.fixture
def small_laptop_display():
    """An X server with a 1024×640 screen, the smallest this project supports."""
    yield from run_xvfb("1024x640x24")


@pytest.fixture(params=["offscreen"])
def platform(request):
    """Where the window opens: offscreen, or on the X server (journeys 1-3 add "xcb")."""
    return request.param


@pytest.fixture
def launch(tmp_path, tiny_checkpoint, platform, request):
    """``launch(**kw)`` starts the studio on the tiny checkpoint (again, for a restart:
    the same data folder and settings) and returns a connected :class:`Studio`."""
    started: list[Studio] = []
    display = request.getfixturevalue("xvfb") if platform == "xcb" else None

    def start(model=tiny_checkpoint, **kw) -> Studio:
        studio = Studio(tmp_path, model, display=display, **kw)
        started.append(studio)
        studio.connect()
        return studio

    yield start
    for studio in started:
        studio.stop()


@pytest.fixture
def screenshot(request, platform):
    """``screenshot(studio, name)`` saves out/journeys/<test>-<name>-<platform>.png."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    test = request.node.originalname

    def save(studio: Studio, name: str, target: str | None = None) -> Path:
        shot = studio.screenshot(name, target)
        final = SCREENS / f"{test}-{name}-{platform}.png"
        shutil.copyfile(shot, final)
        assert final.stat().st_size > 10_000, f"{final} is nearly empty"
        return final

    return save
