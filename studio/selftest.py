"""`omnivoice-desktop selftest`: does this install work, before any download?

Each check returns one line: ``ok``, ``FAIL`` or ``note`` with a reason a user
can act on. The core path (torch, torchaudio, the codec and decode loop on a
tiny random model, the data folder) decides the exit status; Qt, audio output,
the library database and acceleration are reported but do not fail the run,
since the headless commands work without them.

No Qt is imported here: the Qt checks run in child processes (this same program
with a hidden ``--probe``), so the caller's process state stays untouched and the
checks also work from inside the studio's Help menu. One child renders on the tiny
model through the studio's own worker thread, with torch first imported there, as
in the launched studio: a render that crashes the studio fails the self-test too.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger("studio.selftest")

OK, FAIL, NOTE = "ok", "FAIL", "note"

REINSTALL = "reinstall with the README's install command"
TORCHAUDIO_MISSING = (
    "torchaudio is not installed, so the audio codec cannot run; install the torchaudio release "
    "that matches torch (pip install 'torchaudio=={torch}')."
)
TORCHAUDIO_MISMATCH = (
    "torchaudio {torchaudio} was built for another torch than the installed {torch}; install "
    "matching releases (pip install 'torch=={torch}' 'torchaudio=={torch}')."
)
CORE_BLOCKED = "skipped: {what} is not usable (see above)."
QT_PROBE_TIMEOUT_S = 60
STUDIO_PROBE_TIMEOUT_S = 180
STUDIO_CRASHED = ("the studio's worker thread {how} while rendering on the tiny model, so the studio "
                  "would crash on Generate; the log file has the details.")


@dataclass
class Check:
    name: str
    status: str  # OK, FAIL or NOTE
    detail: str
    core: bool  # a FAIL here makes the exit status non-zero

    @property
    def failed(self) -> bool:
        return self.status == FAIL


def _base_version(version: str) -> str:
    """'2.9.1+cu128' -> '2.9.1': the local build tag does not change the release."""
    return version.split("+", 1)[0]


def check_torch() -> Check:
    try:
        import torch
    except Exception as exc:  # ImportError, or OSError from a broken native library
        return Check("torch", FAIL, f"torch cannot be imported ({_short(exc)}); {REINSTALL}.", True)
    threads = torch.get_num_threads()
    return Check("torch", OK, f"torch {torch.__version__}, {threads} CPU threads", True)


def check_torchaudio() -> Check:
    try:
        import torch
    except Exception:
        return Check("torchaudio", FAIL, CORE_BLOCKED.format(what="torch"), True)
    try:
        import torchaudio
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] == "torchaudio":
            detail = TORCHAUDIO_MISSING.format(torch=_base_version(torch.__version__))
            return Check("torchaudio", FAIL, detail, True)
        log.info("importing torchaudio failed: %r", exc)  # it needs something torch lacks
        detail = TORCHAUDIO_MISMATCH.format(torchaudio="(installed)",
                                            torch=_base_version(torch.__version__))
        return Check("torchaudio", FAIL, detail, True)
    except Exception as exc:  # a wheel built for another torch fails to load its library
        log.info("importing torchaudio failed: %r", exc)
        detail = TORCHAUDIO_MISMATCH.format(torchaudio="(installed)",
                                            torch=_base_version(torch.__version__))
        return Check("torchaudio", FAIL, detail, True)
    ours, theirs = _base_version(torchaudio.__version__), _base_version(torch.__version__)
    # torchaudio X.Y.* is built against torch X.Y.*: another X.Y cannot load its library.
    if ours.split(".")[:2] != theirs.split(".")[:2]:
        detail = TORCHAUDIO_MISMATCH.format(torchaudio=ours, torch=theirs)
        return Check("torchaudio", FAIL, detail, True)
    return Check("torchaudio", OK, f"torchaudio {torchaudio.__version__} matches torch", True)


def check_transformers() -> Check:
    try:
        import transformers
    except Exception as exc:
        detail = f"transformers cannot be imported ({_short(exc)}); {REINSTALL}."
        return Check("transformers", FAIL, detail, True)
    try:
        from transformers import HiggsAudioV2TokenizerModel  # noqa: F401  the codec class
    except Exception as exc:
        detail = (f"transformers {transformers.__version__} has no HiggsAudioV2 codec "
                  f"({_short(exc)}); upgrade it (pip install -U 'transformers>=5.3').")
        return Check("transformers", FAIL, detail, True)
    return Check("transformers", OK, f"transformers {transformers.__version__}", True)


def check_engine(checkpoint: Path) -> Check:
    """Build a tiny random checkpoint at ``checkpoint``, load it, render a few steps on the CPU."""
    import numpy as np

    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
    from studio.engine.random_checkpoint import build_random_checkpoint

    started = time.perf_counter()
    build_random_checkpoint(checkpoint, "tiny")
    engine = Engine.load(checkpoint, device="cpu", precision="fp32")
    options = GenerationOptions(decode=DecodeOptions(num_step=4), postprocess=False)
    [result] = engine.synthesize([SynthesisItem(text="Self test.", seed=1)], options)
    seconds = time.perf_counter() - started
    audio = result.audio
    if audio.size == 0 or not np.isfinite(audio).all():
        return Check("codec + decode", FAIL,
                     "the decode loop produced no usable audio on a tiny model; "
                     f"{REINSTALL} and report the log file if it persists.", True)
    length = audio.shape[-1] / result.sample_rate
    return Check("codec + decode", OK,
                 f"tiny random model rendered {length:.2f} s of audio in {seconds:.1f} s", True)


def check_data_folder() -> Check:
    from studio.paths import data_dir

    folder = data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".selftest-") as handle:
            handle.write(b"ok")
            handle.flush()
    except OSError as exc:
        detail = (f"the data folder {folder} is not writable ({exc.strerror or _short(exc)}); "
                  "fix its permissions or set OMNIVOICE_DESKTOP_DATA_DIR to a writable folder.")
        return Check("data folder", FAIL, detail, True)
    return Check("data folder", OK, f"{folder} is writable", True)


def check_library() -> Check:
    from studio.library.db import Database

    try:
        with Database.open_in() as db:
            version = db.schema_version
    except Exception as exc:  # a UserError sentence, or sqlite's own words
        return Check("voice library", FAIL, f"the library database does not open: {exc}", False)
    return Check("voice library", OK, f"library database opens (schema v{version})", False)


def check_audio() -> Check:
    from studio.audio.backend import audio_status

    status = audio_status()
    if not status.available:
        return Check("audio output", NOTE, f"{status.reason} Rendering and saving still work.",
                     False)
    names = dict(status.output_devices)
    default = names.get(status.default_output, "none chosen")
    count = len(status.output_devices)
    noun = "device" if count == 1 else "devices"
    return Check("audio output", OK, f"{count} output {noun}; default: {default}", False)


def check_accel() -> Check:
    availability = _accel_probe()()
    # "auto" is always offered (at worst it is the standard path): not an accelerator.
    ready = [mode for mode, (ok, _) in availability.items() if ok and mode not in ("off", "auto")]
    reasons = sorted({reason for ok, reason in availability.values() if not ok and reason})
    parts = [f"available: {', '.join(ready)}" if ready else "standard path only"]
    parts.extend(reasons)
    return Check("acceleration", OK if ready else NOTE, "; ".join(parts), False)


def _accel_probe() -> Callable[[], dict]:
    """The acceleration probe: the accel package's, where it has one, else the older module."""
    try:
        module = importlib.import_module("studio.engine.accel")
        if callable(getattr(module, "probe", None)):
            return module.probe
    except ImportError:
        pass
    from studio.engine.accel_probe import probe

    return probe


