"""int8 on the CPU: the transformer's linear projections as W8A8 integer GEMMs.

Weights are quantised once at load, symmetric per output channel (one fp32
scale per row, int8 values in [-127, 127]) and prepacked for oneDNN; the float
weights are then dropped. Activations are quantised per token (per row of the
input, symmetric, scale = max|x| / 127) on every call, so one loud token cannot
coarsen every other token's grid. The kernel is oneDNN's ``qlinear_pointwise``
(VNNI / AMX-INT8 where the CPU has them): it takes unsigned 8-bit activations,
so the per-token integers are shifted by levels + 1 and handed over with that
zero point and scale 1; the per-token scale multiplies the fp32 output afterwards.
Without VNNI (AVX2, AVX-512 before Cascade Lake) oneDNN adds each pair of
u8 x s8 products into int16, which saturates past 32767: there activations get
63 levels instead of 127 (``activation_levels`` asks the kernel, not the flags).
Measured on this Zen 4 (benchmarks/bench_int8_kernels.py, docs/performance.md)
this was the fastest route that keeps per-token activations; ``torch._int_mm``
is the fallback where oneDNN's quantised ops are missing.

Everything else (embeddings, norms, attention, heads, the codec) stays fp32.
Memory: one byte per projection weight plus 4 bytes of scale per output row,
against 4 bytes per weight in fp32 (0.44 GB instead of 1.77 GB at full size).
"""

from __future__ import annotations

import re

import torch
from torch import nn

# Projection modules of a Qwen3 layer that become int8 (attention and MLP).
ATTENTION_PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP_PROJECTIONS = ("gate_proj", "up_proj", "down_proj")


