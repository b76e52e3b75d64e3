"""Crash evidence: faulthandler into the log file, uncaught exceptions logged, and the
session marker that tells the next start the last one ended abnormally."""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading

from studio import logfile
from studio.crash import CLOSED, RUNNING, SessionMarker, UncaughtHooks, abnormal_end_message


def _child(code: str, env: dict, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=60, **kw)


# ------------------------------------------------------------------ faulthandler in the log


def test_a_fatal_signal_writes_every_threads_stack_into_the_log_file(tmp_path):
    done = _child("""
        import faulthandler, threading, time
        from studio import logfile
        logfile.attach()
        threading.Thread(target=time.sleep, args=(30,), name="sleeper", daemon=True).start()
        faulthandler._sigsegv()
    """, {"OMNIVOICE_DESKTOP_DATA_DIR": str(tmp_path)})
    assert done.returncode == -signal.SIGSEGV
    log = (tmp_path / "omnivoice-desktop.log").read_text()
    assert "Fatal Python error: Segmentation fault" in log
    assert "Current thread" in log
    assert "Thread 0x" in log, "the other threads' stacks are written too"


def test_faulthandler_follows_the_log_file_across_a_rollover(tmp_path):
    done = _child("""
        import faulthandler, logging
        from studio import logfile
        logfile.MAX_BYTES = 300
        logfile.attach()
        for n in range(20):
            logging.getLogger("test").warning("line %d of a log that rolls over", n)
        faulthandler._sigsegv()
    """, {"OMNIVOICE_DESKTOP_DATA_DIR": str(tmp_path)})
    assert done.returncode == -signal.SIGSEGV
    assert (tmp_path / "omnivoice-desktop.log.1").is_file(), "the log rolled over"
    assert "Fatal Python error" in (tmp_path / "omnivoice-desktop.log").read_text()


def test_closing_the_log_file_hands_faulthandler_back(tmp_path, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(tmp_path))
    before = faulthandler.is_enabled()
    handler, path = logfile.attach()
    try:
        assert faulthandler.is_enabled() and path == tmp_path / "omnivoice-desktop.log"
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert faulthandler.is_enabled() == before


def test_main_opens_the_log_file_before_anything_else(tmp_path):
    # Even a mistyped command line runs after faulthandler points at the log file.
    done = _child("""
        import faulthandler, sys
        from studio import cli
        real = cli.build_parser
        def crash_while_parsing():
            assert faulthandler.is_enabled()
            faulthandler._sigsegv()
        cli.build_parser = crash_while_parsing
        cli.main(["--version"])
    """, {"OMNIVOICE_DESKTOP_DATA_DIR": str(tmp_path)})
    assert done.returncode == -signal.SIGSEGV
    assert "crash_while_parsing" in (tmp_path / "omnivoice-desktop.log").read_text()


# ------------------------------------------------------------------ uncaught exceptions


def test_uncaught_exceptions_are_logged_from_any_thread(caplog):
    told = []
    hooks = UncaughtHooks(notify=lambda: told.append(1))
    try:
        def boom():
            raise RuntimeError("a bug in a thread")

        thread = threading.Thread(target=boom, name="helper")
        with caplog.at_level(logging.ERROR, logger="studio.crash"):
            thread.start()
            thread.join()
            try:
                raise ValueError("a bug in a slot")
            except ValueError:
                sys.excepthook(*sys.exc_info())
    finally:
        hooks.remove()
    logged = {r.getMessage(): type(r.exc_info[1]) for r in caplog.records}
    assert logged == {"uncaught exception in thread helper": RuntimeError,
                      "uncaught exception": ValueError}
    assert told == [1, 1]
    assert sys.excepthook != hooks._on_exception
    assert threading.excepthook != hooks._on_thread_exception


# ------------------------------------------------------------------ the session marker

HOLD = """
    import sys, time
    from pathlib import Path
    from studio.crash import SessionMarker
    marker = SessionMarker(Path(sys.argv[1]))
    print(marker.begin(), flush=True)
    sys.stdin.readline()  # hold the marker until told
    if sys.argv[2] == "clean":
        marker.end()
"""


def _holder(folder, how: str) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLD), str(folder), how],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() in ("True", "False")
    return child


def test_a_killed_session_is_reported_once(tmp_path):
    child = _holder(tmp_path, "clean")
    child.kill()  # SIGKILL: no handler runs, only the marker remains
    child.wait()
    marker = SessionMarker(tmp_path)
    assert marker.begin() is True
    assert (tmp_path / "session.lock").read_text().split()[0] == RUNNING
    marker.end()
    assert (tmp_path / "session.lock").read_text().strip() == CLOSED
    again = SessionMarker(tmp_path)
    assert again.begin() is False
    again.end()


def test_a_clean_quit_reports_nothing(tmp_path):
    child = _holder(tmp_path, "clean")
    child.communicate("\n")
    assert SessionMarker(tmp_path).begin() is False


def test_a_studio_running_beside_is_not_a_crash(tmp_path):
    child = _holder(tmp_path, "clean")
    try:
        second = SessionMarker(tmp_path)
        assert second.begin() is False
        second.end()  # it never held the marker: the running one's claim stays
        assert (tmp_path / "session.lock").read_text().split() == [RUNNING, str(child.pid)]
    finally:
        child.communicate("\n")


def test_no_writable_data_folder_means_no_marker(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    marker = SessionMarker(blocker / "data")
    assert marker.begin() is False
    marker.end()


def test_the_sentence_names_the_log_file(tmp_path):
    assert str(tmp_path / "x.log") in abnormal_end_message(tmp_path / "x.log")
    assert "log file in the data folder" in abnormal_end_message(None)
