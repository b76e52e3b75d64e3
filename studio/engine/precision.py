"""Which floating-point precision a render uses, and why.

``auto`` picks bf16 on a CPU that runs bf16 matrix work natively (AVX512-BF16 or
AMX on x86, the BF16 extension on Apple/ARM cores): there it is about twice as
fast as fp32 (docs/performance.md). On CUDA it picks the checkpoint's half
precision (bf16 where the GPU supports it, else fp16); everywhere else fp32,
because emulated bf16 is slower than fp32.
"""

from __future__ import annotations

import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from studio.errors import UserError

PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}

# /proc/cpuinfo flags that mean bf16 dot products in hardware.
_X86_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


@dataclass(frozen=True)
class PrecisionChoice:
    dtype: torch.dtype
    reason: str  # e.g. "CPU has native bf16", shown next to the precision


def _linux_cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    flags: set[str] = set()
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return flags
    for line in text.splitlines():
        key, _, value = line.partition(":")
        # x86 says "flags", ARM says "Features" (bf16 there is the "bf16" feature).
        if key.strip() in ("flags", "Features"):
            flags.update(value.split())
    return flags


def _macos_arm_bf16() -> bool:
    try:
        out = subprocess.run(["sysctl", "-n", "hw.optional.arm.FEAT_BF16"], capture_output=True,
                             text=True, timeout=5, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return False
    return out == "1"


def cpu_bf16_feature() -> str | None:
    """The CPU feature that makes bf16 native here (e.g. "avx512_bf16"), or None.

    Both the hardware and torch's oneDNN build must support it: a CPU flag that
    torch cannot use would still run bf16 through slow conversions.
    """
    mkldnn = getattr(torch.ops, "mkldnn", None)
    try:
        supported = bool(mkldnn is not None and mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        supported = False
    machine = platform.machine().lower()
    if sys.platform.startswith("linux"):
        flags = _linux_cpu_flags()
        for flag in _X86_BF16_FLAGS:
            if flag in flags and supported:
                return flag
        if machine in ("aarch64", "arm64") and "bf16" in flags:
            return "bf16"
        return None
    if sys.platform == "darwin" and machine == "arm64" and _macos_arm_bf16():
        return "FEAT_BF16"
    if machine in ("amd64", "x86_64") and supported:
        # Windows: no flag list to read; torch's own check (oneDNN's ISA
        # detection says AVX512-BF16 or AMX) is the best evidence.
        return "avx512_bf16"
    return None


def choose_precision(precision: str, device: torch.device,
                     bf16_feature=cpu_bf16_feature) -> PrecisionChoice:
    """The dtype for ``precision`` on ``device``, with a short reason."""
    if precision == "auto":
        if device.type == "cuda":
            if torch.cuda.is_bf16_supported():
                return PrecisionChoice(torch.bfloat16, "auto: CUDA GPU with bf16")
            return PrecisionChoice(torch.float16, "auto: CUDA GPU without bf16")
        if device.type == "cpu":
            feature = bf16_feature()
            if feature:
                return PrecisionChoice(torch.bfloat16, f"auto: CPU has native bf16 ({feature})")
            return PrecisionChoice(torch.float32, "auto: CPU has no native bf16")
        return PrecisionChoice(torch.float32, f"auto: fp32 on {device.type}")
    if precision not in PRECISIONS:
        raise UserError(f"Unknown precision {precision!r}; use auto, fp32, bf16 or fp16.")
    if precision == "fp16" and device.type == "cpu":
        raise UserError("fp16 is not supported on the CPU; choose the precision fp32 or bf16.")
    return PrecisionChoice(PRECISIONS[precision], "requested")


def precision_name(dtype: torch.dtype) -> str:
    return {v: k for k, v in PRECISIONS.items()}[dtype]
