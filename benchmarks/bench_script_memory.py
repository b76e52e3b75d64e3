"""Peak memory of mixing and writing a script's timeline, by its length and its stems.

Issue 26: eleven short lines by ten speakers spread over two hours peaked at 17.5 GB,
because the mix, every speaker's stem and the loudness measurement each held the whole
timeline. Here the same shape (one-second lines of noise, ten speakers) is mixed to
-16 LUFS and written as a FLAC mix, optionally with ten FLAC stems and an SRT, for
several timeline lengths; each case runs in a fresh process, which reports its peak RSS
(VmHWM, Linux) above what it held before mixing, and the wall time. No model: what is
measured is the mix and the files, which is where the timeline's length matters.

Usage (from the repository root)::

    python benchmarks/bench_script_memory.py [--minutes 1 30 120] [--json-out mem.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

SR = 24000
LINES, SPEAKERS = 11, 10


def _status_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def one_case(minutes: float, stems: bool) -> dict:
    """Mix and write one timeline in this process; its memory and time."""
    import numpy as np

    from studio.scripts.export import stage_outputs, stem_files
    from studio.scripts.parse import parse_text
    from studio.scripts.render import mix_lines
    from studio.staged import Staged

    script = parse_text("\n".join(f"S{n % SPEAKERS}: Line {n}." for n in range(LINES)))
    gap = max(0.0, minutes * 60 / LINES - 1.0)
    script.lines = [replace(line, pause_after=gap) for line in script.lines]
    rng = np.random.default_rng(0)
    clips = [(0.1 * rng.standard_normal(SR)).astype(np.float32) for _ in script.lines]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        paths = stem_files(folder / "stems", script.speakers, ".flac") if stems else {}
        Path("/proc/self/clear_refs").write_text("5")  # the peak from here on
        before = _status_kb("VmRSS")
        started = time.perf_counter()
        rendered = mix_lines(script, clips, list(range(LINES)), SR)
        mixed = time.perf_counter()
        with Staged() as staged:
            stage_outputs(staged, script, rendered, folder / "mix.flac", paths,
                          folder / "mix.srt")
            staged.commit()
        done = time.perf_counter()
    return {"minutes": minutes, "stems": stems, "seconds_of_audio": round(rendered.seconds, 1),
            "peak_growth_mb": round((_status_kb("VmHWM") - before) / 1024, 1),
            "mix_seconds": round(mixed - started, 2), "write_seconds": round(done - mixed, 2),
            "lufs": round(rendered.lufs, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, nargs="+", default=[1, 30, 120])
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--case", nargs=2, help=argparse.SUPPRESS)  # minutes stems: one run
    args = parser.parse_args()
    if args.case:
        print(json.dumps(one_case(float(args.case[0]), args.case[1] == "1")))
        return
    from bench_stream import cpu_flags

    results = []
    for minutes in args.minutes:
        for stems in (False, True):
            run = subprocess.run([sys.executable, __file__, "--case", str(minutes),
                                  "1" if stems else "0"], capture_output=True, text=True,
                                 check=True)
            results.append(json.loads(run.stdout.strip().splitlines()[-1]))
            print(json.dumps(results[-1]), flush=True)
    report = {"cpu_flags": cpu_flags(), "lines": LINES, "speakers": SPEAKERS,
              "sample_rate": SR, "cases": results}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
