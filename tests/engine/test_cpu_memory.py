"""Memory on the CPU: a bf16 load holds ONE copy of the weights, and so does a render.

The peaks themselves (GiB per precision, at load and after a render) are measured by
benchmarks/bench_memory.py and written in docs/performance.md; tests never assert
RSS. What is asserted here is the structure those peaks follow from, counted over
every tensor alive in a fresh process (``gc``), so a copy kept anywhere (a cache, a
state dict, a closure) is found, not only one the model holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

# Run in a child so that no other test's engine (fp32, same tiny shapes) is alive.
PROBE = r"""
import gc, json, sys
import torch
from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
from studio.engine.decode import DecodeOptions

root, render = sys.argv[1], sys.argv[2] == "render"
engine = Engine.load(root, device="cpu", precision="bf16")
if render:
    options = GenerationOptions(decode=DecodeOptions(num_step=2, position_temperature=0.0,
                                                     class_temperature=0.0))
    engine.synthesize([SynthesisItem("One copy of every weight.", seed=1)], options)
gc.collect()
net = engine.net
projections = {}
for layer in net.llm.layers:
    for owner in (layer.self_attn, layer.mlp):
        for name, module in owner.named_children():
            if name.endswith("_proj"):
                projections[name] = (module.out_features, module.in_features)
shapes = set(projections.values())
codec = {id(t) for t in [*engine.codec.parameters(), *engine.codec.buffers()]}
alive = [t for t in gc.get_objects() if isinstance(t, torch.Tensor) and id(t) not in codec]
packed = [m.packed for m in net.modules() if type(m).__name__ == "PackedLinear"]
with open("/proc/self/maps") as maps:
    # The network's file only: the codec's weights are used in place from its own map
    # (one copy, the tensors are views of it).
    mapped = any(line.rstrip().endswith(root.rstrip("/") + "/model.safetensors") for line in maps)
print(json.dumps({
    "fp32_projection_shaped": sum(1 for t in alive if t.dtype == torch.float32 and tuple(t.shape) in shapes),
    "projection_shaped": sum(1 for t in alive if tuple(t.shape) in shapes and t.dim() == 2),
    "projections": len(net.llm.layers) * 7,
    "packed": len(packed),
    "fp32_held": [n for n, t in [*net.named_parameters(), *net.named_buffers()] if t.dtype == torch.float32],
    "mapped": mapped,
}))
"""


def _probe(checkpoint, stage: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (os.getcwd(), os.environ.get("PYTHONPATH")) if p)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(checkpoint), stage], capture_output=True,
                         text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_bf16_load_keeps_no_fp32_copy_and_no_map_of_the_file(tiny_checkpoint):
    seen = _probe(tiny_checkpoint, "load")
    # Every projection weight exists once, in bf16: no fp32 tensor of a projection's
    # shape is alive anywhere in the process (the loader casts each one as it reads it).
    assert seen["fp32_projection_shaped"] == 0
    assert seen["projection_shaped"] >= seen["projections"]
    # The network's only fp32 tensors are the rotary tables (rebuilt from the config:
    # positions need fp32), a few KB.
    assert {name.rsplit(".", 1)[0] for name in seen["fp32_held"]} == {"llm.rotary_emb"}
    # A memory map of the checkpoint would count its 2.4 GB (full size) as resident.
    assert not seen["mapped"]


@pytest.mark.skipif(not torch.ops.mkldnn._is_mkldnn_bf16_supported(),
                    reason="this CPU's oneDNN has no bf16 kernels, so no prepacking happens here; "
                           "the load above is the structure there")
def test_after_a_prepacked_bf16_render_each_projection_exists_once(tiny_checkpoint):
    seen = _probe(tiny_checkpoint, "render")
    assert seen["packed"] == seen["projections"]
    # Only the prepacked weights remain: the plain bf16 ones were freed as each was
    # replaced, and no fp32 copy was made on the way.
    assert seen["projection_shaped"] == seen["packed"]
    assert seen["fp32_projection_shaped"] == 0
    assert not seen["mapped"]
