"""What making the .ovproj complete after every edit costs (a checkpoint of the -wal
into the file after each commit), on a 200-line project: the time of one edit (a line's
text changed, committed with synchronous FULL) for the journal modes one could choose:

- ``wal``: the earlier behaviour, edits left in the -wal (the file alone lacks them);
- ``wal+passive``: this version, WAL with a PASSIVE checkpoint after each commit;
- ``wal+truncate``: the same, the -wal also cut to 0 bytes (waits on readers);
- ``delete``: a rollback journal (no -wal at all; a crash leaves a hot journal that a
  read-only reader, such as ``script book --dry-run``, cannot roll back, and a reader
  holding the file blocks every edit: see docs/performance.md, "Saving a script project").

Also: Save as (SQLite's backup API, temp name then rename) of the 200-line project.

Usage (from the repository root)::

    python benchmarks/bench_project_save.py [--lines 200] [--edits 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from studio.scripts.project import Project


def edits(folder: Path, mode: str, lines: int, count: int) -> dict:
    path = folder / f"{mode}.ovproj"
    with Project.create(path) as project:
        speaker = project.add_speaker("Anna", "design", instruct="female")
        ids = [project.add_line(speaker, f"Line {n} " + "words " * 20) for n in range(lines)]
        if mode == "wal":
            project._checkpoint = lambda: None  # the earlier behaviour
        elif mode == "wal+truncate":
            project._checkpoint = lambda: project._db.execute(
                "PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        elif mode == "delete":
            project._db.execute("PRAGMA journal_mode=DELETE")
            project._checkpoint = lambda: None
        times = []
        for n in range(count):
            start = time.perf_counter()
            project.set_line(ids[n % lines], text=f"Edit {n} " + "words " * 20)
            times.append(time.perf_counter() - start)
        sizes = {p.name.removeprefix(path.name) or "file": p.stat().st_size
                 for p in folder.glob(f"{path.name}*")}
    return {"median_ms": statistics.median(times) * 1e3,
            "p90_ms": sorted(times)[int(0.9 * len(times))] * 1e3, "sizes_while_open": sizes}


def save_as(folder: Path, lines: int) -> float:
    with Project.create(folder / "source.ovproj") as project:
        speaker = project.add_speaker("Anna", "design", instruct="female")
        for n in range(lines):
            project.add_line(speaker, f"Line {n} " + "words " * 20)
        start = time.perf_counter()
        project.save_as(folder / "copy.ovproj")
        return (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {"machine": platform.platform(), "lines": args.lines, "edits": args.edits}
    for mode in ("wal", "wal+passive", "wal+truncate", "delete"):
        with tempfile.TemporaryDirectory() as folder:
            results[mode] = edits(Path(folder), mode, args.lines, args.edits)
        print(f"{mode:>13}: one edit median {results[mode]['median_ms']:.2f} ms, "
              f"p90 {results[mode]['p90_ms']:.2f} ms; files {results[mode]['sizes_while_open']}")
    with tempfile.TemporaryDirectory() as folder:
        results["save_as_ms"] = save_as(Path(folder), args.lines)
    print(f"save as ({args.lines} lines): {results['save_as_ms']:.1f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
