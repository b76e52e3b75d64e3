"""int8 plans that name single layers ("3.gate_proj"): what the loader and
``quantize_projections`` build where (issue 30's per-layer plans)."""

from __future__ import annotations

import torch

import studio.engine.int8 as int8
from studio.engine.engine import Engine
from studio.engine.int8 import ATTENTION_PROJECTIONS, MLP_PROJECTIONS, Int8Linear, planned

KINDS = ATTENTION_PROJECTIONS + MLP_PROJECTIONS
# gate/up int8 except in layer 0; layer 1's q_proj with two activation passes; the rest fp32.
PLAN = {**{k: "fp32" for k in KINDS}, "gate_proj": "int8", "up_proj": "int8",
        "0.gate_proj": "fp32", "0.up_proj": "fp32", "1.q_proj": "int8x2"}


def _built(llm) -> dict:
    """(layer, kind) -> "fp32", "int8" or "int8x2", from the modules in place."""
    out = {}
    for i, layer in enumerate(llm.layers):
        for kind in KINDS:
            owner = layer.self_attn if kind in ATTENTION_PROJECTIONS else layer.mlp
            module = getattr(owner, kind)
            if isinstance(module, Int8Linear):
                out[(i, kind)] = "int8x2" if module.passes == 2 else "int8"
            else:
                assert isinstance(module, torch.nn.Linear) and module.weight.dtype == torch.float32
                out[(i, kind)] = "fp32"
    return out


def _expected(layers: int) -> dict:
    want = {(i, k): "int8" if k in ("gate_proj", "up_proj") else "fp32" for i in range(layers) for k in KINDS}
    want.update({(0, "gate_proj"): "fp32", (0, "up_proj"): "fp32", (1, "q_proj"): "int8x2"})
    return want


def test_a_layer_entry_wins_over_its_kind_and_only_in_that_layer():
    assert planned(PLAN, 0, "gate_proj") == "fp32"
    assert planned(PLAN, 2, "gate_proj") == "int8"
    assert planned(PLAN, 1, "q_proj") == "int8x2" and planned(PLAN, 11, "q_proj") == "fp32"
    assert planned(PLAN, 0, "w_proj") is None


def test_quantize_projections_builds_per_layer_what_the_plan_names(tiny_checkpoint):
    engine = Engine.load(tiny_checkpoint, device="cpu", precision="fp32")
    llm = engine.net.llm
    assert len(llm.layers) >= 2  # layer 1 names q_proj only: its gate/up follow their kind
    int8.quantize_projections(llm, plan=PLAN)
    assert _built(llm) == _expected(len(llm.layers))


def test_an_int8_load_follows_a_per_layer_plan_as_it_reads(tiny_checkpoint, monkeypatch):
    monkeypatch.setattr(int8, "DEFAULT_PLAN", PLAN)
    loaded = Engine.load(tiny_checkpoint, device="cpu", precision="int8")
    assert _built(loaded.net.llm) == _expected(len(loaded.net.llm.layers))


def test_gate_up_plan_keeps_the_edge_layers_and_every_other_kind_out_of_int8():
    plan = dict(int8.gate_up_plan(layers=6, edge=2, rest="fp32"))
    got = {(i, k): planned({**int8.DEFAULT_PLAN, **plan}, i, k) for i in range(6) for k in KINDS}
    int8_at = {key for key, how in got.items() if how == "int8"}
    assert int8_at == {(i, k) for i in (2, 3) for k in ("gate_proj", "up_proj")}
    assert set(got.values()) == {"int8", "fp32"}


def test_auto_loads_the_plan_a_cpu_classes_verdict_names(tiny_checkpoint, monkeypatch):
    import studio.engine.precision as precision

    layers = len(Engine.load(tiny_checkpoint, device="cpu", precision="fp32").net.llm.layers)
    plan = int8.gate_up_plan(layers=layers, edge=1, rest="fp32")
    monkeypatch.setitem(precision.INT8_VERDICTS, "avx2", precision.Int8Verdict(True, "measured", plan))
    monkeypatch.setattr("studio.engine.engine.choose_precision",  # an AVX2-only CPU
                        lambda p, d: precision.choose_precision(p, d, lambda: None, lambda: "avx2"))
    engine = Engine.load(tiny_checkpoint, device="cpu", precision="auto")
    assert engine.precision == "int8" and "on avx2 (measured)" in engine.precision_reason
    built = _built(engine.net.llm)
    middle = range(1, layers - 1)
    assert {key for key, how in built.items() if how == "int8"} == {
        (i, k) for i in middle for k in ("gate_proj", "up_proj")}
    # asked for by name, int8 is every projection, whatever auto's plan
    forced = _built(Engine.load(tiny_checkpoint, device="cpu", precision="int8").net.llm)
    assert set(forced.values()) == {"int8"}
