"""`omnivoice-desktop mcp`: the studio's tools for an AI agent, over stdio.

A desktop agent starts this command and speaks the Model Context Protocol on its
standard input and output, so nothing else may be written there: the model loads with
its chatter sent to the log file and any stray print to standard error. One Renderer
owns the model, on its own thread; the agent's calls queue on it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from studio.cli.common import library_chatter_to_log
from studio.cli.options import add_hardware, add_model, positive_int


def add_parser(commands) -> None:
    mcp = commands.add_parser("mcp", help="serve the studio's tools to an AI agent (MCP over "
                                          "stdio)")
    add_model(mcp)
    add_hardware(mcp)
    mcp.add_argument("--queue", type=positive_int, default=16,
                     help="calls queued or rendering before more are refused (default 16)")


def run(args: argparse.Namespace) -> int:
    from studio.engine.options import model_source
    from studio.mcp.tools import build_server
    from studio.paths import data_dir
    from studio.serve.renderer import Renderer

    renderer = Renderer(model_source(args.model, args.studio_model), device=args.device,
                        precision=args.precision, limit=args.queue, data_root=data_dir())
    with contextlib.redirect_stdout(sys.stderr), library_chatter_to_log():
        renderer.start()
    try:
        build_server(renderer, data_dir()).run("stdio")
    finally:
        renderer.stop()
    return 0
