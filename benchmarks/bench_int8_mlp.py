"""One layer's MLP at full size: gate and up fused into one int8 GEMM, or not (issue 30).

Times one Qwen3 MLP (hidden 1024, intermediate 3072) on ``--rows`` tokens (703: the
packed 10 s clone of docs/performance.md) as the int8 plans would run it, fp32 in
and out, the down projection a prepacked bf16 GEMM in every int8 row:

- ``int8 gate+up fused``: ONE per-token activation quantisation and ONE prepacked
  int8 GEMM of 6144 outputs (the two weights stacked; per-row weight scales make
  it the same arithmetic as two GEMMs), split into gate and up;
- ``int8 gate, up``: two ``Int8Linear`` calls (each quantises the same input);
- ``bf16 gate, up (fp32 around)`` and ``bf16 gate+up fused``: ``int8.Bf16Linear``;
- ``bf16 precision``: the bf16 precision's MLP (bf16 in and out, ``PackedLinear``).

Each route's gate/up part alone is timed too. The minimum over ``--reps`` rounds,
the routes interleaved within each round; the load average is recorded.
Usage: python benchmarks/bench_int8_mlp.py [--rows 703] [--reps 30] [--json-out F]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from studio.engine.int8 import Bf16Linear, Int8Linear  # noqa: E402


def routes(x: torch.Tensor, wg: torch.Tensor, wu: torch.Tensor, wd: torch.Tensor) -> dict:
    from studio.engine.cpu_layers import PackedLinear

    inter = wg.shape[0]
    fused8 = Int8Linear.from_weight(torch.cat((wg, wu)))
    g8, u8 = Int8Linear.from_weight(wg), Int8Linear.from_weight(wu)
    gb, ub, db = Bf16Linear(wg), Bf16Linear(wu), Bf16Linear(wd)
    fusedb = Bf16Linear(torch.cat((wg, wu)))

    def linear(w):
        lin = torch.nn.Linear(w.shape[1], w.shape[0], bias=False).to(torch.bfloat16)
        lin.weight.data.copy_(w)
        return PackedLinear(lin)

    pg, pu, pd = linear(wg), linear(wu), linear(wd)
    xb = x.to(torch.bfloat16)

    def split(out):
        return out[..., :inter], out[..., inter:]

    gate_up = {
        "int8 gate+up fused": lambda: split(fused8(x)),
        "int8 gate, up": lambda: (g8(x), u8(x)),
        "bf16 gate, up (fp32 around)": lambda: (gb(x), ub(x)),
        "bf16 gate+up fused (fp32 around)": lambda: split(fusedb(x)),
        "bf16 precision": lambda: (pg(xb), pu(xb)),
    }
    down = {name: (pd if name == "bf16 precision" else db) for name in gate_up}
    out = {}
    for name, fn in gate_up.items():
        out[f"{name}: gate/up only"] = fn
        out[f"{name}: whole MLP"] = lambda fn=fn, d=down[name]: _mlp(fn, d)
    return out


def _mlp(gate_up, down):
    g, u = gate_up()
    return down(F.silu(g).mul_(u))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=703)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--intermediate", type=int, default=3072)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    x = torch.randn(args.rows, args.hidden)
    wg, wu = (torch.randn(args.intermediate, args.hidden) * 0.02 for _ in range(2))
    wd = torch.randn(args.hidden, args.intermediate) * 0.02
    load_start = os.getloadavg()
    with torch.inference_mode():
        table = routes(x, wg, wu, wd)
        for fn in table.values():  # warm every kernel twice
            fn()
            fn()
        best = {name: float("inf") for name in table}
        for _ in range(args.reps):
            for name, fn in table.items():
                t = time.perf_counter()
                fn()
                best[name] = min(best[name], time.perf_counter() - t)
    load_end = os.getloadavg()
    rows = [{"route": name, "ms": round(s * 1e3, 2)} for name, s in best.items()]
    report = {"rows_tokens": args.rows, "hidden": args.hidden, "intermediate": args.intermediate,
              "reps": args.reps, "threads": torch.get_num_threads(), "torch": torch.__version__,
              "loadavg_start": [round(v, 2) for v in load_start],
              "loadavg_end": [round(v, 2) for v in load_end], "routes": rows}
    for row in rows:
        print(json.dumps(row), flush=True)
    print(json.dumps({k: v for k, v in report.items() if k != "routes"}), flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
