"""The one place a headless command's failure becomes an exit status and one line.

A mistake the user can fix (``UserError``) prints ``error: <sentence>`` and exits 2;
Ctrl+C exits 130 saying nothing was written; anything else is logged with its
traceback and prints one sentence pointing at the log file, exit 1. With ``--json`` the
sentence also goes out as ``{"error": ...}`` where the JSON would have gone.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from studio.cli.common import json_to
from studio.errors import UserError, one_line

log = logging.getLogger("studio.cli")

MISTAKE = 2  # also argparse's status for a bad command line (options.Parser)
INTERNAL = 1
INTERRUPTED = 130


def run_guarded(args, logfile: Path | None, command: Callable[[], int]) -> int:
    """``command()``'s status, or the status and sentence its failure maps to."""
    try:
        return command()
    except UserError as exc:
        return _fail(args, one_line(str(exc)), MISTAKE)
    except KeyboardInterrupt:
        print("error: interrupted; nothing was written.", file=sys.stderr)
        return INTERRUPTED
    except Exception:
        log.exception("unexpected failure")
        where = f"; details are in {logfile}" if logfile else ""
        return _fail(args, f"an unexpected internal error stopped the command{where}.", INTERNAL)


def _fail(args, sentence: str, status: int) -> int:
    print(f"error: {sentence}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"error": sentence}, ensure_ascii=False), file=json_to(args))
    return status
