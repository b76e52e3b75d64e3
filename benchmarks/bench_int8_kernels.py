"""Which int8 kernel is fastest for one projection on this CPU (issue 30).

Times a 1200x1024 @ 1024x3072 projection (one MLP gate/up at full size) with
every route torch offers here, plus fp32 and prepacked bf16 for scale, and the
error of each against an fp64 reference. Prints one JSON line per kernel.
Usage: python benchmarks/bench_int8_kernels.py [--rows 1200] [--reps 20]
"""

from __future__ import annotations

import argparse
import json
import time

import torch
import torch.nn.functional as F

from studio.engine.int8 import Int8Linear, quantize_weight


def _time(fn, reps: int) -> float:
    fn()
    fn()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _flags() -> list[str]:
    from studio.engine.precision import _linux_cpu_flags
    return sorted(f for f in _linux_cpu_flags() if f in (
        "avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_bf16", "amx_int8", "amx_tile"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1200)
    parser.add_argument("--inp", type=int, default=1024)
    parser.add_argument("--out", type=int, default=3072)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.rows, args.inp)
    w = torch.randn(args.out, args.inp) * 0.02
    truth = (x.double() @ w.double().T)
    ops = 2 * args.rows * args.inp * args.out

    def err(y):
        return float((y.double() - truth).norm() / truth.norm())

    routes = {}
    routes["fp32 F.linear"] = lambda: F.linear(x, w)
    xb, wb = x.bfloat16(), w.bfloat16()
    packed = torch.ops.mkldnn._reorder_linear_weight(wb, None)
    routes["bf16 prepacked (mkldnn)"] = lambda: torch.ops.mkldnn._linear_pointwise(xb, packed, None, "none", [], "")
    for engine in ("fbgemm", "onednn", "x86"):
        torch.backends.quantized.engine = engine
        lin = torch.nn.Linear(args.inp, args.out, bias=False)
        lin.weight.data.copy_(w)
        q = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(lin), {torch.nn.Linear},
                                                   dtype=torch.qint8)
        q(x)  # warm the engine once
        routes[f"torch.ao dynamic ({engine})"] = (lambda q=q: q(x))
    torch.backends.quantized.engine = "x86"
    wq, scale = quantize_weight(w)
    routes["torch._int_mm (per-token act, per-channel w)"] = lambda: _int_mm_route(x, wq, scale)
    ours = Int8Linear.from_weight(w)
    routes[f"studio Int8Linear ({ours.kernel})"] = lambda: ours(x)
    for name, fn in routes.items():
        if name.startswith("torch.ao"):
            torch.backends.quantized.engine = name.split("(")[1].rstrip(")")
        seconds = _time(fn, args.reps)
        print(json.dumps({"kernel": name, "ms": round(seconds * 1e3, 2),
                          "gops": round(ops / seconds / 1e9, 1), "rel_err": round(err(fn()), 5),
                          "threads": torch.get_num_threads(), "flags": _flags(),
                          "shape": [args.rows, args.inp, args.out]}), flush=True)


def _int_mm_route(x, wq_t, scale):
    amax = x.abs().amax(dim=1, keepdim=True).clamp_min(1e-8)
    xs = amax / 127
    xq = torch.round(x / xs).to(torch.int8)
    acc = torch._int_mm(xq, wq_t)
    return acc.float() * xs * scale


if __name__ == "__main__":
    main()
