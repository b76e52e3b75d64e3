"""bf16 on the CPU: the packed layer stack with oneDNN-prepacked linear weights.

A plain bf16 ``F.linear`` on the CPU goes through oneDNN, which reorders the
weight into its blocked layout on every call. Reordering each weight once, up
front (``torch.ops.mkldnn._reorder_linear_weight``), saves that work on every
one of the 7 x 28 projections per step: about a fifth of the step time at full
size (docs/performance.md). The results differ from ``F.linear`` only in bf16
rounding; fp32 and the padded reference path never use this.

The prepacked weights are a second copy of the projection weights (about
0.9 GB at full size in bf16). They belong to a ``PrepackedLayers`` object the
engine owns; the network's own modules are never modified, so the padded path
and the standard packed stack keep working on the same network.
"""

from __future__ import annotations

import torch
from torch import nn

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


class _PackedLinear:
    """A bias-free nn.Linear whose weight oneDNN reordered once."""

    def __init__(self, linear: nn.Linear):
        if linear.bias is not None:
            raise ValueError("prepacked linears here carry no bias (Qwen3 projections have none)")
        self.weight = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach(), None)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.weight, None, "none", [], "")


class _Attention:
    """What ``packed._attention`` reads from a Qwen3Attention, projections prepacked."""

    def __init__(self, attn):
        self.q_proj, self.k_proj = _PackedLinear(attn.q_proj), _PackedLinear(attn.k_proj)
        self.v_proj, self.o_proj = _PackedLinear(attn.v_proj), _PackedLinear(attn.o_proj)
        self.q_norm, self.k_norm = attn.q_norm, attn.k_norm
        self.head_dim = attn.head_dim
        self.num_key_value_groups = attn.num_key_value_groups
        self.scaling = attn.scaling


class _Mlp:
    """Qwen3MLP: down(act(gate(x)) * up(x)), projections prepacked."""

    def __init__(self, mlp):
        self.gate, self.up, self.down = (_PackedLinear(mlp.gate_proj), _PackedLinear(mlp.up_proj),
                                         _PackedLinear(mlp.down_proj))
        self.act = mlp.act_fn

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(self.act(self.gate(x)) * self.up(x))


class _Layer:
    def __init__(self, layer):
        self.self_attn = _Attention(layer.self_attn)
        self.mlp = _Mlp(layer.mlp)
        self.input_layernorm = layer.input_layernorm
        self.post_attention_layernorm = layer.post_attention_layernorm


class _Llm:
    def __init__(self, llm):
        self.config = llm.config
        self.rotary_emb = llm.rotary_emb
        self.layers = [_Layer(layer) for layer in llm.layers[: llm.config.num_hidden_layers]]


class _NetView:
    """The parts of an OmniVoiceNet ``packed.layer_stack`` reads, with prepacked layers."""

    def __init__(self, net: OmniVoiceNet):
        self.llm = _Llm(net.llm)
        self.audio_heads = net.audio_heads


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
            self._view = _NetView(net)

    def __call__(self, net: OmniVoiceNet, batch: PackedBatch) -> LayerStack:
        if net is not self.net:
            raise ValueError("these prepacked layers were built for another network")
        return layer_stack(self._view, batch)  # type: ignore[arg-type]
