"""Packed classifier-free-guidance decoding: the same steps as ``decode``, no padding.

The padded path lays a batch out as 2B rows of one width with a dense
(2B, 1, S, S) boolean mask, so it pays for padding columns and for an S x S
mask. Here every document (each item's conditional sequence, then each item's
unconditional target) is concatenated into ONE row, each with its own position
ids restarting at 0, exactly the positions its padded row gives its real tokens.
The Qwen3 layers run on that row with their own modules and weights, except that
attention is computed per document (bidirectional, no mask): documents of equal
length share one ``scaled_dot_product_attention`` call. The audio heads run only
on the target positions, and every item's update is ``decode.commit``, the same
function the padded path calls.

Results match the padded path up to float summation order (the attention and
matmul kernels see other shapes); with greedy settings the tokens are equal on
the conformance cases, see tests/engine/test_packed.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from transformers.models.qwen3.modeling_qwen3 import apply_rotary_pos_emb, repeat_kv

from studio.engine.decode import (
    Cancelled,
    DecodeItem,
    StepCallback,
    commit,
    start_state,
)
from studio.engine.model import OmniVoiceNet
from studio.engine.options import DecodeOptions


@dataclass
class PackedBatch:
    """One packed row and where each document and each target sits in it."""

    ids: torch.Tensor  # (1, C, N)
    audio_mask: torch.Tensor  # (1, N)
    positions: torch.Tensor  # (1, N), restarting at 0 in every document
    documents: list[tuple[int, int]]  # (start, length) of every document
    cond_targets: list[slice]  # item i's target columns in its conditional document
    uncond_targets: list[slice | None]  # item i's unconditional document (None: not run)
    head_index: torch.Tensor  # (M,) the columns the audio heads run on


def pack(items: Sequence[DecodeItem], codebooks: int, device, with_uncond: bool = True) -> PackedBatch:
    """Conditional documents first, then (with guidance) the unconditional ones."""
    pieces, masks, positions, documents = [], [], [], []
    cond_targets: list[slice] = []
    uncond_targets: list[slice | None] = []
    start = 0

    def add(ids: torch.Tensor, audio_start: int) -> int:
        nonlocal start
        length = ids.shape[1]
        pieces.append(ids.to(device))
        mask = torch.zeros(length, dtype=torch.bool, device=device)
        mask[audio_start:] = True
        masks.append(mask)
        positions.append(torch.arange(length, device=device))
        documents.append((start, length))
        begin, start = start, start + length
        return begin

    for item in items:
        begin = add(item.cond_ids, item.audio_start)
        end = begin + item.cond_ids.shape[1]
        cond_targets.append(slice(end - item.target_len, end))
    for item in items:
        if not with_uncond:
            uncond_targets.append(None)
            continue
        begin = add(item.cond_ids[:, -item.target_len :], 0)
        uncond_targets.append(slice(begin, begin + item.target_len))
    heads = [torch.arange(s.start, s.stop, device=device) for s in cond_targets]
    heads += [torch.arange(s.start, s.stop, device=device) for s in uncond_targets if s is not None]
    return PackedBatch(
        ids=torch.cat(pieces, dim=1).unsqueeze(0).contiguous(),
        audio_mask=torch.cat(masks).unsqueeze(0),
        positions=torch.cat(positions).unsqueeze(0),
        documents=documents,
        cond_targets=cond_targets,
        uncond_targets=uncond_targets,
        head_index=torch.cat(heads),
    )


def _length_groups(documents: list[tuple[int, int]]) -> list[tuple[int, list[int]]]:
    """(length, [starts]) for every distinct document length."""
    groups: dict[int, list[int]] = {}
    for start, length in documents:
        groups.setdefault(length, []).append(start)
    return list(groups.items())


def _gather(x: torch.Tensor, cols: torch.Tensor, count: int) -> torch.Tensor:
    """(1, heads, count * len, d) columns of equal-length documents -> (count, heads, len, d)."""
    return x[:, :, cols].view(x.shape[1], count, -1, x.shape[-1]).transpose(0, 1)


def _attention(attn, hidden: torch.Tensor, cos, sin, groups) -> torch.Tensor:
    """Qwen3Attention.forward on the packed row, attention per document, no mask."""
    shape = (*hidden.shape[:-1], -1, attn.head_dim)
    q = attn.q_norm(attn.q_proj(hidden).view(shape)).transpose(1, 2)
    k = attn.k_norm(attn.k_proj(hidden).view(shape)).transpose(1, 2)
    v = attn.v_proj(hidden).view(shape).transpose(1, 2)
    q, k = apply_rotary_pos_emb(q, k, cos, sin)
    k = repeat_kv(k, attn.num_key_value_groups)
    v = repeat_kv(v, attn.num_key_value_groups)
    out = torch.empty_like(q)  # (1, heads, N, head_dim)
    for length, starts in groups:
        if len(starts) == 1:
            s = slice(starts[0], starts[0] + length)
            out[:, :, s] = F.scaled_dot_product_attention(
                q[:, :, s], k[:, :, s], v[:, :, s], scale=attn.scaling
            )
            continue
        cols = torch.cat([torch.arange(s, s + length, device=q.device) for s in starts])
        res = F.scaled_dot_product_attention(
            _gather(q, cols, len(starts)), _gather(k, cols, len(starts)),
            _gather(v, cols, len(starts)), scale=attn.scaling,
        )
        out[:, :, cols] = res.transpose(0, 1).reshape(1, q.shape[1], -1, q.shape[-1])
    out = out.transpose(1, 2).reshape(*hidden.shape[:-1], -1)
    return attn.o_proj(out)


LayerStack = Callable[[torch.Tensor], torch.Tensor]
# Makes the layer stack for one layout: called once per decode call, so a
# runner can plan its kernels for the documents once and reuse the plan every step.
Layers = Callable[[OmniVoiceNet, PackedBatch], LayerStack]


def dense_block(layer, hidden: torch.Tensor) -> torch.Tensor:
    """A layer's second half: post-attention norm, MLP and residual."""
    return hidden + layer.mlp(layer.post_attention_layernorm(hidden))


