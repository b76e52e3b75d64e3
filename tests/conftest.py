"""Shared fixtures: a tiny random checkpoint in the official layout, loaded by
the real loading code, and a private data folder for every test session."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

# Set before anything creates a QApplication or touches the data folder.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No test (nor a studio it launches) may touch this user's own keyring: keyring's "fail"
# backend means "no keyring here"; the keyring tests hand Settings their own backend.
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"


# Fixtures kept in their own modules, offered to every test.
pytest_plugins = ["tests.padded_clip"]

CPU_FLAGS_OF_NOTE = ("avx2", "avx512f", "avx512_bf16", "amx_bf16", "avx_ne_convert")


def pytest_terminal_summary(terminalreporter):
    """Which CPU features this run had (bf16 paths differ between machines); printed
    after the results, where ``-q`` still shows it."""
    terminalreporter.write_line(cpu_features())


def cpu_features() -> str:
    import platform

    import torch

    from studio.engine.precision import _linux_cpu_flags, cpu_bf16_feature

    flags = _linux_cpu_flags()
    model = next((line.split(":", 1)[1].strip() for line in _cpuinfo_lines()
                  if line.startswith("model name")), platform.processor() or platform.machine())
    present = [f for f in CPU_FLAGS_OF_NOTE if f in flags] or ["(flags not readable)"]
    onednn = torch.ops.mkldnn._is_mkldnn_bf16_supported()
    return (f"CPU: {model}, {os.cpu_count()} cores; flags: {' '.join(present)}; native bf16: "
            f"{cpu_bf16_feature() or 'no'}; oneDNN bf16 kernels: {'yes' if onednn else 'no'}")


def _cpuinfo_lines() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text(errors="replace").splitlines()
    except OSError:
        return []


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture(scope="module")
def one_torch_thread():
    """The tiny model gains nothing from a thread pool, and on a busy two-core machine
    torch's threads wait on each other: one thread keeps a render near 0.2 s, not 3 s."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def cli(capfd):
    """``cli(*args)`` runs ``studio.cli.main`` in-process -> (exit code, stdout lines,
    stderr lines)."""
    from studio.cli import main

    def run(*args):
        capfd.readouterr()
        code = main([str(a) for a in args])
        captured = capfd.readouterr()
        out = [line for line in captured.out.splitlines() if line.strip()]
        err = [line for line in captured.err.splitlines() if line.strip()]
        return code, out, err

    return run


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    from studio.engine.random_checkpoint import build_random_checkpoint

    return build_random_checkpoint(tmp_path_factory.mktemp("checkpoint") / "OmniVoice", "tiny")


@pytest.fixture(scope="session")
def engine(tiny_checkpoint):
    from studio.engine.engine import Engine

    return Engine.load(tiny_checkpoint, device="cpu", precision="fp32")


def _speech_like(seconds: float, sample_rate: int = 24000, seed: int = 0) -> np.ndarray:
    """Voiced bursts with pauses between them: enough structure for the silence
    trimming and the codec to do real work, deterministic for a seed."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sample_rate)) / sample_rate
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    voiced = np.sin(2 * np.pi * np.cumsum(pitch) / sample_rate) + 0.3 * rng.standard_normal(t.size)
    gate = (np.sin(2 * np.pi * 1.3 * t) > -0.3).astype(np.float64)
    return (0.2 * voiced * gate).astype(np.float32)


@pytest.fixture(scope="session")
def speech():
    """``speech(seconds, sample_rate=24000, seed=0)`` -> a float32 speech-like clip."""
    return _speech_like