def quantize_weight(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(out, in) float weight -> (in, out) int8 values and (out,) fp32 scales.

    Symmetric per output channel: ``weight ~= values.T * scales[:, None]``. Clipping
    each row's range to the one that rounds it best (0.75-1.0 x its max) was measured
    and dropped: at 127 levels a row of 1024 weights mostly loses more by clipping
    than its finer grid wins (first-step logits 4.09 % off fp32 instead of 4.12 %).
    """
    w = weight.detach().to(torch.float32)
    scale = w.abs().amax(dim=1).clamp_min(torch.finfo(torch.float32).tiny) / 127.0
    values = torch.round(w / scale[:, None]).clamp_(-127, 127).to(torch.int8)
    return values.t().contiguous(), scale.contiguous()


def quantize_tokens(x: torch.Tensor, levels: int = 127) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows, in) fp32 -> integer-valued fp32 in [-levels, levels] and (rows, 1) scales,
    symmetric per row (the caller casts: int8 for _int_mm, shifted uint8 for oneDNN)."""
    scale = x.abs().amax(dim=1, keepdim=True).clamp_min_(1e-12).div_(float(levels))
    return torch.round(x / scale), scale


def onednn_int8_available() -> bool:
    ops = getattr(torch.ops, "onednn", None)
    try:
        return bool(ops is not None and hasattr(ops, "qlinear_prepack")
                    and hasattr(ops, "qlinear_pointwise") and torch.backends.mkldnn.is_available())
    except (AttributeError, RuntimeError):
        return False


def _onednn_int8(x_u8: torch.Tensor, zero_point: int, packed: torch.Tensor, scale: torch.Tensor,
                 zero_points: torch.Tensor) -> torch.Tensor:
    return torch.ops.onednn.qlinear_pointwise(x_u8, 1.0, zero_point, packed, scale, zero_points, None,
                                              1.0, 0, torch.float32, "none", [], "")


def activation_levels(kernel: str) -> int:
    """How many levels each side of zero activations may use with ``kernel``: 127
    where it sums u8 x s8 products exactly, 63 where it saturates (oneDNN without
    VNNI: a pair of 255 x 127 products overflows int16). Probed with the worst case,
    so an ISA cap (ONEDNN_MAX_CPU_ISA) or a virtual machine's hidden flags count too."""
    if kernel != "onednn":
        return 127  # _int_mm takes signed int8 activations: pairs stay within int16
    rows, depth, cols = 8, 256, 64
    packed = torch.ops.onednn.qlinear_prepack(torch.full((cols, depth), 127, dtype=torch.int8), None)
    x = torch.full((rows, depth), 255, dtype=torch.uint8)
    out = _onednn_int8(x, 128, packed, torch.ones(cols), torch.zeros(cols, dtype=torch.long))
    return 127 if bool((out == depth * 127 * 127).all()) else 63


class Int8Linear(nn.Module):
    """A bias-free ``nn.Linear`` replacement: int8 weights, per-token int8 activations.

    Input and output are fp32 (any leading shape). Holds no float weight. With
    ``passes=2`` each token is quantised twice, its value and then what rounding
    left of it (on that remainder's own scale), both rows going through ONE GEMM of
    twice the rows: activations then lose about 1/127 of what one pass loses, at
    twice the integer work. ``levels``: see ``activation_levels`` (probed if None).
    """

    def __init__(self, values_t: torch.Tensor, scale: torch.Tensor, kernel: str, passes: int = 1,
                 levels: int | None = None):
        super().__init__()
        if passes not in (1, 2):
            raise ValueError("passes is 1 or 2")
        self.in_features, self.out_features = values_t.shape
        self.kernel = kernel
        self.passes = passes
        self.levels = activation_levels(kernel) if levels is None else levels
        if not 1 <= self.levels <= 127:
            raise ValueError("levels is between 1 and 127")
        self.register_buffer("scale", scale, persistent=False)
        if kernel == "onednn":
            # qlinear_prepack wants the (out, in) layout; the packed blob replaces it.
            packed = torch.ops.onednn.qlinear_prepack(values_t.t().contiguous(), None)
            self.register_buffer("packed", packed, persistent=False)
            self.register_buffer("zero_points", torch.zeros(self.out_features, dtype=torch.long),
                                 persistent=False)
        else:
            self.register_buffer("packed", values_t, persistent=False)

    @classmethod
    def from_weight(cls, weight: torch.Tensor, kernel: str | None = None, passes: int = 1,
                    levels: int | None = None) -> Int8Linear:
        values_t, scale = quantize_weight(weight)
        return cls(values_t, scale, kernel or default_kernel(), passes, levels)

    @classmethod
    def from_linear(cls, linear: nn.Module, kernel: str | None = None, passes: int = 1,
                    levels: int | None = None) -> Int8Linear:
        if getattr(linear, "bias", None) is not None:
            raise ValueError("int8 projections here carry no bias (Qwen3 projections have none)")
        return cls.from_weight(linear.weight, kernel, passes, levels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        flat = x.reshape(-1, self.in_features).to(torch.float32)
        values, token_scale = quantize_tokens(flat, self.levels)
        if self.passes == 2:
            rest, rest_scale = quantize_tokens(flat - values * token_scale, self.levels)
            values, token_scale = torch.cat((values, rest)), torch.cat((token_scale, rest_scale))
        if self.kernel == "onednn":
            zero_point = self.levels + 1
            shifted = values.add_(float(zero_point)).to(torch.uint8)
            out = _onednn_int8(shifted, zero_point, self.packed, self.scale, self.zero_points)
            out.mul_(token_scale)
        else:
            out = torch._int_mm(values.to(torch.int8), self.packed).to(torch.float32)
            out.mul_(token_scale).mul_(self.scale)
        if self.passes == 2:
            rows = flat.shape[0]
            out = out[:rows].add_(out[rows:])
        return out.view(*lead, self.out_features)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"kernel={self.kernel}, passes={self.passes}, levels={self.levels}")


class Bf16Linear(nn.Module):
    """A bias-free projection on a oneDNN-prepacked bf16 weight with fp32 input and
    output, for the projections an int8 plan keeps out of int8: the rest of the int8
    network stays fp32 (the bf16 precision's ``cpu_layers.PackedLinear`` takes bf16)."""

    def __init__(self, weight: torch.Tensor):
        super().__init__()
        self.out_features, self.in_features = weight.shape
        packed = torch.ops.mkldnn._reorder_linear_weight(weight.detach().to(torch.bfloat16), None)
        self.register_buffer("packed", packed, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.ops.mkldnn._linear_pointwise(x.to(torch.bfloat16), self.packed, None, "none", [], "")
        return out.to(torch.float32)


def default_kernel() -> str:
    return "onednn" if onednn_int8_available() else "int_mm"


def bf16_linear_available() -> bool:
    try:
        return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


# What an int8 load does to each projection kind: "int8" (one pass), "int8x2" (two
# activation passes), "bf16" (Bf16Linear; fp32 where oneDNN lacks bf16) or "fp32".
# A plan may also name one layer's projection, "3.gate_proj": that entry wins there.
DEFAULT_PLAN = {name: "int8" for name in ATTENTION_PROJECTIONS + MLP_PROJECTIONS}


def gate_up_plan(layers: int, edge: int, rest: str) -> tuple[tuple[str, str], ...]:
    """Only the MLP's gate and up projections int8, and not in the first and last ``edge``
    of ``layers`` layers (an early layer's rounding passes through every later one); every
    other projection ``rest`` ("bf16" or "fp32"). The closest plans to fp32 screened
    (docs/performance.md, "Which projections hurt")."""
    plan = [(kind, rest) for kind in ATTENTION_PROJECTIONS + ("down_proj",)]
    for layer in [*range(edge), *range(layers - edge, layers)]:
        plan += [(f"{layer}.gate_proj", rest), (f"{layer}.up_proj", rest)]
    return tuple(plan)


def planned(plan: dict, layer: int, kind: str) -> str | None:
    """What ``plan`` makes of projection ``kind`` in layer ``layer`` (index from 0)."""
    return plan.get(f"{layer}.{kind}", plan.get(kind))


def _module_for(weight: torch.Tensor, how: str, kernel: str, levels: int) -> nn.Module | None:
    """The module ``how`` makes of a projection weight; None keeps it float."""
    if how in ("int8", "int8x2"):
        return Int8Linear.from_weight(weight, kernel, 2 if how == "int8x2" else 1, levels)
    if how == "bf16" and bf16_linear_available():
        return Bf16Linear(weight)
    if how in ("bf16", "fp32"):
        return None
    raise ValueError(f"unknown projection treatment {how!r}")


def quantize_projections(llm: nn.Module, kernel: str | None = None, plan: dict | None = None) -> int:
    """Replace every attention and MLP projection of ``llm``'s layers as ``plan`` says
    (default: all int8), in place, freeing the float weights one at a time (the peak
    stays one weight above the new total). Returns the bytes the new weights take."""
    plan = {**DEFAULT_PLAN, **(plan or {})}
    kernel = kernel or default_kernel()
    levels = activation_levels(kernel)
    total = 0
    with torch.inference_mode():
        for index, layer in enumerate(llm.layers):
            for owner, names in ((layer.self_attn, ATTENTION_PROJECTIONS), (layer.mlp, MLP_PROJECTIONS)):
                for name in names:
                    old = getattr(owner, name)
                    if getattr(old, "bias", None) is not None:
                        raise ValueError("projections here carry no bias (Qwen3 projections have none)")
                    new = _module_for(old.weight, planned(plan, index, name), kernel, levels) or old
                    setattr(owner, name, new)
                    del old
                    n = new.in_features * new.out_features
                    total += {Int8Linear: n + 4 * new.out_features, Bf16Linear: 2 * n}.get(type(new), 4 * n)
    return total


_PROJECTION_WEIGHT = re.compile(r"llm\.layers\.(\d+)\.(?:self_attn|mlp)\.(\w+_proj)\.weight")


def projection_converter(kernel: str | None = None, plan: dict | None = None, levels: int | None = None):
    """A ``checkpoint.build_network`` converter: each projection weight becomes its
    module (``plan``, default all int8) as soon as it is read, so an int8 load never
    holds the fp32 projections all at once. Non-finite weights are left as read, for
    the loader's NaN check to refuse."""
    plan = {**DEFAULT_PLAN, **(plan or {})}
    kernel = kernel or default_kernel()
    levels = activation_levels(kernel) if levels is None else levels

    def convert(key: str, tensor: torch.Tensor):
        match = _PROJECTION_WEIGHT.fullmatch(key)
        how = planned(plan, int(match.group(1)), match.group(2)) if match else None
        if how in (None, "fp32") or tensor.dim() != 2 or not bool(torch.isfinite(tensor.sum())):
            return tensor
        with torch.inference_mode():
            return _module_for(tensor, how, kernel, levels) or tensor

    return convert
