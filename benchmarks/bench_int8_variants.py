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
``smooth`` (SmoothQuant, alpha 0.5, on every projection: per-input-channel scales
moved from activations into weights), ``bf16w`` (every projection bf16, everything
else fp32). A variant may add modifiers after ``;``:

- ``rest=fp32`` (or ``bf16``): what ``kind=K`` makes of the projections it keeps out
  of int8 (bf16 by default; fp32 is what a CPU without native bf16 would run);
- ``levels=N``: activations quantised to [-N, N] instead of [-127, 127] (63 models
  oneDNN without VNNI, whose int16 pair sums would saturate at 127), simulated
  exactly in fp32 (``FakeInt8``: integer-valued operands, checked against
  ``Int8Linear`` at 127 levels in the run's first row);
- ``sq=ALPHA``: SmoothQuant for gate and up only, folded into each layer's
  ``post_attention_layernorm`` weight (their shared input): per input channel
  s = max|x|^ALPHA / max(|W_gate|, |W_up|)^(1 - ALPHA), the norm's weight divided
  by s and both weights multiplied by it, so nothing runs at render time;
- ``edge=N``: the first and last N layers keep every projection out of int8 (as
  ``rest`` says); ``keep=0+27``: the layers listed likewise.

Scales that need calibration (``smooth``, ``sq``) come from fp32 activations of a
DIFFERENT case (``--calibrate-case``) than the one measured.

Usage::

    python benchmarks/bench_int8_variants.py --checkpoint DIR [--case design_english]
        [--calibrate-case nonverbal_tags] [--variants 'all,kind=gate_up;rest=fp32,...']
        [--json-out F]
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


class FakeInt8(nn.Module):
    """``Int8Linear``'s arithmetic in fp32 with activations on [-levels, levels]: per-row
    int8 weights and per-token integer activations, multiplied as integer-valued fp32
    (exact below 2**24 per sum: 63 x 127 x 1024 is), then both scales applied."""

    def __init__(self, weight: torch.Tensor, levels: int):
        super().__init__()
        from studio.engine.int8 import quantize_weight

        values_t, scale = quantize_weight(weight)
        self.levels = levels
        self.register_buffer("values_t", values_t.to(torch.float32), persistent=False)
        self.register_buffer("scale", scale, persistent=False)

    def forward(self, x):
        lead = x.shape[:-1]
        flat = x.reshape(-1, self.values_t.shape[0]).to(torch.float32)
        token_scale = flat.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / self.levels
        out = (torch.round(flat / token_scale) @ self.values_t) * token_scale * self.scale
        return out.view(*lead, self.values_t.shape[1])


def fake_int8_check() -> float:
    """FakeInt8 at 127 levels against Int8Linear on one random projection (relative)."""
    from studio.engine.int8 import Int8Linear

    torch.manual_seed(0)
    w, x = torch.randn(3072, 1024) * 0.02, torch.randn(64, 1024)
    real, fake = Int8Linear.from_weight(w)(x), FakeInt8(w, 127)(x)
    return float((fake - real).norm() / real.norm())


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


def _plan(variant: str) -> tuple[dict, dict]:
    """``variant`` -> (kind -> treatment, modifiers)."""
    base, *mods = variant.split(";")
    name, _, arg = base.partition("=")
    mods = dict(m.split("=", 1) for m in mods)
    rest = mods.get("rest", "bf16")
    plan = {"all": {k: "int8" for k in KINDS}, "x2": {k: "int8x2" for k in KINDS},
            "bf16w": {k: "bf16" for k in KINDS}, "fp32w": {k: "fp32" for k in KINDS},
            "smooth": {k: "int8" for k in KINDS}}.get(name)
    if name == "kind":
        plan = {k: ("int8" if k in _kinds(arg) else rest) for k in KINDS}
    elif name == "all-but":
        plan = {k: (rest if k in _kinds(arg) else "int8") for k in KINDS}
    elif name == "x2" and arg:
        plan = {k: ("int8x2" if k in _kinds(arg) else "int8") for k in KINDS}
    elif name == "mix":  # mix=q_proj:int8x2/down_proj:bf16 ... (unnamed kinds: int8)
        plan = {**{k: "int8" for k in KINDS}, **dict(part.split(":") for part in arg.split("/"))}
    if plan is None or not set(mods) <= {"rest", "levels", "sq", "edge", "keep"}:
        raise SystemExit(f"unknown variant {variant!r}")
    return plan, mods


def _module(weight: torch.Tensor, how: str, levels: int) -> nn.Module:
    from studio.engine.int8 import Bf16Linear, Int8Linear

    if how == "int8":
        return Int8Linear.from_weight(weight) if levels == 127 else FakeInt8(weight, levels)
    if how == "int8x2":
        return Int8Linear.from_weight(weight, passes=2)
    if how == "bf16":
        return Bf16Linear(weight)
    if how == "fp32":
        return _Linear(weight)
    raise SystemExit(f"unknown treatment {how!r}")


class _Linear(nn.Module):
    """An fp32 projection on a given (possibly smoothed) weight."""

    def __init__(self, weight):
        super().__init__()
        self.register_buffer("weight", weight, persistent=False)

    def forward(self, x):
        return torch.nn.functional.linear(x, self.weight)


def _smooth_scales(act: torch.Tensor, weight_max: torch.Tensor, alpha: float) -> torch.Tensor:
    return (act.clamp_min(1e-5).pow(alpha) / weight_max.clamp_min(1e-5).pow(1 - alpha)).clamp_min(1e-5)


def build_variant(engine, originals: dict, norms: list, variant: str, calibration: dict) -> None:
    from studio.engine.int8 import Int8Linear

    llm = engine.net.llm
    for (i, owner, name), module in originals.items():  # back to the float projections
        setattr(getattr(llm.layers[i], owner), name, module)
    for layer, weight in zip(llm.layers, norms):
        layer.post_attention_layernorm.weight.data.copy_(weight)
    plan, mods = _plan(variant)
    levels, edge = int(mods.get("levels", 127)), int(mods.get("edge", 0))
    alpha = float(mods["sq"]) if "sq" in mods else None
    count = len(llm.layers)
    kept = {int(i) for i in mods["keep"].split("+")} if "keep" in mods else set()
    kept |= {i for i in range(count) if i < edge or i >= count - edge}
    for i, layer in enumerate(llm.layers):
        here = {k: mods.get("rest", "bf16") for k in KINDS} if i in kept else plan
        folded = {}
        if alpha is not None and here["gate_proj"] == here["up_proj"] == "int8":
            wg, wu = originals[(i, "mlp", "gate_proj")].weight, originals[(i, "mlp", "up_proj")].weight
            s = _smooth_scales(calibration[(i, "mlp", "gate_proj")],
                               torch.maximum(wg.abs().amax(0), wu.abs().amax(0)), alpha)
            layer.post_attention_layernorm.weight.data.div_(s)
            folded = {"gate_proj": wg * s, "up_proj": wu * s}
        for (j, owner, kind), original in originals.items():
            if j != i:
                continue
            weight = folded.get(kind, original.weight.detach())
            if variant == "smooth":  # every projection, the scales applied at run time
                s = _smooth_scales(calibration[(i, owner, kind)], weight.abs().amax(0), 0.5)
                module = Smoothed(Int8Linear.from_weight(weight * s), s)
            else:
                module = _module(weight, here[kind], levels)
            setattr(getattr(layer, owner), kind, module)


def main(argv=None) -> int:
    from studio.engine.engine import Engine

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True)
    p.add_argument("--case", default="design_english")
    p.add_argument("--calibrate-case", default="nonverbal_tags",
                   help="the case whose fp32 activations calibrate smoothing (not --case)")
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
    norms = [layer.post_attention_layernorm.weight.detach().clone() for layer in llm.layers]
    calibration: dict = {}
    hooks = [m.register_forward_pre_hook(
        lambda mod, inp, key=key: calibration.__setitem__(
            key, torch.maximum(calibration.get(key, torch.zeros(inp[0].shape[-1])),
                               inp[0].detach().abs().reshape(-1, inp[0].shape[-1]).amax(0))))
        for key, m in originals.items()]
    first_step_logits(engine, args.calibrate_case)
    for h in hooks:
        h.remove()
    truth, fp32_s = first_step_logits(engine, args.case)
    print(json.dumps({"fake_int8_vs_int8linear_at_127": round(fake_int8_check(), 7)}), flush=True)
    record("bf16 (precision)", bf16_logits, bf16_s, truth)
    record("fp32", truth, fp32_s, truth)
    for variant in args.variants.split(","):
        build_variant(engine, originals, norms, variant, calibration)
        logits, seconds = first_step_logits(engine, args.case)
        record(variant, logits, seconds, truth)
    if args.json_out:
        args.json_out.write_text(json.dumps({"checkpoint": str(args.checkpoint), "case": args.case,
                                             "calibrate_case": args.calibrate_case,
                                             "torch": torch.__version__, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
