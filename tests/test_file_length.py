"""No module in studio/ runs over ~500 lines without saying why (issue 27).

A long module either gets split by what it holds or carries a line in its docstring
starting "Long because", which says why it stays whole. PENDING names the modules other
work is splitting now; an entry that is no longer long (or has its reason) fails the
test too, so the list can only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "studio"
LIMIT = 500
REASON = "Long because"

PENDING: dict[str, str] = {}


def unexplained(root: Path = ROOT) -> set[str]:
    """The modules under ``root`` over LIMIT lines whose docstring gives no reason."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= LIMIT:
            continue
        doc = ast.get_docstring(ast.parse(text, str(path))) or ""
        if not any(line.strip().startswith(REASON) for line in doc.splitlines()):
            found.add(path.relative_to(root).as_posix())
    return found


def test_every_long_module_says_why_it_stays_whole():
    new = unexplained() - PENDING.keys()
    assert not new, (f"over {LIMIT} lines: split these by what they hold, or add a docstring "
                     f"line starting {REASON!r} that says why not: {sorted(new)}")


def test_the_pending_list_only_shrinks():
    done = PENDING.keys() - unexplained()
    assert not done, f"short now or explained: take them off PENDING: {sorted(done)}"


def test_a_long_module_is_caught_and_its_reason_accepted(tmp_path):
    body = "x = 1\n" * (LIMIT + 1)
    (tmp_path / "silent.py").write_text('"""A module."""\n' + body)
    (tmp_path / "said.py").write_text(
        '"""A module.\n\nLong because its parts share one state.\n"""\n' + body)
    (tmp_path / "short.py").write_text('"""A module."""\n' + "x = 1\n" * (LIMIT - 2))
    assert unexplained(tmp_path) == {"silent.py"}
