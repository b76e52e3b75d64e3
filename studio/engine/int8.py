"""int8 on the CPU: the transformer's linear projections as W8A8 integer GEMMs.

Weights are quantised once at load, symmetric per output channel (one fp32
scale per row, int8 values in [-127, 127]) and prepacked for oneDNN; the float
weights are then dropped. Activations are quantised per token (per row of the
input, symmetric, scale = max|x| / 127) on every call, so one loud token cannot
coarsen every other token's grid. The kernel is oneDNN's ``qlinear_pointwise``
(VNNI / AMX-INT8 where the CPU has them): it takes unsigned 8-bit activations,
so the per-token integers are shifted by 128 and handed over with zero point
128 and scale 1; the per-token scale multiplies the fp32 output afterwards.
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


def quantize_tokens(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows, in) fp32 -> integer-valued fp32 in [-127, 127] and (rows, 1) scales,
    symmetric per row (the caller casts: int8 for _int_mm, shifted uint8 for oneDNN)."""
    scale = x.abs().amax(dim=1, keepdim=True).clamp_min_(1e-12).div_(127.0)
    return torch.round(x / scale), scale


def onednn_int8_available() -> bool:
    ops = getattr(torch.ops, "onednn", None)
    try:
        return bool(ops is not None and hasattr(ops, "qlinear_prepack")
                    and hasattr(ops, "qlinear_pointwise") and torch.backends.mkldnn.is_available())
    except (AttributeError, RuntimeError):
        return False


class Int8Linear(nn.Module):
    """A bias-free ``nn.Linear`` replacement: int8 weights, per-token int8 activations.

    Input and output are fp32 (any leading shape). Holds no float weight. With
    ``passes=2`` each token is quantised twice, its value and then what rounding
    left of it (on that remainder's own scale), both rows going through ONE GEMM of
    twice the rows: activations then lose about 1/127 of what one pass loses, at
    twice the integer work.
    """

    def __init__(self, values_t: torch.Tensor, scale: torch.Tensor, kernel: str, passes: int = 1):
        super().__init__()
        if passes not in (1, 2):
            raise ValueError("passes is 1 or 2")
        self.in_features, self.out_features = values_t.shape
        self.kernel = kernel
        self.passes = passes
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
    def from_weight(cls, weight: torch.Tensor, kernel: str | None = None, passes: int = 1) -> Int8Linear:
        values_t, scale = quantize_weight(weight)
        return cls(values_t, scale, kernel or ("onednn" if onednn_int8_available() else "int_mm"), passes)

    @classmethod
    def from_linear(cls, linear: nn.Module, kernel: str | None = None, passes: int = 1) -> Int8Linear:
        if getattr(linear, "bias", None) is not None:
            raise ValueError("int8 projections here carry no bias (Qwen3 projections have none)")
        return cls.from_weight(linear.weight, kernel, passes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        flat = x.reshape(-1, self.in_features).to(torch.float32)
        values, token_scale = quantize_tokens(flat)
        if self.passes == 2:
            rest, rest_scale = quantize_tokens(flat - values * token_scale)
            values, token_scale = torch.cat((values, rest)), torch.cat((token_scale, rest_scale))
        if self.kernel == "onednn":
            shifted = values.add_(128.0).to(torch.uint8)
            out = torch.ops.onednn.qlinear_pointwise(
                shifted, 1.0, 128, self.packed, self.scale, self.zero_points, None,
                1.0, 0, torch.float32, "none", [], "")
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
                f"kernel={self.kernel}, passes={self.passes}")


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


def bf16_linear_available() -> bool:
    try:
        return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


# What an int8 load does to each projection kind: "int8" (one pass), "int8x2" (two
# activation passes), "bf16" (Bf16Linear; fp32 where oneDNN lacks bf16) or "fp32".
DEFAULT_PLAN = {name: "int8" for name in ATTENTION_PROJECTIONS + MLP_PROJECTIONS}


def _module_for(weight: torch.Tensor, how: str, kernel: str | None) -> nn.Module | None:
    """The module ``how`` makes of a projection weight; None keeps it float."""
    if how in ("int8", "int8x2"):
        return Int8Linear.from_weight(weight, kernel, 2 if how == "int8x2" else 1)
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
    total = 0
    with torch.inference_mode():
        for layer in llm.layers:
            for owner, names in ((layer.self_attn, ATTENTION_PROJECTIONS), (layer.mlp, MLP_PROJECTIONS)):
                for name in names:
                    old = getattr(owner, name)
                    if getattr(old, "bias", None) is not None:
                        raise ValueError("projections here carry no bias (Qwen3 projections have none)")
                    new = _module_for(old.weight, plan[name], kernel) or old
                    setattr(owner, name, new)
                    del old
                    n = new.in_features * new.out_features
                    total += {Int8Linear: n + 4 * new.out_features, Bf16Linear: 2 * n}.get(type(new), 4 * n)
    return total


_PROJECTION_WEIGHT = re.compile(r"llm\.layers\.\d+\.(?:self_attn|mlp)\.(\w+_proj)\.weight")


def projection_converter(kernel: str | None = None, plan: dict | None = None):
    """A ``checkpoint.build_network`` converter: each projection weight becomes its
    module (``plan``, default all int8) as soon as it is read, so an int8 load never
    holds the fp32 projections all at once. Non-finite weights are left as read, for
    the loader's NaN check to refuse."""
    plan = {**DEFAULT_PLAN, **(plan or {})}

    def convert(key: str, tensor: torch.Tensor):
        match = _PROJECTION_WEIGHT.fullmatch(key)
        how = plan.get(match.group(1)) if match else None
        if how in (None, "fp32") or tensor.dim() != 2 or not bool(torch.isfinite(tensor.sum())):
            return tensor
        with torch.inference_mode():
            return _module_for(tensor, how, kernel) or tensor

    return convert
