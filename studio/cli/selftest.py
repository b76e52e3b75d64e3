"""`omnivoice-desktop selftest`: check this install without downloading anything."""

from __future__ import annotations

import argparse

from studio.cli.common import library_chatter_to_log
from studio.cli.options import add_json


def add_parser(commands) -> None:
    selftest = commands.add_parser("selftest", help="check this install without downloading anything")
    add_json(selftest, "print one JSON object with every check")
    # The child processes of the Qt checks.
    selftest.add_argument("--probe", choices=("qt", "studio"), help=argparse.SUPPRESS)
    selftest.add_argument("--probe-model", help=argparse.SUPPRESS)


def run(args) -> int:
    from studio import selftest

    if args.probe:  # a child of the self-test: nothing imported before it runs
        return selftest.main(probe=args.probe, probe_model=args.probe_model)
    with library_chatter_to_log():
        return selftest.main(json_output=args.json)
