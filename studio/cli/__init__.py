"""`omnivoice-desktop`: the studio (no subcommand) and the headless commands.

Each command is a module of this package with ``add_parser(subparsers)`` and
``run(args) -> int``; :data:`COMMANDS` lists them in the order --help shows them:

- ``synth``: render speech to an audio file or standard output (``synth --backend URL``:
  on a speech server, in remote.py); ``download``: the model, resumable; ``cache``: the
  voice prompt cache; ``voices``: saved voices (list, save, export, import, delete);
  ``script``: render or import a multi-speaker script; ``serve``: the engine behind an
  OpenAI-compatible HTTP API; ``mcp``: the studio's tools for AI agents (MCP over
  stdio); ``selftest``: check this install.

Options several commands share are declared once in options.py, from the engine's
tables of choices. A mistake the user can fix prints one sentence and exits with status
2; an unexpected failure prints one sentence pointing at the log file and exits 1
(exits.py, the one place that says so). Nothing is ever left half-written at an output
path. Nothing imports this module but the entry points.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from studio import __version__
from studio.cli import cache, download, exits, mcp, script, selftest, serve, synth, voices
from studio.cli.options import Parser

COMMANDS = {module.__name__.rpartition(".")[2]: module
            for module in (synth, download, cache, voices, script, serve, mcp, selftest)}


def build_parser() -> Parser:
    parser = Parser(
        prog="omnivoice-desktop",
        description="OmniVoice Desktop: clone and design voices with OmniVoice, locally.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--model", dest="studio_model", default=None,
                        help="open the studio on this checkpoint folder or repo id")
    commands = parser.add_subparsers(dest="command")  # subparsers are Parsers too
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    # First, before anything can crash: the log file, with faulthandler writing fatal
    # signals into it, and the hooks that log exceptions nobody caught.
    from studio import logfile
    from studio.crash import UncaughtHooks

    handler, log_path = logfile.attach()
    hooks = UncaughtHooks()
    # Library warnings (torch, torchaudio) go to the log file, not the terminal.
    logging.captureWarnings(True)
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            # No subcommand: open the studio (Qt is imported only here).
            from studio.app import run

            extra = ["--model", args.studio_model] if args.studio_model else []
            return run([sys.argv[0], *extra], log_path=log_path, hooks=hooks)
        return _command(args, log_path)
    finally:
        logging.captureWarnings(False)
        hooks.remove()
        logging.getLogger().removeHandler(handler)
        handler.close()


def _command(args, logfile: Path | None) -> int:
    """One headless subcommand, under the CLI's contract for errors and exit statuses."""
    command = COMMANDS[args.command]

    def run() -> int:
        if getattr(command, "NEEDS_DATA_FOLDER", True):
            from studio.paths import check_data_dir

            check_data_dir()
        return command.run(args)

    return exits.run_guarded(args, logfile, run)
