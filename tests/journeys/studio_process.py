"""The launched studio as a journey test sees it: a separate process started the way a
user starts it, driven over the driver's socket (driver.py), with nothing of the
studio imported into this process.

When the process dies, every call fails with the signal or exit status, the last
lines of the studio's log file and of its stderr: the evidence a crash leaves.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.audio_output import need_output

SCREENS = Path(__file__).resolve().parents[2] / "out" / "journeys"  # screenshots kept

DRIVER = Path(__file__).with_name("driver.py")
LOG_NAME = "omnivoice-desktop.log"


def entry_point() -> list[str]:
    """The installed console script (``omnivoice-desktop``) beside this interpreter."""
    script = Path(sys.executable).with_name("omnivoice-desktop")
    if not script.is_file():
        found = shutil.which("omnivoice-desktop")
        if found is None:
            raise AssertionError("the omnivoice-desktop console script is not installed; "
                                 "run pip install -e . first")
        script = Path(found)
    return [str(script)]


def python_module() -> list[str]:
    return [sys.executable, "-m", "studio"]


class StudioDied(AssertionError):
    pass


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"({path} does not exist)"
    return "\n".join(text.splitlines()[-lines:])


def describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


class Studio:
    """One launched ``omnivoice-desktop``: start it, act as the user, read what it shows."""

    def __init__(self, home: Path, model: Path | str | None, *, command: list[str] | None = None,
                 env: dict[str, str] | None = None, display: str | None = None,
                 extra_args: tuple[str, ...] = ()):
        self.home = Path(home)
        self.data = self.home / "data"
        self.config = self.home / "config"
        launch = len(list(self.home.glob("studio-output-*.txt"))) + 1  # restarts keep the earlier
        self.socket_path = str(self.home / f"driver-{launch}.sock")
        self.stderr_path = self.home / f"studio-output-{launch}.txt"
        self.screens = self.home / "screens"
        self.screens.mkdir(parents=True, exist_ok=True)
        args = list(command or entry_point())
        if model is not None:
            args += ["--model", str(model)]
        args += list(extra_args)
        environment = dict(os.environ)
        # The studio's own state lives in this journey's folder: data folder and QSettings.
        environment.update({
            "OMNIVOICE_DESKTOP_DATA_DIR": str(self.data),
            "XDG_CONFIG_HOME": str(self.config),
            "OMNIVOICE_DESKTOP_DRIVER": str(DRIVER),
            "OMNIVOICE_DESKTOP_DRIVER_SOCKET": self.socket_path,
            "HF_HUB_OFFLINE": "1",
            "HF_HOME": str(self.home / "hf"),
        })
        environment.pop("PYTHONFAULTHANDLER", None)  # the studio must enable it itself
        if display is not None:
            environment["DISPLAY"] = display
            environment["QT_QPA_PLATFORM"] = "xcb"
        else:
            environment.setdefault("QT_QPA_PLATFORM", "offscreen")
        environment.update(env or {})
        self.args = args
        self.started = time.monotonic()
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(args, env=environment, stdout=self._stderr,
                                        stderr=subprocess.STDOUT, cwd=self.home)
        self._socket: socket.socket | None = None
        self._buffer = b""

    # ---------------------------------------------------------------- evidence
    @property
    def log_path(self) -> Path:
        return self.data / LOG_NAME

    def evidence(self) -> str:
        return (f"the studio {describe_exit(self.process.poll())}\n"
                f"--- last lines of {self.log_path}:\n{_tail(self.log_path)}\n"
                f"--- last lines of its output:\n{_tail(self.stderr_path)}")

    def _died(self, doing: str) -> StudioDied:
        return StudioDied(f"while {doing}: {self.evidence()}")

    # ---------------------------------------------------------------- transport
    def connect(self, timeout: float = 60.0) -> dict:
        """Wait until the window is up and the driver answers; returns the ping."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise self._died("starting")
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(self.socket_path)
            except OSError:
                sock.close()
                time.sleep(0.05)
                continue
            self._socket = sock
            return self.request("ping")
        raise AssertionError(f"the studio's window did not come up in {timeout:.0f} s: "
                             f"{self.evidence()}")

    def request(self, op: str, **args) -> dict:
        if self._socket is None:
            raise AssertionError("connect() first")
        doing = f"asking {op} {args}"
        if self.process.poll() is not None:
            raise self._died(doing)
        try:
            self._socket.sendall(json.dumps({"op": op, "args": args}).encode() + b"\n")
            while b"\n" not in self._buffer:
                self._socket.settimeout(120)
                chunk = self._socket.recv(65536)
                if not chunk:
                    raise ConnectionError("closed")
                self._buffer += chunk
        except OSError as exc:
            time.sleep(0.5)  # let a dying process finish dying, to report its signal
            if self.process.poll() is not None:
                raise self._died(doing) from None
            raise AssertionError(f"the driver stopped answering ({exc}) while {doing}") from exc
        line, self._buffer = self._buffer.split(b"\n", 1)
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise AssertionError(f"driver refused {op} {args}: {answer['error']}")
        return answer

    # ---------------------------------------------------------------- the user's actions
    def get(self, target: str) -> dict:
        return self.request("get", target=target)

    def text(self, target: str) -> str:
        return self.get(target).get("text", "")

    def click(self, target: str, **kw) -> None:
        self.request("click", target=target, **kw)

    def click_row(self, target: str, row: int, **kw) -> None:
        self.request("click_row", target=target, row=row, **kw)

    def type(self, target: str, text: str, clear: bool = True) -> None:
        self.request("type", target=target, text=text, clear=clear)

    def key(self, target: str, key: str, modifiers=()) -> None:
        self.request("key", target=target, key=key, modifiers=list(modifiers))

    def choose(self, target: str, text: str) -> None:
        self.request("choose", target=target, text=text)

    def menu(self, path: str) -> str:
        """Choose a menu bar item ("Edit/Undo") with the mouse; returns its full words."""
        return self.request("menu", path=path)["text"]

    def screenshot(self, name: str, target: str | None = None) -> Path:
        path = self.screens / f"{name}.png"
        self.request("screenshot", path=str(path), **({"target": target} if target else {}))
        return path

    def status(self) -> str:
        return self.text("statusMessage")

    def wait_until(self, check, timeout: float = 60.0, what: str = "the condition",
                   interval: float = 0.1):
        """Poll ``check()`` until it returns something truthy; fail with what was last seen."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = check()
            if last:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} did not happen within {timeout:.0f} s; the status "
                                     f"bar says {self.status()!r}")
            time.sleep(interval)

    def wait_model_loaded(self, timeout: float = 120.0) -> str:
        """Wait until the status bar's model label says Ready; fail at once if it says failed."""
        def ready():
            label = self.get("modelState")
            if label["text"] in ("Failed", "Not downloaded"):
                raise AssertionError(f"the model did not load: {label['tooltip']}")
            return label["text"] if label["text"].startswith("Ready") else None
        return self.wait_until(ready, timeout, "the model load")

    # ---------------------------------------------------------------- ending
    def close(self, timeout: float = 30.0) -> int:
        """Close the window as a user does; returns the exit status."""
        try:
            self.request("close")
        except AssertionError:
            pass
        return self.wait_exit(timeout)

    def wait_exit(self, timeout: float) -> int:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the studio did not exit within {timeout:.0f} s of closing: "
                                 f"{self.evidence()}") from None
        finally:
            self._disconnect()
        return code

    def _disconnect(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def stop(self) -> None:
        """Make sure the process is gone (after a failed test)."""
        self._disconnect()
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._stderr.close()


# -------------------------------------------------------------------- steps journeys share
def pick_reference(studio: Studio, clip: Path, transcript: str) -> None:
    """In the Clone view: type the clip's path (Enter loads it) and its transcript."""
    studio.type("referencePanel/refPathEdit", str(clip))
    studio.key("referencePanel/refPathEdit", "Return")
    studio.wait_until(lambda: studio.get("referencePanel/transcribeButton")["enabled"], 30,
                      "the reference clip to load")
    studio.type("referencePanel/refTextEdit", transcript)


def take_count(studio: Studio) -> int:
    return studio.get("takesList")["count"]


def wait_takes(studio: Studio, count: int, timeout: float = 180.0) -> dict:
    """Wait until the takes list shows ``count`` takes and the render that made them has
    ended (judged takes are listed just before the job's end selects them and sets the
    status line); returns the list's state."""
    studio.wait_until(lambda: take_count(studio) >= count
                      and not studio.status().startswith("Rendering"), timeout,
                      f"{count} take(s) listed and the render ended")
    return studio.get("takesList")


def play_selected_take(studio: Studio, timeout: float = 60.0) -> dict:
    """Click Play on the selected take and wait until it has played to its end and the
    button says Play again. Returns the player's transport, with every state it went
    through (the null device plays faster than real time, so states are short). Where
    nothing can play, the test is skipped here with the reason (tests/audio_output.py)."""
    need_output()
    before = len(studio.request("player")["states"])
    studio.click("takeDetail/playTakeButton")

    def done():
        player = studio.request("player")
        states = player["states"][before:]
        finished = "playing" in states and states[-1] == "stopped"
        return player if finished and studio.text("takeDetail/playTakeButton") == "Play" else None

    player = studio.wait_until(done, timeout, "the take to play to its end")
    player["states"] = player["states"][before:]
    return player


LONG_TEXT = " ".join(
    f"This is sentence number {n} of a long read, rendered chunk by chunk, slowly and fully."
    for n in range(1, 13))


def design_generate(studio: Studio, text: str, *, gender: str = "Female", preset: str = "Draft",
                    takes: int | None = None) -> None:
    """In the Design view: pick the gender, type the text, the quality, N takes; Generate."""
    studio.click_row("sidebar", 1)
    studio.wait_until(lambda: studio.get("designView")["visible"], 10, "the Design view")
    studio.choose("designAttributes/genderCombo", gender)
    studio.type("designForm/textEdit", text)
    studio.click(f"designForm/preset{preset}")
    if takes is not None:
        if not studio.get("designForm/takesSpin")["visible"]:
            studio.click("designForm/advancedSection/sectionToggle")  # unfold Advanced
        studio.type("designForm/takesSpin", str(takes))
        studio.key("designForm/takesSpin", "Tab")
    studio.click("designForm/generateButton")


def wait_rendering(studio: Studio, form: str = "designForm", timeout: float = 60) -> None:
    """Wait until the progress bar shows the first steps of a render."""
    studio.wait_until(lambda: studio.get(f"{form}/progressBar")["value"] > 0, timeout,
                      "the render to start")
