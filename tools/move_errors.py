"""One-off rewrite (issue 27): UserError, ModelNotDownloaded and one_line live in the
bottom module studio/errors.py. Rewrites every import of them in studio/, tests/,
benchmarks/ and tools/; safe to run again (after merging code written before the move).

    python tools/move_errors.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("studio", "tests", "benchmarks", "tools")
RULES = (
    (re.compile(r"\bfrom studio\.engine\.errors import\b"), "from studio.errors import"),
    (re.compile(r"\bfrom studio\.cli import one_line\b"), "from studio.errors import one_line"),
    (re.compile(r"\bstudio\.engine\.errors\b"), "studio.errors"),
)


def main() -> int:
    changed = 0
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.resolve() == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            new = text
            for pattern, replacement in RULES:
                new = pattern.sub(replacement, new)
            if new != text:
                path.write_text(new, encoding="utf-8")
                changed += 1
                print(path.relative_to(ROOT))
    print(f"{changed} files rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
