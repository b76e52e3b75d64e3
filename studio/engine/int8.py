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

import torch
from torch import nn

# Projection modules of a Qwen3 layer that become int8 (attention and MLP).
ATTENTION_PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP_PROJECTIONS = ("gate_proj", "up_proj", "down_proj")


def quantize_weight(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(out, in) float weight -> (in, out) int8 values and (out,) fp32 scales.

    Symmetric per output channel: ``weight ~= values.T * scales[:, None]``.
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

    Input and output are fp32 (any leading shape). Holds no float weight.
    """

    def __init__(self, values_t: torch.Tensor, scale: torch.Tensor, kernel: str):
        super().__init__()
        self.in_features, self.out_features = values_t.shape
        self.kernel = kernel
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
    def from_weight(cls, weight: torch.Tensor, kernel: str | None = None) -> Int8Linear:
        values_t, scale = quantize_weight(weight)
        return cls(values_t, scale, kernel or ("onednn" if onednn_int8_available() else "int_mm"))

    @classmethod
    def from_linear(cls, linear: nn.Linear, kernel: str | None = None) -> Int8Linear:
        if linear.bias is not None:
            raise ValueError("int8 projections here carry no bias (Qwen3 projections have none)")
        return cls.from_weight(linear.weight, kernel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        flat = x.reshape(-1, self.in_features).to(torch.float32)
        values, token_scale = quantize_tokens(flat)
        if self.kernel == "onednn":
            shifted = values.add_(128.0).to(torch.uint8)
            out = torch.ops.onednn.qlinear_pointwise(
                shifted, 1.0, 128, self.packed, self.scale, self.zero_points, None,
                1.0, 0, torch.float32, "none", [], "")
            out.mul_(token_scale)
        else:
            out = torch._int_mm(values.to(torch.int8), self.packed).to(torch.float32)
            out.mul_(token_scale).mul_(self.scale)
        return out.view(*lead, self.out_features)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, kernel={self.kernel}"


def quantize_projections(llm: nn.Module, kernel: str | None = None) -> int:
    """Replace every attention and MLP projection of ``llm``'s layers with an Int8Linear,
    in place, freeing the float weights one at a time (the peak stays one weight above
    the int8 total). Returns the bytes the int8 weights and scales take."""
    total = 0
    with torch.inference_mode():
        for layer in llm.layers:
            for owner, names in ((layer.self_attn, ATTENTION_PROJECTIONS), (layer.mlp, MLP_PROJECTIONS)):
                for name in names:
                    old = getattr(owner, name)
                    new = Int8Linear.from_linear(old, kernel)
                    setattr(owner, name, new)
                    del old
                    total += new.in_features * new.out_features + 4 * new.out_features
    return total
