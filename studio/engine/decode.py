"""Iterative masked decoding with classifier-free guidance.

Every target frame starts as the mask id in all C codebooks. Each step runs the
network once over a batch holding, per item, a conditional row (style + text +
reference + target) and an unconditional row (the target alone), combines the
two with guidance, and commits the k most confident predictions, where k follows
a shifted-time schedule that unmasks few tokens early and many late.

Randomness comes only from each item's own ``torch.Generator``, so a take is
reproducible from its seed whatever else shares the batch.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from studio.engine.model import OmniVoiceNet
from studio.engine.options import DecodeOptions


class Cancelled(Exception):
    """The caller's cancel event was set; the decode stopped between two steps."""




@dataclass
class DecodeItem:
    """One row of a batch, already tokenized.

    ``cond_ids`` (C, L) is the whole conditional sequence whose last
    ``target_len`` columns are mask ids; ``audio_start`` is the first column
    holding audio (reference tokens, or the target when there is none).
    """

    cond_ids: torch.Tensor
    audio_start: int
    target_len: int
    generator: torch.Generator | None = None


StepCallback = Callable[[int, int], None]
# A render's forward: given the network and the render's (ids, audio_mask, attn), a
# function returning the logits of the ids as they are now (they change in place
# between steps). None: the network itself; "graph" mode replays CUDA graphs
# (studio.engine.accel.padded_graph).
Forward = Callable[[OmniVoiceNet, torch.Tensor, torch.Tensor, torch.Tensor], Callable[[], torch.Tensor]]


def time_steps(num_step: int, t_shift: float) -> list[float]:
    """The shifted time grid, in float32 as the reference computes it (the
    per-step token counts are ceilings of its differences, so precision matters)."""
    t = torch.linspace(0.0, 1.0, num_step + 1)
    return (t_shift * t / (1 + (t_shift - 1) * t)).tolist()


def unmask_schedule(target_len: int, codebooks: int, num_step: int, t_shift: float) -> list[int]:
    """How many tokens to commit at each step; the last step takes the rest."""
    grid = time_steps(num_step, t_shift)
    remaining = total = target_len * codebooks
    counts = []
    for step in range(num_step):
        if step == num_step - 1:
            n = remaining
        else:
            n = min(math.ceil(total * (grid[step + 1] - grid[step])), remaining)
        counts.append(int(n))
        remaining -= int(n)
    return counts


def _gumbel(logits: torch.Tensor, temperature: float, gen: torch.Generator | None) -> torch.Tensor:
    u = torch.rand(logits.shape, generator=gen, device=logits.device, dtype=logits.dtype)
    return logits / temperature - torch.log(-torch.log(u + 1e-10) + 1e-10)


def _keep_top_tenth(log_probs: torch.Tensor) -> torch.Tensor:
    k = math.ceil(0.1 * log_probs.shape[-1])
    values, index = log_probs.topk(k, dim=-1)
    return torch.full_like(log_probs, float("-inf")).scatter_(-1, index, values)


