"""One declaration of each choice (issue 27): devices, precisions, decode modes,
acceleration modes, chunkings and presets live in studio.engine.options, and every front
end offers exactly those -- the CLI's options (serve's included), Settings and its combos,
the forms' preset buttons -- with no literal copy left anywhere in studio/."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from studio_fakes import CPU_ONLY, PLAYABLE, make_settings

from studio.cli import build_parser
from studio.engine import options
from studio.settings import BY_KEY
from studio.views import script_view
from studio.views.generate_form import GenerateForm
from studio.views.settings_view import SettingsView

STUDIO = Path(__file__).resolve().parents[2] / "studio"
TABLES = {
    "--device": options.DEVICE_CHOICES,
    "--precision": options.PRECISION_CHOICES,
    "--decode": options.DECODE_MODES,
    "--accel": options.ACCEL_MODES,
    "--chunking": options.CHUNKINGS,
}


def _cli_choices(parser: argparse.ArgumentParser, path: str = "omnivoice-desktop"):
    """(command path, option, choices) for every option of TABLES in every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _cli_choices(sub, f"{path} {name}")
        for flag in action.option_strings:
            if flag in TABLES:
                yield path, flag, tuple(action.choices)


def test_the_clis_choices_are_the_tables_serves_included():
    found = list(_cli_choices(build_parser()))
    wrong = [(path, flag, got) for path, flag, got in found if got != TABLES[flag]]
    assert not wrong, wrong
    where = {(path, flag) for path, flag, _ in found}
    for command in ("synth", "voices save", "script render", "serve"):
        assert {(f"omnivoice-desktop {command}", "--device"),
                (f"omnivoice-desktop {command}", "--precision")} <= where, command
    for flag in ("--decode", "--accel", "--chunking"):
        assert ("omnivoice-desktop synth", flag) in where


def test_settings_and_its_combos_offer_the_tables(qtbot, tmp_path):
    assert BY_KEY["model/device"].choices == options.DEVICE_CHOICES
    assert BY_KEY["model/precision"].choices == options.PRECISION_CHOICES
    assert BY_KEY["accel/mode"].choices == options.ACCEL_MODES
    view = SettingsView(make_settings(tmp_path / "settings.ini"), probe=lambda: CPU_ONLY,
                        audio_status=PLAYABLE)
    qtbot.addWidget(view)

    def items(combo) -> tuple:
        return tuple(combo.itemData(i) for i in range(combo.count()))

    assert items(view.deviceCombo) == options.DEVICE_CHOICES
    assert items(view.precisionCombo) == options.PRECISION_CHOICES
    assert items(view.accelCombo) == options.ACCEL_MODES


def test_the_forms_and_the_script_view_use_the_one_preset_table(qtbot):
    form = GenerateForm("design")
    qtbot.addWidget(form)
    assert list(form.presetButtons) == list(options.PRESETS)
    for name, steps in options.PRESETS.items():
        form.set_preset(name)
        assert form.options().decode.num_step == steps
        assert form.presetButtons[name].toolTip().startswith(f"{steps} decoding steps")
    assert form.preset() == name and options.DEFAULT_PRESET in options.PRESETS
    assert script_view.PRESETS is options.PRESETS


def _literal_copies(root: Path) -> list[str]:
    """Tuples or lists spelling one of the tables, and dicts giving the preset names
    anything but labels (text), outside studio/engine/options.py."""
    tables = {tuple(t) for t in TABLES.values()}
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "engine" / "options.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Tuple, ast.List)) and node.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                if tuple(e.value for e in node.elts) in tables:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
            elif isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant)
                                                    for k in node.keys if k is not None):
                keys = {k.value for k in node.keys if k is not None}
                texts = all(isinstance(v, ast.Constant) and isinstance(v.value, str)
                            for v in node.values)
                if keys == set(options.PRESETS) and not texts:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_literal_copy_of_a_choice_is_left_in_studio():
    assert _literal_copies(STUDIO) == []


def test_the_copy_finder_finds_copies(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "options.py").write_text('D = ("auto", "cpu", "cuda", "mps")\n')
    (tmp_path / "a.py").write_text('X = ["off", "auto", "graph", "compile", "flashinfer", '
                                   '"flashinfer-graph"]\n'
                                   'P = {"Draft": 12, "Standard": 16, "Final": 32}\n'
                                   'L = {"Draft": "quick", "Standard": "ok", "Final": "best"}\n')
    assert _literal_copies(tmp_path) == ["a.py:1", "a.py:2"]