def layer_stack(net: OmniVoiceNet, batch: PackedBatch, dense=dense_block) -> LayerStack:
    """The standard Qwen3 layers over this layout: (1, N, H) hidden -> (1, N, H).

    ``dense`` computes each layer's second half (torch.compile swaps in a compiled one).
    """
    llm = net.llm
    if any(t != "full_attention" for t in getattr(llm.config, "layer_types", None) or ()):
        raise NotImplementedError("packed decoding supports full-attention layers only")
    weight = net.audio_heads.weight  # rotary_emb reads only the dtype and device of its input
    cos, sin = llm.rotary_emb(weight, batch.positions)
    groups = _length_groups(batch.documents)
    layers = llm.layers[: llm.config.num_hidden_layers]

    def run(hidden: torch.Tensor) -> torch.Tensor:
        for layer in layers:
            hidden = hidden + _attention(layer.self_attn, layer.input_layernorm(hidden), cos, sin, groups)
            hidden = dense(layer, hidden)
        return hidden

    return run


def packed_logits(net: OmniVoiceNet, batch: PackedBatch, stack: LayerStack | None = None) -> torch.Tensor:
    """(M, C, V) logits at ``batch.head_index``, in the network's dtype."""
    stack = stack if stack is not None else layer_stack(net, batch)
    hidden = stack(net.embed(batch.ids, batch.audio_mask))
    picked = net.llm.norm(hidden[0, batch.head_index])
    spec = net.audio
    return net.audio_heads(picked).view(-1, spec.codebooks, spec.vocab_size)


@torch.inference_mode()
def decode_packed(
    net: OmniVoiceNet,
    items: Sequence[DecodeItem],
    options: DecodeOptions,
    on_step: StepCallback | None = None,
    cancel: threading.Event | None = None,
    layers: Layers | None = None,
) -> list[torch.Tensor]:
    """``decode`` with packed documents; same arguments, same result.

    ``layers`` replaces the standard layer stack (an accelerated runner, see
    studio.engine.accel); everything else, the schedule and every commit, is shared.
    """
    spec = net.audio
    device = net.audio_heads.weight.device
    # With guidance 0 the unconditional logits are never read, so they are not computed.
    guided = options.guidance_scale != 0
    batch = pack(items, spec.codebooks, device, with_uncond=guided)
    targets, schedules, layer_penalty = start_state(items, spec, options, device)
    # Row offsets of every target inside the (M, C, V) head output.
    offsets, row = [], 0
    for item in items:
        offsets.append(row)
        row += item.target_len
    stack = (layers or layer_stack)(net, batch)
    uncond_offsets = []
    for item in items:
        uncond_offsets.append(row if guided else None)
        row += item.target_len if guided else 0

    for step in range(options.num_step):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        logits = packed_logits(net, batch, stack).to(torch.float32)
        for i, item in enumerate(items):
            k = schedules[i][step]
            if k <= 0:
                continue
            span = item.target_len
            cond = logits[offsets[i] : offsets[i] + span].permute(1, 0, 2).unsqueeze(0)
            uncond = None
            if guided:
                u = uncond_offsets[i]
                uncond = logits[u : u + span].permute(1, 0, 2).unsqueeze(0)
            current = targets[i]
            commit(current, cond, uncond, k, options, spec.mask_id, layer_penalty, item.generator)
            batch.ids[0, :, batch.cond_targets[i]] = current
            if guided:
                batch.ids[0, :, batch.uncond_targets[i]] = current
        if on_step is not None:
            on_step(step + 1, options.num_step)
    return targets
