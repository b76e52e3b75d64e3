"""The CPU-runnable parts of benchmarks/gpu_check.py: its arguments and its table."""

from __future__ import annotations

import importlib.util
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
