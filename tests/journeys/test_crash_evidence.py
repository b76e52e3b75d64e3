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