def predict(
    cond: torch.Tensor,
    uncond: torch.Tensor | None,
    options: DecodeOptions,
    mask_id: int,
    gen: torch.Generator | None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Guided log-probabilities -> (predicted ids, confidence) per position."""
    if options.guidance_scale != 0:
        c = F.log_softmax(cond, dim=-1)
        u = F.log_softmax(uncond, dim=-1)
        log_probs = torch.log_softmax(c + options.guidance_scale * (c - u), dim=-1)
    else:
        log_probs = F.log_softmax(cond, dim=-1)
    log_probs[..., mask_id] = float("-inf")
    if options.class_temperature > 0.0:
        noisy = _gumbel(_keep_top_tenth(log_probs), options.class_temperature, gen)
        ids = noisy.argmax(dim=-1)
    else:
        ids = log_probs.argmax(dim=-1)
    return ids, log_probs.max(dim=-1)[0]


def commit(
    current: torch.Tensor,
    cond: torch.Tensor,
    uncond: torch.Tensor | None,
    k: int,
    options: DecodeOptions,
    mask_id: int,
    layer_penalty: torch.Tensor,
    gen: torch.Generator | None,
) -> None:
    """One item's update for one step, shared by every decode path.

    ``cond`` and ``uncond`` are (1, C, T, V) float32 logits over the item's
    target; the k most confident still-masked positions of ``current`` (C, T)
    are filled in place. ``uncond`` may be None only when guidance is 0.
    """
    pred, score = predict(cond, uncond, options, mask_id, gen)
    score = score - layer_penalty
    if options.position_temperature > 0.0:
        score = _gumbel(score, options.position_temperature, gen)
    score.masked_fill_((current != mask_id).unsqueeze(0), float("-inf"))
    chosen = torch.topk(score.flatten(), k).indices
    current.view(-1)[chosen] = pred.flatten()[chosen]


def layer_penalties(codebooks: int, options: DecodeOptions, device) -> torch.Tensor:
    """The (1, C, 1) score penalty that makes later codebooks commit later."""
    return torch.arange(codebooks, device=device).view(1, -1, 1) * options.layer_penalty


def start_state(items: Sequence[DecodeItem], spec, options: DecodeOptions, device):
    """Fully masked targets, the per-item unmask schedules and the layer penalty:
    the state every decode path starts from."""
    targets = [
        torch.full((spec.codebooks, item.target_len), spec.mask_id, dtype=torch.long, device=device)
        for item in items
    ]
    schedules = [
        unmask_schedule(item.target_len, spec.codebooks, options.num_step, options.t_shift)
        for item in items
    ]
    return targets, schedules, layer_penalties(spec.codebooks, options, device)


def _padded_batch(items: Sequence[DecodeItem], codebooks: int, pad_id: int, device):
    """Conditional rows 0..B-1, unconditional rows B..2B-1, right-padded.

    Padding columns attend only to themselves (a fully masked row gives NaN on
    some attention backends), exactly as the reference lays them out.
    """
    count = len(items)
    width = max(item.cond_ids.shape[1] for item in items)
    ids = torch.full((2 * count, codebooks, width), pad_id, dtype=torch.long, device=device)
    audio_mask = torch.zeros((2 * count, width), dtype=torch.bool, device=device)
    attn = torch.zeros((2 * count, 1, width, width), dtype=torch.bool, device=device)
    for i, item in enumerate(items):
        length, target = item.cond_ids.shape[1], item.target_len
        ids[i, :, :length] = item.cond_ids
        audio_mask[i, item.audio_start : length] = True
        attn[i, :, :length, :length] = True
        row = count + i
        ids[row, :, :target] = item.cond_ids[:, -target:]
        audio_mask[row, :target] = True
        attn[row, :, :target, :target] = True
        pad = torch.arange(target, width, device=device)
        attn[row, :, pad, pad] = True
    return ids, audio_mask, attn


@torch.inference_mode()
def decode(
    net: OmniVoiceNet,
    items: Sequence[DecodeItem],
    options: DecodeOptions,
    on_step: StepCallback | None = None,
    cancel: threading.Event | None = None,
    forward: Forward | None = None,
) -> list[torch.Tensor]:
    """Decode a batch; returns one (C, T_i) int64 tensor per item.

    ``on_step(i, n)`` is called after step i of n; ``cancel`` is checked before
    every step, so a cancel takes effect within one forward pass. Nothing
    outside this call is modified, so the engine stays usable afterwards.
    """
    spec = net.audio
    device = net.audio_heads.weight.device
    count = len(items)
    ids, audio_mask, attn = _padded_batch(items, spec.codebooks, spec.mask_id, device)
    lengths = [item.cond_ids.shape[1] for item in items]
    targets, schedules, layer_penalty = start_state(items, spec, options, device)
    run = forward(net, ids, audio_mask, attn) if forward is not None else (lambda: net(ids, audio_mask, attn))

    for step in range(options.num_step):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        logits = run().to(torch.float32)
        for i, item in enumerate(items):
            k = schedules[i][step]
            if k <= 0:
                continue
            end, span = lengths[i], item.target_len
            current = targets[i]
            commit(
                current,
                logits[i : i + 1, :, end - span : end],
                logits[count + i : count + i + 1, :, :span],
                k,
                options,
                spec.mask_id,
                layer_penalty,
                item.generator,
            )
            ids[i, :, end - span : end] = current
            ids[count + i, :, :span] = current
        if on_step is not None:
            on_step(step + 1, options.num_step)
    return targets
