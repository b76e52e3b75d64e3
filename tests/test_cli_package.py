"""The command line as a package (issue 27): a command table in place of an if/elif
chain, nothing importing the dispatcher, small modules, and one place mapping failures
to exit statuses."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import pytest
from test_layers import ROOT, read_imports

from studio import cli
from studio.cli import exits
from studio.errors import UserError

CLI = ROOT / "cli"


def test_nothing_but_the_entry_points_imports_the_dispatcher():
    importers = {module for module, imported in read_imports().items() if "studio.cli" in imported}
    assert importers == {"studio.__main__"}


def test_every_subcommand_is_a_module_in_the_table():
    parser = cli.build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(subparsers.choices) == list(cli.COMMANDS) == [
        "synth", "download", "cache", "voices", "script", "serve", "mcp", "selftest"]
    for name, module in cli.COMMANDS.items():
        assert callable(module.add_parser) and callable(module.run), name


def test_no_module_of_the_cli_is_over_500_lines():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in CLI.glob("*.py")}
    assert max(sizes.values()) <= 500, sizes


@pytest.mark.parametrize(("failure", "status", "said"), [
    (UserError("The text is empty; type something."), 2,
     "error: The text is empty; type something."),
    (KeyboardInterrupt(), 130, "error: interrupted; nothing was written."),
    (RuntimeError("boom"), 1, "error: an unexpected internal error stopped the command; "
                              "details are in /logs/omnivoice-desktop.log."),
])
def test_one_place_maps_a_failure_to_its_status_and_sentence(capsys, caplog, failure, status,
                                                             said):
    def command() -> int:
        raise failure

    args = argparse.Namespace(json=True, out=Path("x.wav"))
    with caplog.at_level(logging.ERROR, logger="studio.cli"):
        assert exits.run_guarded(args, Path("/logs/omnivoice-desktop.log"), command) == status
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == said
    if status != 130:  # --json: the sentence as JSON where the result would have gone
        assert out.strip() == '{"error": "' + said.removeprefix("error: ") + '"}'
    assert ("boom" in caplog.text) == (status == 1)  # the traceback goes to the log only


def test_a_command_that_works_keeps_its_status():
    assert exits.run_guarded(argparse.Namespace(), None, lambda: 0) == 0
