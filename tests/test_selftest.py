"""`omnivoice-desktop selftest`: the whole report on this install (tiny model,
offscreen Qt), the JSON form, the exit status that only the core path decides,
and the sentence when torchaudio is missing or mismatched."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import types
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest

from studio import __version__, logfile, selftest
from studio.cli import main
from studio.selftest import FAIL, NOTE, OK, Check

ROOT = Path(__file__).resolve().parents[1]
CHECK_NAMES = ["torch", "torchaudio", "transformers", "codec + decode", "data folder",
               "voice library", "audio output", "Qt", "studio render", "acceleration"]

# Makes `import torchaudio` fail in a child process the way a missing package does.
BLOCK_TORCHAUDIO = """
import sys

class _Block:
    def find_spec(self, name, path=None, target=None):
        if name == "torchaudio" or name.startswith("torchaudio."):
            raise ModuleNotFoundError("No module named 'torchaudio'", name="torchaudio")
        return None

sys.meta_path.insert(0, _Block())
from studio.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_selftest_passes_here_with_one_line_per_check(capsys):
    assert main(["selftest"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(CHECK_NAMES) + 1
    for line, name in zip(out, CHECK_NAMES):
        status = line.split()[0]
        assert status in (OK, NOTE), line
        assert name in line
    assert out[-1] == "Self-test passed: the core path works."
    assert "offscreen widget drawn" in "\n".join(out)


def test_selftest_json_lists_every_check(capsys):
    assert main(["selftest", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["passed"] is True
    assert [c["name"] for c in summary["checks"]] == CHECK_NAMES
    core = {c["name"] for c in summary["checks"] if c["core"]}
    assert core == {"torch", "torchaudio", "transformers", "codec + decode", "data folder",
                    "studio render"}
    engine = next(c for c in summary["checks"] if c["name"] == "codec + decode")
    assert engine["status"] == OK and "tiny random model rendered" in engine["detail"]


def _run_blocked(*args: str, data: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(data), PYTHONPATH=str(ROOT),
               QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-c", BLOCK_TORCHAUDIO, *args], capture_output=True,
                          text=True, env=env, timeout=240, cwd=ROOT)


def test_missing_torchaudio_fails_with_a_clear_sentence(tmp_path):
    done = _run_blocked("selftest", data=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = {line.split()[1]: line for line in done.stdout.splitlines() if line[:4] in ("ok  ", "FAIL", "note")}
    assert lines["torchaudio"].startswith("FAIL")
    assert "torchaudio is not installed, so the audio codec cannot run" in lines["torchaudio"]
    assert "pip install 'torchaudio==" in lines["torchaudio"]
    assert lines["torch"].startswith("ok")
    assert "Self-test FAILED" in done.stdout


def test_missing_torchaudio_in_json_skips_the_decode_check(tmp_path):
    done = _run_blocked("selftest", "--json", data=tmp_path)
    assert done.returncode == 1
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["torchaudio"]["status"] == FAIL
    assert checks["codec + decode"]["status"] == FAIL
    assert checks["codec + decode"]["detail"] == "skipped: torchaudio is not usable (see above)."


def test_a_torchaudio_for_another_torch_is_named(monkeypatch):
    import torch

    monkeypatch.setitem(sys.modules, "torchaudio", types.SimpleNamespace(__version__="2.1.0"))
    check = selftest.check_torchaudio()
    assert check.status == FAIL and check.core
    base = torch.__version__.split("+")[0]
    assert check.detail == selftest.TORCHAUDIO_MISMATCH.format(torchaudio="2.1.0", torch=base)


def test_a_local_build_tag_is_not_a_mismatch(monkeypatch):
    import torch

    base = torch.__version__.split("+")[0]
    monkeypatch.setitem(sys.modules, "torchaudio", types.SimpleNamespace(__version__=f"{base}+cpu"))
    assert selftest.check_torchaudio().status == OK


def test_an_unwritable_data_folder_fails_the_core_path(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(blocker / "data"))
    check = selftest.check_data_folder()
    assert check.status == FAIL and check.core
    assert "is not writable" in check.detail and "OMNIVOICE_DESKTOP_DATA_DIR" in check.detail


def _fake_checks(monkeypatch, **results: Check) -> None:
    for name, check in results.items():
        monkeypatch.setattr(selftest, name, lambda *_args, c=check: c)


def test_only_core_failures_decide_the_exit_status(monkeypatch, capsys):
    _fake_checks(
        monkeypatch,
        check_engine=Check("codec + decode", OK, "fine", True),
        check_audio=Check("audio output", NOTE, "Playback is off.", False),
        check_library=Check("voice library", FAIL, "broken", False),
        check_qt=Check("Qt", FAIL, "no display", False),
    )
    assert selftest.main() == 0
    out = capsys.readouterr().out
    assert "FAIL  Qt" in out and "Self-test passed" in out
    assert "FAIL  studio render   skipped: Qt is not usable" in out  # no window: not core

    _fake_checks(monkeypatch, check_data_folder=Check("data folder", FAIL, "read-only", True))
    assert selftest.main() == 1
    assert "Self-test FAILED" in capsys.readouterr().out


def test_a_check_that_raises_is_a_fail_that_names_the_error(monkeypatch, caplog):
    def broken(_checkpoint):
        raise RuntimeError("boom")

    monkeypatch.setattr(selftest, "check_engine", broken)
    with caplog.at_level(logging.ERROR, logger="studio.selftest"):
        checks = selftest.run_checks(include_qt=False)
    engine = next(c for c in checks if c.name == "codec + decode")
    assert engine.status == FAIL and engine.core
    assert "RuntimeError: boom" in engine.detail
    assert not selftest.passed(checks)
    assert "boom" in caplog.text


def test_qt_probe_failure_is_reported_not_fatal():
    def fake_run(*_args, **_kwargs):
        return subprocess.CompletedProcess([], 1, stdout="", stderr="qt.qpa.plugin: could not load")

    check = selftest.check_qt(run=fake_run)
    assert check.status == FAIL and not check.core
    assert "could not load" in check.detail


def test_qt_probe_child_draws_offscreen():
    done = subprocess.run(selftest.self_command("selftest", "--probe", "qt"), capture_output=True,
                          text=True, timeout=120, cwd=ROOT,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["ok"] is True and facts["grab"] == [200, 40]


def test_studio_probe_child_renders_through_the_worker_thread_with_torch_first_there(tmp_path):
    from studio.engine.random_checkpoint import build_random_checkpoint

    checkpoint = build_random_checkpoint(tmp_path / "tiny", "tiny")
    data = tmp_path / "data"
    done = subprocess.run(selftest.self_command("selftest", "--probe", "studio", "--probe-model",
                                                str(checkpoint)),
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
                                   OMNIVOICE_DESKTOP_DATA_DIR=str(data)))
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["torch_before"] is False, "torch must be first imported on the worker thread"
    assert facts["ok"] is True and facts["audio_seconds"] > 0
    assert not (data / "takes").exists(), "the self-test's take stays out of the user's library"


@pytest.mark.parametrize(("returncode", "how"), [(-11, "was killed by SIGSEGV"),
                                                 (-6, "was killed by SIGABRT")])
def test_a_studio_render_that_crashes_fails_the_self_test(tmp_path, returncode, how):
    def crashed(*_args, **_kwargs):
        return subprocess.CompletedProcess([], returncode, stdout="", stderr="Fatal Python error")

    check = selftest.check_studio_render(tmp_path, run=crashed)
    assert check.status == FAIL and check.core
    assert check.detail == selftest.STUDIO_CRASHED.format(how=how)


def test_accel_line_names_why_each_path_is_off(monkeypatch):
    monkeypatch.setattr(selftest, "_accel_probe", lambda: lambda: {
        "off": (True, None),
        "auto": (True, None),  # always offered: the standard path at worst, not an accelerator
        "compile": (False, "compile: no CUDA GPU"),
        "flashinfer": (False, "flashinfer: package not installed"),
    })
    check = selftest.check_accel()
    assert check.status == NOTE and not check.core
    assert check.detail == ("standard path only; compile: no CUDA GPU; "
                            "flashinfer: package not installed")


def test_log_file_is_size_bounded():
    handler, path = logfile.attach()
    try:
        assert isinstance(handler, RotatingFileHandler)
        assert handler.maxBytes == logfile.MAX_BYTES and handler.backupCount == logfile.BACKUPS
        assert path is not None and path.name == "omnivoice-desktop.log"
        logging.getLogger("studio.test").warning("written to the log file")
        handler.flush()
        assert "written to the log file" in path.read_text(encoding="utf-8")
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"omnivoice-desktop {__version__}"


class _FailingFinder:
    """Makes `import torchaudio` raise ``error`` (the installed package stays untouched)."""

    def __init__(self, error: BaseException):
        self.error = error

    def find_spec(self, name, path=None, target=None):
        if name == "torchaudio":
            raise self.error
        return None


@pytest.mark.parametrize("error, sentence", [
    (ModuleNotFoundError("No module named 'torchaudio'", name="torchaudio"),
     "torchaudio is not installed"),
    (ModuleNotFoundError("No module named 'torch._torchaudio_ext'", name="torch._torchaudio_ext"),
     "was built for another torch"),
    (OSError("undefined symbol: _ZN3c104cuda"), "was built for another torch"),
])
def test_torchaudio_import_failures_are_told_apart(monkeypatch, error, sentence):
    monkeypatch.delitem(sys.modules, "torchaudio", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_FailingFinder(error), *sys.meta_path])
    check = selftest.check_torchaudio()
    assert check.status == FAIL and check.core
    assert sentence in check.detail
