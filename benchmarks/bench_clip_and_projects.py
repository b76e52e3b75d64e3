"""Costs of issue 25's script and clip work, both paid on the GUI thread:

- the reference clip checks (``check_clip``) and ``best_window`` on clips of 10 s to
  5 min at 24 and 48 kHz (they run on every clip load and on Trim to the best 10 s);
- the takes panel's project filter: ``TakeLibrary.list`` with and without
  ``project=`` (a ``json_extract`` over every row's settings) and ``projects()``, on a
  library of N takes, a third of them one project's; and the filter of that project
  saved under a new name (its path matches no take, its lines' take ids all of them:
  ``ProjectTakes`` passes the ids as one JSON parameter).

Usage (from the repository root)::

    python benchmarks/bench_clip_and_projects.py [--takes 3000]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np


def best_of(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def clips() -> None:
    from studio.sound.clip_check import best_window, check_clip

    rng = np.random.default_rng(0)
    for rate in (24000, 48000):
        for seconds in (10, 60, 300):
            t = np.arange(seconds * rate) / rate
            audio = (0.3 * np.sin(2 * np.pi * 150 * t) * ((t % 0.3) < 0.2)
                     + rng.normal(0, 0.003, t.size)).astype(np.float32)
            check = best_of(lambda a=audio, r=rate: check_clip(a, r))
            window = best_of(lambda a=audio, r=rate: best_window(a, r))
            print(f"clip {seconds:>3} s @ {rate // 1000} kHz: check_clip {check * 1e3:7.1f} ms, "
                  f"best_window {window * 1e3:7.1f} ms")


def projects(count: int) -> None:
    from studio.library.project_takes import ProjectTakes
    from studio.library.take_record import TakeRun, TakeSettings
    from studio.library.takes import NO_PROJECT, TakeLibrary

    run = TakeRun("tiny", "cpu", "fp32", "off", "off", None, "bench", 0.1, 0.1)
    base = TakeSettings("A line of the play.", "en", "male", "design", None, None, None, None,
                        True, None, None, 1, {})
    audio = np.full(2400, 0.1, dtype=np.float32)
    with tempfile.TemporaryDirectory() as folder, TakeLibrary(Path(folder)) as library:
        started = time.perf_counter()
        for n in range(count):
            project = "/tmp/radio.ovproj" if n % 3 == 0 else None
            library.add(replace(base, seed=n, project=project, project_line=n if project else None),
                        run, audio, 24000, batch=f"b{n}")
        print(f"{count} takes written in {time.perf_counter() - started:.1f} s")
        ids = [t.id for t in library.list(project="/tmp/radio.ovproj")]
        copy = ProjectTakes.of("/tmp/radio copy.ovproj", ids)
        for label, kwargs in (("all", {}), ("one project", {"project": "/tmp/radio.ovproj"}),
                              ("Clone & Design", {"project": NO_PROJECT}),
                              (f"a copy, {len(ids)} ids", {"project": copy})):
            seconds = best_of(lambda k=kwargs: library.list(**k))
            print(f"list({label}): {len(library.list(**kwargs))} takes in {seconds * 1e3:.1f} ms")
        print(f"projects(): {best_of(library.projects) * 1e3:.1f} ms")
    take_ids(count)


def take_ids(count: int) -> None:
    """``Project.take_ids()`` (read on each view change while a script is open) with
    ``count`` takes listed for its lines."""
    import sqlite3
    import uuid

    from studio.scripts.project import Project

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "radio.ovproj"
        Project.create(path).close()
        with sqlite3.connect(path) as db:
            db.executemany("INSERT INTO line_takes (line, take, added) VALUES (?, ?, 0)",
                           [(n // 3, uuid.uuid4().hex) for n in range(count)])
        with Project.open(path) as project:
            seconds = best_of(project.take_ids)
            print(f"Project.take_ids(): {len(project.take_ids())} ids in {seconds * 1e3:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--takes", type=int, default=3000)
    parser.add_argument("--projects-only", action="store_true", help="skip the clip checks")
    args = parser.parse_args()
    from studio.engine.precision import _linux_cpu_flags

    try:
        model = next(line.split(":", 1)[1].strip() for line in
                     Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    flags = sorted(f for f in _linux_cpu_flags() if f.startswith(("avx", "amx", "sse4")))
    print(f"CPU: {model}, flags: {' '.join(flags) or '(not readable)'}; "
          f"python {platform.python_version()}")
    if not args.projects_only:
        clips()
    projects(args.takes)


if __name__ == "__main__":
    main()
