"""PaddedGraphRunner: CUDA graphs on the standard padded path ("graph" mode).

A render keeps one batch shape for all its steps: 2B rows (conditional and
unconditional) x C codebooks x the padded length, in the model's dtype. The
runner runs a new shape's first step eagerly (it also warms up the kernels and
their workspaces), then captures ``net(ids, audio_mask, attn)`` once on static
copies of those three tensors and, for every later step, copies the current ids
in and replays. A shape seen before (the next take of a line, the same line
again) replays from its first step.

Why the tokens stay those of the eager padded path, by construction: the graph
records the very kernels the eager forward launches, for the same module, the
same shapes, dtype and attention mask, so each replay does the same arithmetic
in the same order; only the host's work of launching them is skipped. Nothing
is data-dependent: the inputs are copied into the static buffers (the mask and
audio mask once per render, the ids every step) and the key includes every
dimension, so a new length or batch captures anew and never replays a graph
recorded for another shape. (benchmarks/gpu_check.py checks it on a GPU.)

The graphs live in a GraphCache (bounded LRU, one shared memory pool, the
owning thread only). A capture that fails, or runs out of memory, does not fail
the render: it finishes eagerly, every graph is dropped, and ``failure`` names
the reason, which the Accelerator reports and latches (the mode stays off).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from studio.engine.accel.graph_cache import MAX_GRAPHS, GraphCache, GraphThreadError
from studio.engine.accel.reasons import Reason, classify, let_go
from studio.engine.model import OmniVoiceNet

log = logging.getLogger(__name__)

Step = Callable[[], torch.Tensor]


class PaddedGraphError(RuntimeError):
    """The runner was asked to run a network it is not applied to."""


@dataclass
class _Graph:
    ids: torch.Tensor  # static inputs, the shapes of the key
    audio_mask: torch.Tensor
    attn: torch.Tensor
    replay: Any
    out: torch.Tensor  # the static logits every replay writes


class PaddedGraphRunner:
    """The ``forward`` hook of ``studio.engine.decode.decode`` for "graph" mode."""

    layout = "padded"  # the engine renders through decode(), not decode_packed()

    def __init__(self, net: OmniVoiceNet, platform, max_graphs: int = MAX_GRAPHS, on_stage=None):
        self.net = net
        self.platform = platform
        self.on_stage = on_stage
        self.graphs = GraphCache(platform, max_graphs)
        self.applied = False
        self.failure: Reason | None = None  # set when a capture failed; the Accelerator latches it
        self.eager_steps = 0  # steps run eagerly (first steps of new shapes, fallbacks)

    @property
    def dtype(self) -> torch.dtype:
        return self.net.audio_heads.weight.dtype

    def apply(self) -> None:
        self.applied = True

    def warm_up(self) -> None:
        """Nothing to prepare: each new shape's first step is its warm-up."""

    def unapply(self) -> None:
        self.applied = False
        if self.graphs.clear():
            self.platform.empty_cache()

    def __call__(self, net: OmniVoiceNet, ids: torch.Tensor, audio_mask: torch.Tensor,
                 attn: torch.Tensor) -> Step:
        """The step function of one render whose inputs are these tensors (ids change in place)."""
        if net is not self.net or not self.applied:
            raise PaddedGraphError("this graph runner is not applied to this network")
        self.graphs.check_thread()
        key = (tuple(ids.shape), tuple(attn.shape), ids.device.type, self.dtype)
        state: dict[str, Any] = {"graph": self.graphs.get(key), "bound": False, "eager": 0}

        def eager() -> torch.Tensor:
            self.eager_steps += 1
            state["eager"] += 1
            return net(ids, audio_mask, attn)

        def step() -> torch.Tensor:
            self.graphs.check_thread()
            if self.failure is not None:
                return eager()
            graph = state["graph"]
            if graph is None:
                if not state["eager"]:
                    return eager()  # the first step of a new shape: warm-up and result
                graph = state["graph"] = self._capture(key, ids, audio_mask, attn)
                if graph is None:
                    return eager()
                state["bound"] = True  # captured from this render's own inputs
            if not state["bound"]:
                graph.audio_mask.copy_(audio_mask)
                graph.attn.copy_(attn)
                state["bound"] = True
            graph.ids.copy_(ids)
            graph.replay()
            return graph.out

        return step

    def _capture(self, key, ids, audio_mask, attn) -> _Graph | None:
        static = [ids.clone(), audio_mask.clone(), attn.clone()]
        try:
            replay, out = self.graphs.capture(lambda: self.net(*static))
        except GraphThreadError:
            raise
        except Exception as exc:

            self.failure = classify(exc, during="capture")
            # As text, with its frames cleared: they may hold a step's activations.
            log.warning("CUDA graph capture failed; the render finishes eagerly:\n%s", let_go(exc))
        else:
            return self.graphs.put(key, _Graph(*static, replay, out))
        # Out of the except block: the failed capture's frames are gone.
        self.graphs.clear()
        self.platform.empty_cache()
        return None
