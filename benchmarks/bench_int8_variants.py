"""Which int8 scheme comes closest to fp32: first-step logits per variant (issue 30).

ONE process loads the checkpoint in fp32, keeps its float projections, and for each
variant rebuilds the 196 projections from them (``int8.quantize_projections`` with a
plan, or a smoothing wrapper), then runs one fully masked decoding step of a
conformance case (greedy) and compares the conditional audio logits with fp32's:
relative error (Frobenius) and the share of argmaxes equal to fp32's. The bf16
precision (its own engine, everything bf16 and prepacked) is the row to beat. This
is the screen; ``bench_int8.py --int8-plan`` then renders the survivors end to end.

Variants: ``all`` (every projection int8, one pass), ``kind=K`` (only K int8, the
rest bf16), ``all-but=K`` (K bf16, the rest int8), ``x2`` (two activation passes), ``x2=K`` (two passes on K only),
``smooth`` (SmoothQuant, alpha 0.5: per-input-channel scales from this step's
activations moved from activations into weights), ``bf16w`` (every projection
bf16, everything else fp32).

Usage::

    python benchmarks/bench_int8_variants.py --checkpoint DIR [--case design_english]
        [--variants all,kind=down_proj,...] [--json-out F]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch
from torch import nn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE), str(ROOT / "tests" / "engine")):
    if path not in sys.path:
        sys.path.insert(0, path)

from conformance_cases import CASES, GREEDY  # noqa: E402

KINDS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
GROUPS = {"qkv": ("q_proj", "k_proj", "v_proj"), "gate_up": ("gate_proj", "up_proj")}


def _kinds(token: str) -> tuple[str, ...]:
    return tuple(k for part in token.split("+") for k in GROUPS.get(part, (part,)))


class Smoothed(nn.Module):
    """``inner`` built from ``W * s`` (per input channel), fed ``x / s``: the same product,
    with the activations' channel spread moved into the weights."""

    def __init__(self, inner: nn.Module, s: torch.Tensor):
        super().__init__()
        self.inner = inner
        self.register_buffer("s", s, persistent=False)

    def forward(self, x):
        return self.inner(x / self.s)


def first_step_logits(engine, case: str) -> tuple[torch.Tensor, float]:
    import studio.engine.packed as packed
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import GenerationOptions, SynthesisItem

    seen: list[torch.Tensor] = []
    commit = packed.commit

    def grab(current, cond, *rest):
        if not seen:
            seen.append(cond[0].detach().float().clone())
        commit(current, cond, *rest)

    packed.commit = grab
    try:
        request, overrides = CASES[case]
        t0 = time.perf_counter()
        engine.synthesize([SynthesisItem(**request, seed=0)],
                          GenerationOptions(decode=DecodeOptions(**{**overrides, **GREEDY, "num_step": 1})))
        return seen[0], time.perf_counter() - t0
    finally:
        packed.commit = commit


def compare(truth: torch.Tensor, got: torch.Tensor) -> dict:
    return {"rel_error": round(float((got - truth).norm() / truth.norm()), 5),
            "argmax_agreement": round(float((got.argmax(-1) == truth.argmax(-1)).float().mean()), 4)}


def build_variant(engine, originals: dict, variant: str, calibration: dict):
    from studio.engine.int8 import Int8Linear, quantize_projections

    llm = engine.net.llm
    for (i, owner, name), module in originals.items():  # back to the float projections
        setattr(getattr(llm.layers[i], owner), name, module)
    name, _, arg = variant.partition("=")
    if name == "smooth":
        for (i, owner, kind), module in originals.items():
            w = module.weight.detach()
            act = calibration[(i, owner, kind)].clamp_min(1e-5)
            s = (act.sqrt() / w.abs().amax(dim=0).clamp_min(1e-5).sqrt()).clamp_min(1e-5)
            setattr(getattr(llm.layers[i], owner), kind, Smoothed(Int8Linear.from_weight(w * s), s))
        return
    plan = {"all": {}, "x2": {k: "int8x2" for k in KINDS},
            "bf16w": {k: "bf16" for k in KINDS}}.get(name)
    if name == "kind":
        plan = {k: ("int8" if k in _kinds(arg) else "bf16") for k in KINDS}
    elif name == "all-but":
        plan = {k: ("bf16" if k in _kinds(arg) else "int8") for k in KINDS}
    elif name == "x2" and arg:
        plan = {k: ("int8x2" if k in _kinds(arg) else "int8") for k in KINDS}
    elif name == "mix":  # mix=q_proj:int8x2/down_proj:bf16 ... (unnamed kinds: int8)
        plan = dict(part.split(":") for part in arg.split("/"))
    if plan is None:
        raise SystemExit(f"unknown variant {variant!r}")
    quantize_projections(llm, plan=plan)


def main(argv=None) -> int:
    from studio.engine.engine import Engine

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True)
    p.add_argument("--case", default="design_english")
    p.add_argument("--variants", default="all,x2,smooth,bf16w,kind=qkv,kind=o_proj,"
                                          "kind=gate_up,kind=down_proj")
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    torch.set_num_threads(os.cpu_count() or 1)

    rows = []

    def record(variant, logits, seconds, truth):
        row = {"variant": variant, **compare(truth, logits), "first_call_s": round(seconds, 2),
               "loadavg_1m": round(os.getloadavg()[0], 2)}
        rows.append(row)
        print(json.dumps(row), flush=True)

    bf16 = Engine.load(args.checkpoint, device="cpu", precision="bf16")
    bf16_logits, bf16_s = first_step_logits(bf16, args.case)
    del bf16
    engine = Engine.load(args.checkpoint, device="cpu", precision="fp32")
    llm = engine.net.llm
    originals = {(i, owner, name): getattr(getattr(layer, owner), name)
                 for i, layer in enumerate(llm.layers)
                 for owner, names in (("self_attn", KINDS[:4]), ("mlp", KINDS[4:])) for name in names}
    calibration: dict = {}
    hooks = [m.register_forward_pre_hook(
        lambda mod, inp, key=key: calibration.__setitem__(
            key, torch.maximum(calibration.get(key, torch.zeros(inp[0].shape[-1])),
                               inp[0].detach().abs().reshape(-1, inp[0].shape[-1]).amax(0))))
        for key, m in originals.items()]
    truth, fp32_s = first_step_logits(engine, args.case)
    for h in hooks:
        h.remove()
    record("bf16 (precision)", bf16_logits, bf16_s, truth)
    record("fp32", truth, fp32_s, truth)
    for variant in args.variants.split(","):
        build_variant(engine, originals, variant, calibration)
        logits, seconds = first_step_logits(engine, args.case)
        record(variant, logits, seconds, truth)
    if args.json_out:
        args.json_out.write_text(json.dumps({"checkpoint": str(args.checkpoint), "case": args.case,
                                             "rows": rows}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
