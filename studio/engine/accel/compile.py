"""torch.compile for the packed layer stack, gated on what the torch build can compile for.

Inductor emits code only for the GPU archs the torch build was made for; on any
other GPU (a brand-new card on an older wheel) compiled kernels fail at run time,
so compile is allowed only when the GPU's sm_XY (or PTX of its major) is in
``torch.cuda.get_arch_list()``. ``OMNIVOICE_COMPILE_ANY_ARCH=1`` lifts that gate
for a user who knows better; a failure then still falls back, with its reason.

What is compiled: each layer's dense part (post-attention RMSNorm + SiLU MLP +
residual) as one function of tensors only, shared by every layer: the weights
are arguments, so 28 layers are one graph (a module argument would guard on the
module and recompile per layer). Attention stays the standard per-document
path, so a new layout never forces a new graph. Nothing is patched on the
modules. torch.compile caches compiled code on the function's code object,
process-wide, so unapply() resets the compiler (``platform.reset_compiler()``):
nothing compiled outlives the runner that compiled it.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from studio.engine.decode import DecodeItem
from studio.engine.model import OmniVoiceNet
from studio.engine.packed import LayerStack, PackedBatch, layer_stack, pack

Stage = Callable[[str], None]


def dense_math(hidden, norm_weight, eps: float, gate, up, down):
    """Qwen3's post-attention RMSNorm, SiLU MLP and residual, the same operations in order."""
    x = hidden.to(torch.float32)
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    h = norm_weight * x.to(hidden.dtype)
    return hidden + F.linear(F.silu(F.linear(h, gate)) * F.linear(h, up), down)


class CompileRunner:
    """A ``decode_packed`` layers hook whose dense parts run through ``platform.compile``."""

    def __init__(self, net: OmniVoiceNet, platform, on_stage: Stage | None = None):
        self.net = net
        self.platform = platform
        self.on_stage = on_stage
        self.applied = False
        self._dense = None

    def apply(self) -> None:
        act = getattr(self.net.llm.config, "hidden_act", "silu")
        if act != "silu":
            raise RuntimeError(f"compile supports SiLU MLPs only, not {act}")
        compiled = self.platform.compile(dense_math)

        def dense(layer, hidden):
            norm, mlp = layer.post_attention_layernorm, layer.mlp
            return compiled(hidden, norm.weight, norm.variance_epsilon, mlp.gate_proj.weight,
                            mlp.up_proj.weight, mlp.down_proj.weight)

        self._dense = dense
        self.applied = True

    def unapply(self) -> None:
        self._dense = None
        self.applied = False
        self.platform.reset_compiler()

    def warm_up(self) -> None:
        """Compile now, on a two-document dummy layout, so the first render is not the slow one."""
        stage = self.on_stage or (lambda _: None)
        stage("compiling the network (first run, may take a minute) …")
        spec, device = self.net.audio, self.net.audio_heads.weight.device
        items = [DecodeItem(torch.full((spec.codebooks, n), spec.mask_id), 0, n) for n in (12, 7)]
        batch = pack(items, spec.codebooks, device)
        with torch.inference_mode():
            self(self.net, batch)(self.net.embed(batch.ids, batch.audio_mask))
        stage("compiled")

    def __call__(self, net: OmniVoiceNet, batch: PackedBatch) -> LayerStack:
        if net is not self.net or not self.applied:
            raise RuntimeError("this compile runner is not applied to this network")
        return layer_stack(net, batch, dense=self._dense)
