"""bf16 on the CPU: the packed layer stack with oneDNN-prepacked linear weights.

A plain bf16 ``F.linear`` on the CPU goes through oneDNN, which reorders the
weight into its blocked layout on every call. Reordering each weight once, up
front (``torch.ops.mkldnn._reorder_linear_weight``), saves that work on every
one of the 7 x 28 projections per step: about a fifth of the step time at full
size (docs/performance.md). The results differ from ``F.linear`` only in bf16
rounding; fp32 and the padded reference path never use this.

Prepacking replaces the network's projection modules in place (a
``PackedLinear`` holds the reordered weight and nothing else), so the bf16
path keeps ONE copy of the projection weights: keeping the plain weights
beside the prepacked ones cost 0.9 GB at full size. The padded path and the
standard packed stack call the same modules, so they run on the prepacked
weights too (bf16 rounding aside, the same arithmetic).
"""

from __future__ import annotations

import torch
from torch import nn

from studio.engine.int8 import ATTENTION_PROJECTIONS, MLP_PROJECTIONS
from studio.engine.model import OmniVoiceNet
from studio.engine.packed import LayerStack, PackedBatch, layer_stack


def prepack_supported(net: OmniVoiceNet) -> bool:
    """True where prepacking helps: bf16 weights on a CPU whose oneDNN runs bf16."""
    weight = net.audio_heads.weight
    if weight.device.type != "cpu" or weight.dtype != torch.bfloat16:
        return False
    try:
        return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


class PackedLinear(nn.Module):
    """A bias-free nn.Linear whose weight oneDNN reordered once; holds no other copy."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        if linear.bias is not None:
            raise ValueError("prepacked linears here carry no bias (Qwen3 projections have none)")
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.register_buffer("packed", torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach(), None),
                             persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.packed, None, "none", [], "")


class PrepackedLayers:
    """A ``packed.Layers`` factory: the standard packed stack on prepacked weights.

    Build it once per loaded network (it reorders every projection weight, about
    a second at full size) and pass it as ``decode_packed(..., layers=...)``.
    """

    def __init__(self, net: OmniVoiceNet):
        if not prepack_supported(net):
            raise ValueError("prepacked layers need bf16 weights on a CPU with oneDNN bf16")
        self.net = net
        with torch.inference_mode():
            for layer in net.llm.layers:
                for owner, names in ((layer.self_attn, ATTENTION_PROJECTIONS), (layer.mlp, MLP_PROJECTIONS)):
                    for name in names:
                        if not isinstance(getattr(owner, name), PackedLinear):
                            setattr(owner, name, PackedLinear(getattr(owner, name)))

    def __call__(self, net: OmniVoiceNet, batch: PackedBatch) -> LayerStack:
        if net is not self.net:
            raise ValueError("these prepacked layers were built for another network")
        return layer_stack(net, batch)
