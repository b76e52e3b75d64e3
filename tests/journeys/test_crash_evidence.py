"""A crash leaves evidence: faulthandler's report in the log file, and one sentence on
the next start's status bar pointing at it (only on that start)."""

from __future__ import annotations

import os
import signal

ABNORMAL = "The last session ended abnormally"


def test_a_crash_is_in_the_log_and_the_next_start_says_so_once(launch):
    studio = launch()
    studio.wait_model_loaded()
    assert ABNORMAL not in studio.status()
    os.kill(studio.process.pid, signal.SIGSEGV)  # as a fault in native code would
    assert studio.wait_exit(30) == -signal.SIGSEGV
    log = studio.log_path.read_text(encoding="utf-8", errors="replace")
    assert "Fatal Python error: Segmentation fault" in log
    assert "Current thread" in log and "Thread 0x" in log, "every thread's stack is written"

    again = launch()
    again.wait_model_loaded()  # the sentence outlives the model-ready line
    status = again.get("statusMessage")
    assert status["text"].startswith("⚠ " + ABNORMAL)
    assert str(again.log_path) in status["tooltip"]
    assert again.close() == 0

    third = launch()
    third.wait_model_loaded()
    assert ABNORMAL not in third.status(), "said once: a clean quit clears it"
    assert third.close() == 0


def test_sigterm_mid_render_quits_cleanly_and_the_next_start_says_nothing(launch):
    """A logout or shutdown sends SIGTERM: the studio quits as File ▸ Quit does (no
    question can be answered then; the running render is lost), with status 0."""
    from studio_process import LONG_TEXT, design_generate, wait_rendering

    studio = launch()
    studio.wait_model_loaded()
    design_generate(studio, LONG_TEXT, preset="Final")
    wait_rendering(studio)
    os.kill(studio.process.pid, signal.SIGTERM)
    assert studio.wait_exit(30) == 0
    assert "closed" in (studio.data / "session.lock").read_text()

    again = launch()
    again.wait_model_loaded()
    assert ABNORMAL not in again.status(), "a SIGTERM is a clean quit, not a crash"
    assert again.close() == 0
