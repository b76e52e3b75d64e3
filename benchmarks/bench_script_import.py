"""`script import`: time to make a project of an N-line script, for several N.

Each line was once its own undoable edit (a commit with synchronous FULL, and a read of
every line so far to place the next), so an import grew quadratically: 82 s for 5,000
lines (issue 26). The import is now one transaction. The time per line printed for each
N shows whether the growth is linear (a flat column). Nothing here asserts on time.

Usage (from the repository root)::

    python benchmarks/bench_script_import.py [--lines 1000 2500 5000] [--json-out x.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from studio.scripts.parse import parse_text  # noqa: E402
from studio.scripts.project import Project  # noqa: E402


def import_seconds(lines: int, folder: Path) -> float:
    speakers = ("Alice", "Bob", "Carol")
    script = parse_text("\n".join(f"{speakers[n % 3]}: Line {n}, a sentence of some words."
                                  for n in range(lines)))
    started = time.perf_counter()
    with Project.from_script(folder / f"import-{lines}.ovproj", script) as project:
        assert len(project.lines()) == lines
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[1000, 2500, 5000])
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for lines in args.lines:
            seconds = import_seconds(lines, Path(folder))
            rows.append({"lines": lines, "seconds": round(seconds, 3),
                         "ms_per_line": round(1000 * seconds / lines, 3)})
            print(f"{lines:>6} lines  {seconds:8.3f} s  {rows[-1]['ms_per_line']:7.3f} ms/line",
                  flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
