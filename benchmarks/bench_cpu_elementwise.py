"""What the element-wise work of one transformer layer costs beside its projections, on
the CPU in bf16, and what hand-fusing it would save (issue 30).

One full-size layer's shapes over a 10 s clone's packed row (703 tokens): the
element-wise work as transformers runs it (four RMSNorms, each seven ops with two
casts; the rotary embedding, eight ops per tensor with a negated copy and a
concatenation; SiLU times the up projection; two residual adds) against the same work
hand-fused (``F.rms_norm``, the rotary terms added in place with ``addcmul_``, SiLU and
the residual in place), and the layer's seven prepacked bf16 projection GEMMs. Each is
timed ``--repeats`` times interleaved and the MINIMUM is reported: on a shared machine
the minimum is the run least disturbed by other work (the 25th percentile is printed
too). The fused variants live here only: measured, not kept (docs/performance.md).

Usage (from the repository root)::

    python benchmarks/bench_cpu_elementwise.py [--threads 1] [--repeats 40] [--tokens 703]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch
import torch.nn.functional as F


def fused_rotary(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    half = q.shape[-1] // 2
    out = []
    for x in (q, k):
        y = x * cos
        y[..., :half].addcmul_(x[..., half:], sin[..., :half], value=-1)
        y[..., half:].addcmul_(x[..., :half], sin[..., half:])
        out.append(y)
    return out


def main(argv=None) -> int:
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm, apply_rotary_pos_emb

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=40)
    p.add_argument("--tokens", type=int, default=703)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    n, hidden = args.tokens, 1024
    g = torch.Generator().manual_seed(0)

    def rand(*shape):
        return torch.randn(*shape, generator=g).bfloat16()

    x, attn_out = rand(1, n, hidden), rand(1, n, hidden)
    norm, q_norm, k_norm = (Qwen3RMSNorm(d).bfloat16() for d in (hidden, 128, 128))
    q, k = rand(1, n, 16, 128), rand(1, n, 8, 128)
    angle = torch.rand(1, n, 128, generator=g) * 6
    cos, sin = angle.cos().bfloat16(), angle.sin().bfloat16()
    gate, up = rand(1, n, 3072), rand(1, n, 3072)

    def rms(m, t):
        return F.rms_norm(t, m.weight.shape, m.weight, m.variance_epsilon)

    def transformers_ops():
        norm(x)
        apply_rotary_pos_emb(q_norm(q).transpose(1, 2), k_norm(k).transpose(1, 2), cos, sin)
        y = x + attn_out
        norm(y)
        F.silu(gate) * up
        y + attn_out

    def fused_ops():
        rms(norm, x)
        fused_rotary(rms(q_norm, q).transpose(1, 2), rms(k_norm, k).transpose(1, 2), cos, sin)
        y = x + attn_out
        rms(norm, y)
        F.silu(gate.clone(), inplace=True).mul_(up)  # the clone stands for the GEMM's fresh output
        y.add_(attn_out)

    packed = {shape: torch.ops.mkldnn._reorder_linear_weight(rand(*shape), None)
              for shape in ((2048, hidden), (1024, hidden), (3072, hidden), (hidden, 3072))}

    def linear(t, shape):
        return torch.ops.mkldnn._linear_pointwise(t, packed[shape], None, "none", [], "")

    def projections():  # q, k, v, o, gate, up, down
        for shape in ((2048, hidden), (1024, hidden), (1024, hidden), (2048, hidden), (3072, hidden),
                      (3072, hidden)):
            linear(x, shape)
        linear(gate, (hidden, 3072))

    cases = {"transformers element-wise": transformers_ops, "hand-fused element-wise": fused_ops,
             "7 prepacked projections": projections}
    times = {name: [] for name in cases}
    with torch.inference_mode():
        for _ in range(args.repeats):
            for name, fn in cases.items():
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    result = {"threads": args.threads, "tokens": n, "loadavg_end": round(os.getloadavg()[0], 2)}
    for name, ts in times.items():
        ts.sort()
        result[name] = {"min_ms": round(ts[0] * 1e3, 2), "p25_ms": round(ts[len(ts) // 4] * 1e3, 2)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
