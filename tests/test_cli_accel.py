"""`synth --accel` goes through the same Accelerator contract as the studio, and its
--json line says what was requested, what ran and why they differ."""

from __future__ import annotations

import json

import torch

import studio.engine.accel.accelerator as accelerator
from studio.cli import main
from tests.accel_fakes import FakeCudaPlatform, install_fake_flashinfer


def synth(tiny_checkpoint, tmp_path, capfd, accel, name):
    tokens = tmp_path / f"{name}.pt"
    capfd.readouterr()
    code = main(["synth", "--device", "cpu", "--precision", "fp32", "--steps", "3",
                 "--model", str(tiny_checkpoint), "--text", "Accelerated from the command line.",
                 "--out", str(tmp_path / f"{name}.wav"), "--tokens-out", str(tokens), "--seed", "4",
                 "--position-temperature", "0", "--decode", "packed", "--accel", accel, "--json"])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out.strip().splitlines()[-1]), torch.load(tokens, weights_only=True)


def test_a_kernel_failure_falls_back_and_the_json_line_says_so(tiny_checkpoint, tmp_path, capfd,
                                                               monkeypatch):
    standard, expected = synth(tiny_checkpoint, tmp_path, capfd, "off", "off")
    assert (standard["accel_requested"], standard["accel_active"], standard["fallback_reason"]) == (
        "off", "off", None)
    kernels = install_fake_flashinfer(monkeypatch)
    monkeypatch.setattr(accelerator, "TorchPlatform", FakeCudaPlatform)
    kernels.fail = RuntimeError("CUDA error: no kernel image is available for execution")
    summary, tokens = synth(tiny_checkpoint, tmp_path, capfd, "flashinfer", "fell-back")
    reason = "flashinfer: kernel failed at run time (RuntimeError), rendered on the standard path"
    assert (summary["accel_requested"], summary["accel_active"], summary["fallback_reason"]) == (
        "flashinfer", "off", reason)
    assert reason in summary["warnings"]
    assert all(torch.equal(a, b) for a, b in zip(tokens, expected))
    kernels.fail = None
    summary, tokens = synth(tiny_checkpoint, tmp_path, capfd, "flashinfer-graph", "graph")
    assert (summary["accel_active"], summary["fallback_reason"], summary["decode"]) == (
        "flashinfer-graph", None, "packed")
    assert all(torch.equal(a, b) for a, b in zip(tokens, expected))


def test_on_this_machine_the_reason_is_named(tiny_checkpoint, tmp_path, capfd):
    summary, _ = synth(tiny_checkpoint, tmp_path, capfd, "compile", "compile")
    # --device cpu: refused on any machine, with a named reason, and the render completed.
    assert (summary["accel_requested"], summary["accel_active"]) == ("compile", "off")
    assert summary["fallback_reason"].startswith("compile: ")
    assert summary["fallback_reason"].endswith(", rendered on the standard path")
