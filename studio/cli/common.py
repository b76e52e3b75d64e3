"""Helpers several subcommands share: where output goes, output paths checked before
any work, and the libraries' chatter kept out of the terminal."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from studio.errors import UserError

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg")


def to_stdout(args) -> bool:
    """``--out -``: the audio goes to standard output (and --json to standard error)."""
    return str(getattr(args, "out", "")) == "-"


def json_to(args):
    """Standard output, unless it carries the audio (--out -)."""
    return sys.stderr if to_stdout(args) else sys.stdout


def print_summary(args, summary: dict) -> None:
    """``--json``: the summary less its ``message`` on one line; else the message."""
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "message"},
                         ensure_ascii=False))
    else:
        print(summary["message"])


def check_output(path: Path, suffixes: tuple[str, ...], what: str) -> None:
    from studio.atomic import check_target

    if path.suffix.lower() not in suffixes:
        raise UserError(f"The {what} {path} must end in {', '.join(suffixes)}.")
    check_target(path, what)


@contextlib.contextmanager
def library_chatter_to_log():
    """Send transformers' own output to the log file instead of the terminal.

    Loading a checkpoint makes transformers warn about the config's model type
    and draw a weight-loading bar; neither means anything to the user, and they
    would bury the one sentence an error prints. Download bars (an ASR model
    fetched for auto-transcription) stay. Everything is restored afterwards, so
    calling ``main`` in-process leaves the libraries as it found them.
    """
    from huggingface_hub import utils as hub_utils
    from transformers.utils import logging as hf_logging

    library = hf_logging.get_logger()
    handlers, propagate = list(library.handlers), library.propagate
    bars = hf_logging.is_progress_bar_enabled()
    hub_bars = not hub_utils.are_progress_bars_disabled()
    for handler in handlers:
        library.removeHandler(handler)
    library.propagate = True  # to the root logger, i.e. the log file
    hf_logging.disable_progress_bar()  # this switches off the hub's bars too
    if hub_bars:
        hub_utils.enable_progress_bars()
    try:
        yield
    finally:
        for handler in handlers:
            library.addHandler(handler)
        library.propagate = propagate
        if bars:
            hf_logging.enable_progress_bar()
        if not hub_bars:
            hub_utils.disable_progress_bars()
