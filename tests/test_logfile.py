"""The log file never costs the user a command: a full disk makes it quiet, not loud."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from studio.logfile import LogFile


@pytest.fixture
def full_log(tmp_path) -> Path:
    """A log path whose every write fails as on a full disk (ENOSPC): /dev/full."""
    if not Path("/dev/full").exists():
        pytest.fail("this test needs /dev/full (every Linux has it)")
    path = tmp_path / "omnivoice-desktop.log"
    path.symlink_to("/dev/full")
    return path


def test_records_on_a_full_disk_print_nothing_and_closing_does_not_raise(full_log, capfd):
    handler = LogFile(full_log)
    logger = logging.getLogger("tests.full-disk")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for n in range(20):
            logger.error("record %d", n)
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert handler.failed
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""

