"""Which acceleration paths this machine can run, and the named reason where not.

No Qt, no model: only what the installed torch build, the GPU and the installed
packages allow, so the Settings view can grey out an option before the user
picks it. The worker still classifies fallbacks at run time (memory, kernels
that fail to build); this is the cheap, up-front half of that story.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

ACCEL_LABELS: dict[str, str] = {
    "off": "Off",
    "compile": "torch.compile",
    "flashinfer": "FlashInfer",
    "flashinfer-graph": "FlashInfer + CUDA graphs",
}

# FlashInfer's attention kernels need Ampere (sm_80) or newer.
FLASHINFER_MIN_CAPABILITY = (8, 0)

Availability = dict[str, tuple[bool, "str | None"]]


def _gpu_facts(torch: Any) -> tuple[str | None, tuple[int, int] | None, list[str]]:
    """(why there is no usable GPU, its compute capability, the torch build's arch list)."""
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_available():
        return "no CUDA GPU", None, []
    try:
        capability = tuple(cuda.get_device_capability())
        archs = list(cuda.get_arch_list())
    except (RuntimeError, AssertionError) as exc:  # a broken driver says so here
        return f"CUDA GPU not usable ({exc.__class__.__name__})", None, []
    return None, (int(capability[0]), int(capability[1])), archs


def _arch_supported(capability: tuple[int, int], archs: list[str]) -> bool:
    """Native code for the GPU, or PTX for an older arch of the same major the driver can JIT."""
    major, minor = capability
    if f"sm_{major}{minor}" in archs:
        return True
    return any(
        a.startswith("compute_") and a[8:].isdigit() and int(a[8:]) <= major * 10 + minor
        and int(a[8:]) // 10 == major
        for a in archs
    )


def probe(
    torch: Any = None,
    find_spec: Callable[[str], Any] = importlib.util.find_spec,
) -> Availability:
    """``{mode: (available, reason)}`` for every acceleration mode.

    Reasons are named like the worker's fallbacks: ``"compile: no CUDA GPU"``,
    ``"flashinfer: package not installed; no CUDA GPU"``. ``torch`` and
    ``find_spec`` are parameters so tests can describe other machines.
    """
    if torch is None:
        try:
            import torch
        except ImportError:
            torch = None
    no_gpu, capability, archs = (
        ("torch is not installed", None, []) if torch is None else _gpu_facts(torch)
    )
    arch = f"sm_{capability[0]}{capability[1]}" if capability else None

    compile_problems: list[str] = []
    if no_gpu:
        compile_problems.append(no_gpu)
    elif not _arch_supported(capability, archs):
        compile_problems.append(f"GPU {arch} not in this torch build")
    if find_spec("triton") is None:
        compile_problems.append("triton not installed")

    flash_problems: list[str] = []
    if find_spec("flashinfer") is None:
        flash_problems.append("package not installed")
    if no_gpu:
        flash_problems.append(no_gpu)
    elif capability < FLASHINFER_MIN_CAPABILITY:
        flash_problems.append(f"GPU {arch} is older than sm_80")
    elif not _arch_supported(capability, archs):
        flash_problems.append(f"GPU {arch} not in this torch build")

    def verdict(prefix: str, problems: list[str]) -> tuple[bool, str | None]:
        return (False, f"{prefix}: {'; '.join(problems)}") if problems else (True, None)

    return {
        "off": (True, None),
        "compile": verdict("compile", compile_problems),
        "flashinfer": verdict("flashinfer", flash_problems),
        # CUDA graphs ride on the FlashInfer path: same requirements.
        "flashinfer-graph": verdict("flashinfer", flash_problems),
    }
