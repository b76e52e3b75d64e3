"""The CPU-runnable parts of benchmarks/gpu_check.py: its arguments and its table."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_check.py"


@pytest.fixture(scope="module")
def gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_arguments_always_measure_against_the_reference(gpu_check):
    args = gpu_check.parse_args(["--modes", "packed,flashinfer-graph", "--steps", "16"])
    assert args.modes == ["reference", "packed", "flashinfer-graph"] and args.steps == 16
    assert gpu_check.parse_args([]).modes == list(gpu_check.MODES)
    with pytest.raises(SystemExit):
        gpu_check.parse_args(["--modes", "warp-drive"])
    assert "padded-graph" in gpu_check.MODES
    assert gpu_check.parse_args(["--quality-seeds", "none"]).quality_seeds == []
    for bad in (["--quality-seeds", "g,x"], ["--batches", "0"], ["--batches", "one"]):
        with pytest.raises(SystemExit):
            gpu_check.parse_args(bad)


def test_table_has_one_row_per_mode_and_batch(gpu_check):
    rows = [{"mode": "reference", "batch": 1, "median_s": 1.5, "rtf": 0.15, "speedup": 1.0,
             "agreement": 1.0, "peak_gib": 3.2, "extra_gib": 0.4},
            {"mode": "flashinfer", "batch": 1, "note": "flashinfer: no CUDA GPU, rendered on the standard path"}]
    table = gpu_check.format_table(rows).splitlines()
    assert len(table) == 4 and table[0].startswith("| mode | batch | seconds | RTF")
    assert "| reference | 1 | 1.500 | 0.1500 | 1.00 | 1.0000 | 3.20 | 0.40 | - |" == table[2]
    assert table[3].endswith("| flashinfer: no CUDA GPU, rendered on the standard path |")


def test_our_request_is_the_reference_s_work_token_for_token(gpu_check, tiny_checkpoint, engine):
    """The check's two calls render the same tokens (here on the CPU, fp32): speed-ups
    compare equal work, and agreement on the GPU has something to measure."""
    import omnivoice
    import torch

    reference = omnivoice.OmniVoice.from_pretrained(str(tiny_checkpoint), dtype=torch.float32,
                                                    device_map="cpu").eval()
    theirs, _ = gpu_check.reference_call(reference, 2, 4, engine.sample_rate)
    for mode in ("padded", "packed"):
        items, options = gpu_check.our_request(2, 4, mode)
        ours = [r.tokens for r in engine.synthesize(items, options)]
        assert gpu_check.agreement(ours, theirs) == 1.0, mode


def test_a_dry_run_on_the_cpu_writes_speed_fp32_truth_and_auto(gpu_check, tiny_checkpoint, tmp_path):
    """The whole script once, small, on the CPU; graph mode through a fake CUDA platform
    (its "graph" recomputes when replayed), so the padded-graph path really runs."""
    from tests.accel_fakes import FakeCudaPlatform

    out = tmp_path / "check.json"
    assert gpu_check.main(["--device", "cpu", "--checkpoint", str(tiny_checkpoint), "--steps", "3",
                           "--repeats", "1", "--batches", "1", "--modes", "padded,padded-graph",
                           "--quality-seeds", "g,3", "--quality-cases", "design_english",
                           "--out", str(out)], platform=FakeCudaPlatform()) == 0
    data = json.loads(out.read_text())
    rows = {row["mode"]: row for row in data["rows"]}
    assert list(rows) == ["reference", "padded", "padded-graph"]
    assert rows["padded-graph"]["accel_active"] == "graph" and "note" not in rows["padded-graph"]
    assert rows["padded-graph"]["agreement"] == rows["padded"]["agreement"] == 1.0
    quality = data["quality"]
    assert quality["bar_is_reference"] and quality["margins"]["median_gap_after"] > 0
    for name in ("random", "realistic_margins"):
        per_mode = quality["checkpoints"][name]
        assert set(per_mode) == {"reference", "padded", "padded-graph"}
        graph, bar = per_mode["padded-graph"], per_mode["reference"]
        assert graph["renders"] == 2 and graph["accel_active"] == "graph"
        # Graphs replay the padded step: the same agreement with fp32, render for render.
        assert graph["mean_token_agreement"] == bar["mean_token_agreement"] is not None
        assert graph["identical_renders"] == bar["identical_renders"]
    evidence = {m["mode"]: m for m in data["auto"]["evidence"]}
    assert evidence["graph"]["exact"] and evidence["graph"]["as_accurate"]
    assert data["auto"]["would_choose"][0] in ("graph", "off")
