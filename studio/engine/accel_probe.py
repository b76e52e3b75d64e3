"""Which acceleration paths this machine can run, and the named reason where not.

No Qt, no model: only what the installed torch build, the GPU and the installed
packages allow, so the Settings view can grey out an option before the user
picks it. The checks and the wording are the Accelerator's own
(studio.engine.accel.platform and .reasons), so the Settings view, the status
bar and the ``--json`` line name a problem the same way.
"""

from __future__ import annotations

import importlib.util
import platform as host
from collections.abc import Callable, Mapping
from typing import Any

from studio.engine.accel.accelerator import component
from studio.engine.accel.platform import (
    FLASHINFER_MIN_CAPABILITY,
    TorchPlatform,
    compile_any_arch,
    machine_problems,
)
from studio.engine.accel.reasons import reason, unavailable
from studio.engine.options import ACCEL_MODES

ACCEL_LABELS: dict[str, str] = {
    "off": "Off",
    "auto": "Auto (fastest measured as exact)",
    "graph": "CUDA graphs (exact)",
    "compile": "torch.compile",
    "flashinfer": "FlashInfer",
    "flashinfer-graph": "FlashInfer + CUDA graphs",
}

__all__ = ["ACCEL_LABELS", "FLASHINFER_MIN_CAPABILITY", "hardware", "probe"]

Availability = dict[str, tuple[bool, "str | None"]]


def probe(
    torch: Any = None,
    find_spec: Callable[[str], Any] = importlib.util.find_spec,
    environ: Mapping[str, str] | None = None,
    platform: Any = None,
) -> Availability:
    """``{mode: (available, reason)}`` for every acceleration mode.

    Reasons read like the worker's fallbacks: ``"compile: no CUDA GPU"``,
    ``"flashinfer: package not installed; no CUDA GPU"``. ``torch`` and
    ``find_spec`` are parameters so tests can describe other machines; the worker
    passes its Accelerator's ``platform`` so both describe the same machine.
    """
    if platform is None:
        if torch is None:
            try:
                import torch
            except ImportError:
                torch = None
        platform = TorchPlatform(torch, find_spec) if torch is not None else None
    try:
        any_arch = compile_any_arch(environ)
    except Exception:  # a malformed override is reported when compile is applied
        any_arch = False
    result: Availability = {"off": (True, None)}
    for mode in ACCEL_MODES[1:]:
        if mode == "auto":  # it picks among the CUDA paths: without CUDA it is just "off"
            no_gpu = reason("torch_missing") if platform is None else platform.gpu()[0]
            result[mode] = (True, None) if no_gpu is None else (False, unavailable(mode, [no_gpu]))
            continue
        name = component(mode)
        if platform is None:
            problems = [reason("torch_missing")]
        else:
            problems = machine_problems(name, platform, any_arch=name == "compile" and any_arch)
        result[mode] = (False, unavailable(name, problems)) if problems else (True, None)
    return result


def hardware(torch: Any = None, system: str | None = None, platform: Any = None) -> Availability:
    """Which devices and precisions Settings can offer on this machine, with the reason
    where not: ``{"device:cuda": ..., "device:mps": ..., "precision:fp16": ...}``.
    CPU, Auto, fp32 and bf16 work everywhere and are not listed. With the worker's
    ``platform`` the GPU is its (the same machine the acceleration list describes)."""
    if platform is not None and torch is None:
        torch = getattr(platform, "torch", None)
    if torch is None:
        try:
            import torch
        except ImportError:
            torch = None
    system = system or host.system()
    try:
        if platform is not None and callable(getattr(platform, "gpu", None)):
            cuda = platform.gpu()[0] is None  # no reason against it
        else:
            cuda = torch is not None and bool(torch.cuda.is_available())
    except Exception:  # a broken driver: said as no usable GPU
        cuda = False
    mps_backend = getattr(getattr(torch, "backends", None), "mps", None)
    try:
        mps = system == "Darwin" and mps_backend is not None and bool(mps_backend.is_available())
    except Exception:
        mps = False
    if system != "Darwin":
        no_mps = "Apple GPUs (MPS) are only on Macs"
    else:
        no_mps = "this Mac has no Apple GPU (MPS) that torch can use"
    return {
        "device:cuda": (True, None) if cuda else (False, "no CUDA GPU on this machine"),
        "device:mps": (True, None) if mps else (False, no_mps),
        "precision:fp16": (True, None) if cuda or mps else
        (False, "fp16 needs a GPU; on the CPU use fp32, bf16 or int8"),
    }
