"""Audiobooks: how long a long text takes to import into a project, and how long an
audiobook of H hours (10 chapters) takes to export as .m4b (AAC through PyAV) with and
without the per-chapter MP3s, with each chapter's ACX check; peak memory of the export
(one chapter is held at a time).

Usage (from the repository root)::

    python benchmarks/bench_audiobook.py
    python benchmarks/bench_audiobook.py --hours 1 --json-out audiobook.json

Prints the numbers; nothing here asserts on time. Measured 2026-12-05 (AMD EPYC, 2 cores
shared with other work): import 100k characters (420 lines) 103 ms, 1M (4,160 lines)
312 ms; a 0.5 h book exported in 57.6 s as .m4b (15.3 MB, peak RSS 274 MB), 79.8 s with
chapter MP3s. FFmpeg's AAC encoder (its default "twoloop" coder) is two thirds of the
export; ``aac_coder=fast`` would be 1.8x faster at some quality cost, not taken.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RATE = 24000
SENTENCE = "The rain had not stopped for three days, and the river rose under the bridge. "


def text_of(chars: int, chapters: int = 10) -> str:
    per = chars // chapters
    parts = []
    for c in range(1, chapters + 1):
        body, n = [], 0
        while sum(map(len, body)) < per:
            body.append(f"Paragraph {n}. " + SENTENCE * 6)
            n += 1
        parts.append(f"# Chapter {c}\n\n" + "\n\n".join(body))
    return "\n\n".join(parts)


class Takes:
    def __init__(self, clips):
        self.clips = clips

    def read_audio(self, take_id):
        return self.clips[take_id], RATE

    def get(self, take_id):
        return SimpleNamespace(settings=SimpleNamespace(seed=1))

    def audio_path(self, take_id):
        return Path("/nonexistent") / take_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hours", type=float, default=0.5)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    from studio.scripts.audiobook import export_audiobook
    from studio.scripts.books import import_book
    from studio.scripts.export import plan_mix
    from studio.scripts.project import Project

    result = {"cpu": platform.processor() or platform.machine(), "import": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for chars in (100_000, 1_000_000):
            source = tmp / f"book{chars}.md"
            source.write_text(text_of(chars), encoding="utf-8")
            started = time.perf_counter()
            summary = import_book(source, tmp / f"book{chars}.ovproj")
            took = time.perf_counter() - started
            result["import"].append({"characters": chars, "lines": summary["lines"],
                                     "seconds": round(took, 3)})
            print(f"import {chars:,} characters -> {summary['lines']} lines: {took * 1000:.0f} ms")
        # An audiobook of --hours: the 100k project's lines, each take long enough.
        with Project.open(tmp / "book100000.ovproj") as project:
            lines = project.lines()
            each = args.hours * 3600 / len(lines)
            rng = np.random.default_rng(0)
            noise = (0.05 * rng.standard_normal(int(each * RATE))).astype(np.float32)
            clips = {}
            for line in lines:
                clips[f"t{line.id}"] = noise
                project.choose_take(line.id, f"t{line.id}")
            plan = plan_mix(project)
        for mp3s in (False, True):
            out = tmp / f"book{int(mp3s)}.m4b"
            started = time.perf_counter()
            book = export_audiobook(plan, Takes(clips), out, title="Bench", mp3s=mp3s)
            took = time.perf_counter() - started
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            row = {"hours": args.hours, "chapter_mp3s": mp3s, "seconds": round(took, 2),
                   "m4b_mb": round(out.stat().st_size / 1e6, 1), "peak_rss_mb": round(peak),
                   "chapters": len(book.chapters)}
            result.setdefault("export", []).append(row)
            print(f"export {args.hours} h as .m4b{' + chapter MP3s' if mp3s else ''}: "
                  f"{took:.1f} s, {row['m4b_mb']} MB, peak RSS {peak:.0f} MB")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
