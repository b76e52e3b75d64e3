"""A project's export from its MixPlan (what the window's export thread runs): the same
files as export_project, progress that says what it is writing, and a cancel between
blocks that leaves no file behind."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import soundfile as sf

from studio.scripts.export import ExportCancelled, export_plan, export_project, plan_mix
from studio.scripts.project import Project
from tests.memory_takes import RATE, MemoryTakes


@pytest.fixture
def project(tmp_path):
    rng = np.random.default_rng(3)
    with Project.create(tmp_path / "show.ovproj") as project:
        alice = project.add_speaker("Alice", "design", instruct="female", seed=1)
        bob = project.add_speaker("Bob", "design", instruct="male", seed=2)
        clips = {}
        for n in range(6):  # 6 lines of 4 s: 96 s with the pauses, 9 blocks a file
            line = project.add_line(alice if n % 2 == 0 else bob, f"Line {n}.", pause_after=12.0)
            clips[f"t{n}"] = (0.1 * rng.standard_normal(4 * RATE)).astype(np.float32)
            project.choose_take(line, f"t{n}")
        yield project, MemoryTakes(tmp_path / "takes", clips)


def test_a_plan_exports_what_export_project_does_and_says_what_it_writes(project, tmp_path):
    project, takes = project
    heard = []
    plan = plan_mix(project)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    written = export_plan(plan, takes, tmp_path / "a" / "show.wav",
                          on_progress=lambda what, f: heard.append((what, f)))
    again = export_project(project, takes, tmp_path / "b" / "show.wav")
    assert [p.name for p in written] == [p.name for p in again]
    for a, b in zip(written, again):
        if a.suffix == ".wav":
            assert np.array_equal(sf.read(str(a))[0], sf.read(str(b))[0])
    writes = [f for w, f in heard if w.startswith("Writing")]
    assert len(writes) == 3 * 9 and writes == sorted(writes), "a block at a time, forward"
    said = [w for w, _f in heard]
    assert said[0] == "Reading the takes" and "Writing Alice's stem" in said
    assert said[-1] == "Writing the mix" and 0.9 < heard[-1][1] < 1.0


def test_a_cancel_between_blocks_leaves_nothing(project, tmp_path):
    project, takes = project
    cancel = threading.Event()

    def progress(what, _fraction):
        if what == "Writing the mix":  # the stems are written by now, under temp names
            cancel.set()

    with pytest.raises(ExportCancelled):
        export_plan(plan_mix(project), takes, tmp_path / "show.flac", on_progress=progress,
                    cancel=cancel)
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith("show.ovproj")] == []
