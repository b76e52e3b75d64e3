"""FlashInferRunner: the packed layer stack on FlashInfer kernels.

It replaces only the Qwen3 layer stack of the packed decode path
(``decode_packed(layers=runner)``); embedding, heads, schedule and commits stay
shared with the standard path. Per layer: fused RMSNorm, one QKV GEMM, per-head
q/k RMSNorm, RoPE applied in place from the packed positions, ragged prefill
attention planned once per layout (one "request" per packed document,
bidirectional), the output projection, and one gate/up GEMM into silu_and_mul.

No duplicate weights: apply() concatenates each layer's q/k/v (and gate/up)
weights into one tensor and then points the original Parameters at views of
it, so the old storage is freed and the modules keep working unchanged; the
extra memory is the workspace. unapply() drops everything the runner made, then
gives every Parameter its own storage again, one fused tensor at a time. No
module forward is patched.

All state lives on the runner: workspace, wrapper, fused tensors, the cos/sin
table and the CUDA-graph cache. Graph mode ("flashinfer-graph") pads the packed
length up to a bucket, keeps at most ``max_graphs`` captured graphs (least
recently used dropped first), all captured into one shared memory pool (they
replay one at a time on one stream), and refuses any thread but the one that
created it (the bookkeeping is studio.engine.accel.graph_cache's, shared with
the padded graph runner).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F

from studio.engine.accel.graph_cache import MAX_GRAPHS, GraphCache, GraphThreadError
from studio.engine.decode import DecodeItem
from studio.engine.model import OmniVoiceNet
from studio.engine.packed import LayerStack, PackedBatch, pack

WORKSPACE_BYTES = 128 * 1024 * 1024  # FlashInfer's recommended float workspace
GRAPH_BUCKET = 256  # graph mode pads the packed length up to a multiple of this


class RunnerError(RuntimeError):
    """The model has a shape or feature the runner does not handle."""


def load_flashinfer(platform) -> SimpleNamespace:
    """The four FlashInfer modules the runner calls, imported through ``platform``."""
    return SimpleNamespace(**{
        name: platform.import_module(f"flashinfer.{name}")
        for name in ("prefill", "norm", "rope", "activation")
    })


@dataclass
class _Fused:
    """One fused weight and the Parameters that are views of it."""

    tensor: torch.Tensor
    params: list[torch.nn.Parameter]


@dataclass
class _Graph:
    hidden: torch.Tensor  # static input (bucket, H)
    positions: torch.Tensor  # static (bucket,)
    wrapper: Any
    cos_sin: torch.Tensor  # the table the graph was captured with (kept alive)
    replay: Any = None
    out: torch.Tensor | None = None


class FlashInferRunner:
    def __init__(self, net: OmniVoiceNet, flashinfer, platform, graph: bool = False,
                 max_graphs: int = MAX_GRAPHS, bucket: int = GRAPH_BUCKET,
                 workspace_bytes: int = WORKSPACE_BYTES, on_stage=None):
        self.net = net
        self.on_stage = on_stage
        self.fi = flashinfer
        self.platform = platform
        self.graph = graph
        self.bucket = bucket
        self.workspace_bytes = workspace_bytes
        self.applied = False
        self.workspace: torch.Tensor | None = None
        self.wrapper = None
        self._fused: list[_Fused] = []
        self._layers: list[tuple[Any, torch.Tensor, torch.Tensor]] = []
        self._cos_sin: torch.Tensor | None = None
        # (documents, padded length) -> _Graph, bounded, one shared memory pool.
        self.graphs = GraphCache(platform, max_graphs)

    # ------------------------------------------------------------ apply / unapply

    @property
    def max_graphs(self) -> int:
        return self.graphs.max_graphs

    @property
    def _graph_pool(self) -> Any:
        return self.graphs.pool

    @property
    def device(self) -> torch.device:
        return self.net.audio_heads.weight.device

    @property
    def dtype(self) -> torch.dtype:
        return self.net.audio_heads.weight.dtype

    def apply(self) -> None:
        """Fuse the weights and create the workspace; on failure call unapply()."""
        llm = self.net.llm
        if any(t != "full_attention" for t in getattr(llm.config, "layer_types", None) or ()):
            raise RunnerError("only full-attention layers are supported")
        self.workspace = torch.empty(self.workspace_bytes, dtype=torch.uint8, device=self.device)
        if not self.graph:
            self.wrapper = self.fi.prefill.BatchPrefillWithRaggedKVCacheWrapper(self.workspace, "NHD")
        for layer in llm.layers[: llm.config.num_hidden_layers]:
            attn, mlp = layer.self_attn, layer.mlp
            qkv = self._fuse([attn.q_proj, attn.k_proj, attn.v_proj])
            gate_up = self._fuse([mlp.gate_proj, mlp.up_proj])
            self._layers.append((layer, qkv, gate_up))
        self.applied = True

    def warm_up(self) -> None:
        """Run every kernel once on a one-item dummy layout. FlashInfer compiles its
        kernels at first use, 81 to 172 s on an H200 the first time on a machine
        (cached after): said as a loading stage, not a first render that seems to hang."""
        stage = self.on_stage or (lambda _: None)
        stage("preparing FlashInfer's kernels (minutes the first time on this machine) …")
        spec = self.net.audio
        batch = pack([DecodeItem(torch.full((spec.codebooks, 12), spec.mask_id), 0, 12)],
                     spec.codebooks, self.device)
        lengths = [length for _, length in batch.documents]
        # An eager wrapper in graph mode too: the same kernels, and no graph captured
        # for a layout no render has.
        wrapper = self.wrapper or self.fi.prefill.BatchPrefillWithRaggedKVCacheWrapper(
            self.workspace, "NHD")
        self._plan(wrapper, lengths)
        with torch.inference_mode():
            hidden = self.net.embed(batch.ids, batch.audio_mask)
            self._stack(hidden[0], batch.positions[0], self._table(max(lengths)), wrapper)
        stage("FlashInfer ready")

    def _fuse(self, linears) -> torch.Tensor:
        if any(linear.bias is not None for linear in linears):
            raise RunnerError("projection biases are not supported")
        params = [linear.weight for linear in linears]
        with torch.no_grad():
            tensor = torch.cat([p.detach() for p in params])
            # Recorded before any Parameter moves, so unapply() undoes a partial fuse.
            entry = _Fused(tensor, [])
            self._fused.append(entry)
            offset = 0
            for p in params:
                rows = p.shape[0]
                p.data = tensor[offset : offset + rows]
                entry.params.append(p)
                offset += rows
        return tensor

    def unapply(self) -> None:
        """Give every Parameter its own storage back and drop everything the runner made.

        Often called when memory is short (after an out-of-memory render), so
        the order matters: graphs, wrappers and the workspace go first, then one
        fused tensor at a time is copied back into its Parameters and dropped,
        so at most one fused tensor's worth of extra memory is needed.
        """
        self.applied = False
        had_graphs = self.graphs.clear()
        self.wrapper = None
        self.workspace = None
        self._cos_sin = None
        self._layers.clear()  # from here on each fused tensor is held by its _Fused entry only
        if had_graphs:
            self.platform.empty_cache()  # the graphs' pool, before the copies need memory
        with torch.no_grad():
            while self._fused:
                entry = self._fused[-1]
                for p in entry.params:
                    if p.data.untyped_storage().data_ptr() == entry.tensor.untyped_storage().data_ptr():
                        p.data = p.data.clone()
                # Every Parameter has its own storage now: the fused tensor can go.
                self._fused.pop()
                del entry

    # ------------------------------------------------------------------- running

    def __call__(self, net: OmniVoiceNet, batch: PackedBatch) -> LayerStack:
        """The layer stack for this layout (``decode_packed``'s ``layers`` hook)."""
        if net is not self.net or not self.applied:
            raise RunnerError("this runner is not applied to this network")
        lengths = [length for _, length in batch.documents]
        positions = batch.positions[0]
        if self.graph:
            return self._graphed(lengths, positions)
        cos_sin = self._table(int(max(lengths)))
        self._plan(self.wrapper, lengths)

        def run(hidden: torch.Tensor) -> torch.Tensor:
            return self._stack(hidden[0], positions, cos_sin, self.wrapper).unsqueeze(0)

        return run

    def _table(self, length: int) -> torch.Tensor:
        """(positions, head_dim) float32 [cos | sin] from the model's own rotary embedding."""
        if self._cos_sin is None or self._cos_sin.shape[0] < length:
            size = max(length, 2 * (self._cos_sin.shape[0] if self._cos_sin is not None else 0), 1024)
            positions = torch.arange(size, device=self.device).unsqueeze(0)
            probe = torch.empty(0, dtype=torch.float32, device=self.device)
            cos, sin = self.net.llm.rotary_emb(probe, positions)
            half = cos.shape[-1] // 2
            self._cos_sin = torch.cat([cos[0, :, :half], sin[0, :, :half]], dim=-1).contiguous()
        return self._cos_sin

    def _plan(self, wrapper, lengths: list[int]) -> None:
        attn = self.net.llm.layers[0].self_attn
        config = self.net.llm.config
        # Host tensors: plan() reads them on the CPU anyway, so no device round trip.
        indptr = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int32)
        wrapper.plan(
            indptr, indptr, config.num_attention_heads, config.num_key_value_heads,
            attn.head_dim, causal=False, sm_scale=attn.scaling,
            q_data_type=self.dtype, kv_data_type=self.dtype,
        )

    def _stack(self, x: torch.Tensor, positions: torch.Tensor, cos_sin: torch.Tensor,
               wrapper) -> torch.Tensor:
        """(N, H) -> (N, H) through every layer."""
        fi, config = self.fi, self.net.llm.config
        heads, kv_heads = config.num_attention_heads, config.num_key_value_heads
        n = x.shape[0]
        for layer, qkv_w, gate_up_w in self._layers:
            attn = layer.self_attn
            dim = attn.head_dim
            h = fi.norm.rmsnorm(x, layer.input_layernorm.weight, layer.input_layernorm.variance_epsilon)
            q, k, v = F.linear(h, qkv_w).split([heads * dim, kv_heads * dim, kv_heads * dim], dim=-1)
            q = fi.norm.rmsnorm(q.reshape(-1, dim), attn.q_norm.weight, attn.q_norm.variance_epsilon)
            k = fi.norm.rmsnorm(k.reshape(-1, dim), attn.k_norm.weight, attn.k_norm.variance_epsilon)
            q, k = q.view(n, heads * dim), k.view(n, kv_heads * dim)
            fi.rope.apply_rope_with_cos_sin_cache_inplace(positions, q, k, dim, cos_sin, is_neox=True)
            out = wrapper.run(q.view(n, heads, dim), k.view(n, kv_heads, dim),
                              v.contiguous().view(n, kv_heads, dim))
            x = x + attn.o_proj(out.reshape(n, heads * dim))
            h = fi.norm.rmsnorm(x, layer.post_attention_layernorm.weight,
                                layer.post_attention_layernorm.variance_epsilon)
            x = x + layer.mlp.down_proj(fi.activation.silu_and_mul(F.linear(h, gate_up_w)))
        return x

    # ------------------------------------------------------------ CUDA graphs

    def check_thread(self) -> None:
        try:
            self.graphs.check_thread()
        except GraphThreadError as exc:
            raise RunnerError(str(exc)) from None

    def _graphed(self, lengths: list[int], positions: torch.Tensor) -> LayerStack:
        self.check_thread()
        total = sum(lengths)
        # At least one padding column, as its own document, so real documents never see it.
        padded = -(-(total + 1) // self.bucket) * self.bucket
        documents = [*lengths, padded - total]
        key = (len(documents), padded)
        entry = self.graphs.get(key)
        if entry is None:
            # A table covering the whole bucket: every layout that lands here fits it.
            entry = self._new_graph(key, documents, self._table(padded))
        else:
            self._plan(entry.wrapper, documents)
        entry.positions[:total].copy_(positions)
        entry.positions[total:].zero_()

        def run(hidden: torch.Tensor) -> torch.Tensor:
            self.check_thread()
            entry.hidden[:total].copy_(hidden[0])
            entry.hidden[total:].zero_()
            entry.replay()
            return entry.out[:total].unsqueeze(0)

        return run

    def _new_graph(self, key, documents: list[int], cos_sin) -> _Graph:
        count, padded = key
        buffers = [torch.zeros(count + 1, dtype=torch.int32, device=self.device) for _ in range(2)]
        wrapper = self.fi.prefill.BatchPrefillWithRaggedKVCacheWrapper(
            self.workspace, "NHD", use_cuda_graph=True,
            qo_indptr_buf=buffers[0], kv_indptr_buf=buffers[1],
        )
        hidden_size = self.net.llm.config.hidden_size
        entry = _Graph(
            hidden=torch.zeros(padded, hidden_size, dtype=self.dtype, device=self.device),
            positions=torch.zeros(padded, dtype=torch.long, device=self.device),
            wrapper=wrapper,
            cos_sin=cos_sin,
        )
        self._plan(wrapper, documents)
        entry.replay, entry.out = self.graphs.capture(
            lambda: self._stack(entry.hidden, entry.positions, entry.cos_sin, wrapper))
        return self.graphs.put(key, entry)