# ---------------------------------------------------------------------- Qt, in a child process


def self_command(*args: str) -> list[str]:
    """The command line that runs this program again (frozen or from Python)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "studio", *args]


def qt_probe() -> dict:
    """Run in the child: an offscreen QApplication, a widget, a grab. Returns facts."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    import PySide6
    from PySide6.QtCore import qVersion
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication(["omnivoice-desktop-selftest"])
    label = QLabel("OmniVoice self-test")
    label.resize(200, 40)
    image = label.grab().toImage()
    result = {"pyside": PySide6.__version__, "qt": qVersion(),
              "grab": [image.width(), image.height()], "ok": not image.isNull()}
    label.deleteLater()
    app.processEvents()
    return result


def check_qt(run: Callable[..., subprocess.CompletedProcess] = subprocess.run) -> Check:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        done = run(self_command("selftest", "--probe", "qt"), capture_output=True, text=True,
                   env=env, timeout=QT_PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Check("Qt", FAIL, f"an offscreen Qt window did not open within "
                     f"{QT_PROBE_TIMEOUT_S} s; the studio may not start here.", False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        log.info("the Qt probe failed (status %s): %s", done.returncode, done.stderr[-2000:])
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Check("Qt", FAIL, f"Qt cannot open a window offscreen ({last[:200]}); the studio "
                     "will not start, but the headless commands work.", False)
    facts = json.loads(lines[-1])
    if not facts.get("ok"):
        return Check("Qt", FAIL, "Qt opened but could not draw a widget; the studio may show "
                     "blank windows.", False)
    return Check("Qt", OK, f"PySide6 {facts['pyside']} (Qt {facts['qt']}), offscreen widget "
                 "drawn", False)


def studio_probe(checkpoint: str) -> dict:
    """Run in the child: render on ``checkpoint`` through the studio's WorkerController and
    its worker thread, torch first imported there by the model load. Returns facts."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from studio.engine.options import DecodeOptions, GenerationOptions
    from studio.service.requests import LoadRequest, RenderRequest
    from studio.worker.controller import WorkerController
    from studio.worker.worker import InferenceWorker

    app = QApplication.instance() or QApplication(["omnivoice-desktop-selftest"])
    facts: dict = {"torch_before": "torch" in sys.modules}
    with tempfile.TemporaryDirectory(prefix="omnivoice-selftest-data-") as data:
        # Its own data folder: the self-test's take never joins the user's library.
        controller = WorkerController(InferenceWorker(data_dir=Path(data)))
        worker, loop = controller.worker, QEventLoop()
        worker.model_loaded.connect(lambda _info: loop.quit())
        worker.model_failed.connect(lambda reason: (facts.update(error=reason), loop.quit()))
        QTimer.singleShot(STUDIO_PROBE_TIMEOUT_S * 1000, loop.quit)
        controller.load_model(LoadRequest(checkpoint, device="cpu", precision="fp32",
                                          disk_cache=False))
        loop.exec()
        if "error" not in facts:
            options = GenerationOptions(decode=DecodeOptions(num_step=4), postprocess=False)
            job = controller.render(RenderRequest(text="Self test of the studio.",
                                                  instruct="female", mode="design", seeds=(1,),
                                                  options=options))
            job.done.connect(lambda result: (facts.update(
                audio_seconds=result.audio_seconds, seconds=result.seconds), loop.quit()))
            job.failed.connect(lambda reason: (facts.update(error=reason), loop.quit()))
            loop.exec()
        controller.shutdown()
    facts["ok"] = "audio_seconds" in facts and facts["audio_seconds"] > 0
    del app
    return facts


def check_studio_render(checkpoint: Path,
                        run: Callable[..., subprocess.CompletedProcess] = subprocess.run) -> Check:
    name = "studio render"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    command = self_command("selftest", "--probe", "studio", "--probe-model", str(checkpoint))
    try:
        done = run(command, capture_output=True, text=True, env=env,
                   timeout=STUDIO_PROBE_TIMEOUT_S + 30)
    except subprocess.TimeoutExpired:
        return Check(name, FAIL, STUDIO_CRASHED.format(how=f"did not finish within "
                                                           f"{STUDIO_PROBE_TIMEOUT_S} s"), True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode < 0:
        log.error("the studio render probe died (status %s): %s", done.returncode,
                  done.stderr[-4000:])
        how = f"was killed by signal {-done.returncode}"
        try:
            import signal

            how = f"was killed by {signal.Signals(-done.returncode).name}"
        except ValueError:
            pass
        return Check(name, FAIL, STUDIO_CRASHED.format(how=how), True)
    if done.returncode != 0 or not lines:
        log.info("the studio render probe failed (status %s): %s", done.returncode,
                 done.stderr[-2000:])
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Check(name, FAIL, f"the studio could not render through its worker thread "
                     f"({last[:200]}).", True)
    facts = json.loads(lines[-1])
    if not facts.get("ok"):
        return Check(name, FAIL, f"the studio's worker thread did not render on the tiny model: "
                     f"{facts.get('error', 'no audio')}", True)
    return Check(name, OK, f"rendered {facts['audio_seconds']:.2f} s through the studio's worker "
                 f"thread in {facts['seconds']:.1f} s", True)


# ---------------------------------------------------------------------- the run


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


def _guarded(name: str, core: bool, check: Callable[[], Check]) -> Check:
    """A check that raises is a FAIL with the exception named; details go to the log."""
    try:
        return check()
    except Exception as exc:
        log.exception("self-test check %s raised", name)
        return Check(name, FAIL, f"unexpected error ({_short(exc)}); details are in the log file.",
                     core)


def run_checks(include_qt: bool = True) -> list[Check]:
    checks = [
        _guarded("torch", True, check_torch),
        _guarded("torchaudio", True, check_torchaudio),
        _guarded("transformers", True, check_transformers),
    ]
    with tempfile.TemporaryDirectory(prefix="omnivoice-selftest-") as work:
        checkpoint = Path(work) / "tiny"
        blocked = next((c.name for c in checks if c.failed), None)
        if blocked:
            checks.append(Check("codec + decode", FAIL, CORE_BLOCKED.format(what=blocked), True))
        else:
            checks.append(_guarded("codec + decode", True, lambda: check_engine(checkpoint)))
        checks.append(_guarded("data folder", True, check_data_folder))
        checks.append(_guarded("voice library", False, check_library))
        checks.append(_guarded("audio output", False, check_audio))
        if include_qt:
            qt = _guarded("Qt", False, check_qt)
            checks.append(qt)
            engine = next(c for c in checks if c.name == "codec + decode")
            if qt.failed or engine.failed:
                what = "Qt" if qt.failed else "codec + decode"
                # No window at all is a Qt problem (not core); the headless path still works.
                checks.append(Check("studio render", FAIL, CORE_BLOCKED.format(what=what),
                                    engine.failed))
            else:
                checks.append(_guarded("studio render", True,
                                       lambda: check_studio_render(checkpoint)))
    checks.append(_guarded("acceleration", False, check_accel))
    return checks


def passed(checks: list[Check]) -> bool:
    return not any(c.failed and c.core for c in checks)


def report(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"{c.status:<4}  {c.name:<{width}}  {c.detail}" for c in checks]
    if passed(checks):
        lines.append("Self-test passed: the core path works.")
    else:
        lines.append("Self-test FAILED: fix the FAIL lines marked above, then run it again.")
    return "\n".join(lines)


def as_json(checks: list[Check]) -> dict:
    return {"passed": passed(checks), "checks": [asdict(c) for c in checks]}


def main(json_output: bool = False, probe: str | None = None,
         probe_model: str | None = None) -> int:
    """The ``selftest`` subcommand: print the report (or JSON); 0 when the core path works."""
    if probe == "qt":
        print(json.dumps(qt_probe()))
        return 0
    if probe == "studio":
        print(json.dumps(studio_probe(probe_model)), flush=True)
        return 0
    checks = run_checks()
    if json_output:
        print(json.dumps(as_json(checks), ensure_ascii=False))
    else:
        print(report(checks))
    return 0 if passed(checks) else 1
