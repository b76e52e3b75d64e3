"""Which floating-point precision a render uses, and why.

``auto`` picks bf16 on a CPU that runs bf16 matrix work natively (AVX512-BF16 or
AMX on x86, the BF16 extension on Apple/ARM cores): there it is about twice as
fast as fp32 (docs/performance.md). On CUDA it picks the checkpoint's half
precision (bf16 where the GPU supports it, else fp16); everywhere else fp32,
because emulated bf16 is slower than fp32.

``int8`` (CPU only) runs the transformer's projections as int8 GEMMs
(studio.engine.int8) and everything else in fp32. ``auto`` picks it only on a
CPU class listed in ``INT8_VERDICTS`` as measured faster per utterance than the
class's other choice AND at least as close to fp32 as bf16 (docs/performance.md).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from studio.engine.int8 import gate_up_plan, onednn_int8_available
from studio.engine.options import PRECISION_CHOICES
from studio.errors import UserError

# Each precision and the dtype of the network's float tensors under it; int8 keeps
# fp32 for everything but the projections. The one list the CLI, Settings and serve offer.
PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16,
              "int8": torch.float32}
assert PRECISION_CHOICES == ("auto", *PRECISIONS), "options.PRECISION_CHOICES lists these"

# /proc/cpuinfo flags that mean bf16 dot products in hardware.
_X86_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
# ...and int8 dot products, best first: AMX tiles, VNNI, then plain AVX2 (no VNNI: pairs of
# products add in 16 bits, so activations get 7 bits, int8.activation_levels).
_X86_INT8_FLAGS = ("amx_int8", "avx512_vnni", "avx_vnni", "avx2")


@dataclass(frozen=True)
class Int8Verdict:
    """What a measured run of benchmarks/bench_int8.py on one CPU class decided."""

    picks_int8: bool
    evidence: str  # the measurement, shown in the reason
    plan: tuple[tuple[str, str], ...] = ()  # int8.DEFAULT_PLAN overrides; () = all int8


# CPU class (the bf16 feature, else the int8 feature) -> measured verdict. A class not
# listed was not measured: auto keeps its previous choice there.
INT8_VERDICTS: dict[str, Int8Verdict] = {
    # Zen 4, 2026-12-05: int8 projections were faster but further from fp32 than bf16
    # (full-size random checkpoint, 8 steps: token agreement 0.54 vs 0.70; with
    # realistic head margins 0.32 vs 0.76; first-step logits 4.1 % vs 1.4 % off).
    # Then every scheme in docs/performance.md was screened on the margins checkpoint's
    # first-step logits (bench_int8_variants.py): two activation passes 3.3 %,
    # SmoothQuant 3.5 %, clipped weight rows 4.1 %; the closest, gate/up int8 with the
    # other projections bf16 (fp32 around them), 1.59 % against bf16's 1.41 %, and
    # rendered end to end (8 greedy steps) 0.51 token agreement against bf16's 0.56.
    # None is at least as close as bf16, so auto stays bf16 here.
    # Later the same day: gate/up int8 except in layers 0, 1, 26, 27, the rest bf16
    # (int8.gate_up_plan(28, 2, "bf16")) screened at 1.21 % and rendered 0.73 token
    # agreement against bf16's 0.69 (4 renders), but ran only 1.01-1.04x bf16 on a quiet
    # machine, and its layers were picked on random hidden states: not enough to change
    # what every Zen 4 user hears, so auto stays bf16.
    "avx512_bf16": Int8Verdict(False, "no int8 plan measured clearly faster than bf16 and as "
                                      "close to fp32 on a Zen 4"),
    # AVX2 without VNNI (7-bit activations), measured on the Zen 4 with every library
    # capped to AVX2 (ONEDNN_MAX_CPU_ISA, ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS),
    # 2026-12-05, quiet: reference 88.5 s, packed fp32 72.2 s (auto's choice until then),
    # bf16 (emulated) 246 s, every projection int8 42.5 s (token agreement with fp32 0.25,
    # bf16's 0.77), this plan 60.3 s: 1.20x packed fp32, agreement 0.84. Against fp32 on
    # the margins checkpoint: first-step logits 1.24 % off (bf16 1.42 %); 8 renders (two
    # cases x four seeds, 8 steps) token agreement 0.77 (min 0.52) against bf16's 0.73
    # (min 0.47), log-mel L1 0.49 against 0.51. Faster than fp32 and at least as close as
    # bf16, so auto picks it. Its fp32 edge layers were found on random hidden states:
    # re-screen them on the real weights (docs/performance.md).
    "avx2": Int8Verdict(True, "gate/up int8 but the edge layers: 1.20x fp32, 0.77 token "
                              "agreement with fp32 against bf16's 0.73, AVX2 without VNNI",
                        gate_up_plan(layers=28, edge=2, rest="fp32")),
}


@dataclass(frozen=True)
class PrecisionChoice:
    dtype: torch.dtype
    reason: str  # e.g. "CPU has native bf16", shown next to the precision
    name: str = ""  # "int8", "bf16", ...; empty means the dtype's name
    plan: tuple[tuple[str, str], ...] = ()  # int8 only: what the load makes of each projection

    def __post_init__(self):
        if not self.name:
            object.__setattr__(self, "name", precision_name(self.dtype))


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


def cpu_int8_feature() -> str | None:
    """The CPU feature that makes int8 dot products fast here (e.g. "avx512_vnni"), or None."""
    if not (sys.platform.startswith("linux") and onednn_int8_available()):
        return None
    flags = _linux_cpu_flags()
    return next((f for f in _X86_INT8_FLAGS if f in flags), None)


def _auto_int8(bf16: str | None, int8_feature) -> PrecisionChoice | None:
    cpu_class = bf16 or int8_feature()
    verdict = INT8_VERDICTS.get(cpu_class) if cpu_class else None
    if verdict is None or not verdict.picks_int8 or int8_feature() is None:
        return None
    return PrecisionChoice(torch.float32, f"auto: int8 measured faster and as accurate as bf16 "
                                          f"on {cpu_class} ({verdict.evidence})", "int8",
                           verdict.plan)


def choose_precision(precision: str, device: torch.device,
                     bf16_feature=cpu_bf16_feature, int8_feature=cpu_int8_feature) -> PrecisionChoice:
    """The dtype for ``precision`` on ``device``, with a short reason."""
    if precision == "auto":
        if device.type == "cuda":
            if torch.cuda.is_bf16_supported():
                return PrecisionChoice(torch.bfloat16, "auto: CUDA GPU with bf16")
            return PrecisionChoice(torch.float16, "auto: CUDA GPU without bf16")
        if device.type == "cpu":
            feature = bf16_feature()
            int8 = _auto_int8(feature, int8_feature)
            if int8 is not None:
                return int8
            if feature:
                return PrecisionChoice(torch.bfloat16, f"auto: CPU has native bf16 ({feature})")
            return PrecisionChoice(torch.float32, "auto: CPU has no native bf16")
        return PrecisionChoice(torch.float32, f"auto: fp32 on {device.type}")
    if precision not in PRECISIONS:
        raise UserError(f"Unknown precision {precision!r}; use {', '.join(PRECISION_CHOICES)}.")
    if precision == "fp16" and device.type == "cpu":
        raise UserError("fp16 is not supported on the CPU; choose the precision fp32, bf16 or int8.")
    if precision == "int8" and device.type != "cpu":
        raise UserError(f"int8 runs on the CPU only; choose the device cpu, or the precision "
                        f"auto for {device.type}.")
    return PrecisionChoice(PRECISIONS[precision], "requested", precision)


def precision_name(dtype: torch.dtype) -> str:
    """The float precision of ``dtype`` (int8 renders are named by Engine.precision)."""
    return {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]
