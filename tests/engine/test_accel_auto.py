"""``auto`` acceleration decided by recorded GPU measurements (injected here): the
fastest mode that is token-exact or as accurate as bf16 against fp32, among those
this machine can run; the standard path while nothing is recorded."""

from __future__ import annotations

import pytest

import studio.engine.accel.evidence as evidence
from studio.engine.accel.accelerator import Accelerator
from studio.engine.accel.evidence import Measured, choose, distill
from tests.accel_fakes import FakeCudaPlatform


def row(mode, batch, speedup, agreement, **extra):
    return {"mode": mode, "batch": batch, "median_s": 1.0 / speedup, "speedup": speedup,
            "agreement": agreement, **extra}


def results(truth):
    """A gpu_check JSON: padded-graph exact, FlashInfer faster but not exact."""
    rows = [row("reference", 1, 1.0, 1.0), row("padded", 1, 1.5, 1.0),
            row("packed", 1, 1.47, 0.5), row("padded-graph", 1, 9.0, 1.0),
            row("flashinfer", 1, 4.3, 0.73), row("flashinfer-graph", 1, 14.1, 0.73),
            row("padded-graph", 4, 3.0, 1.0), row("flashinfer-graph", 4, 4.7, 0.61)]
    checkpoints = {name: {"reference": {"mean_token_agreement": bar},
                          "flashinfer-graph": {"mean_token_agreement": fi},
                          "padded-graph": {"mean_token_agreement": bar}}
                   for name, (bar, fi) in truth.items()}
    return {"rows": rows, "quality": {"bar_is_reference": True, "checkpoints": checkpoints}}


def test_nothing_recorded_means_the_standard_path():
    assert evidence.RECORDED == ()  # until a GPU run is recorded, and then this test changes
    assert choose(lambda mode: True) == ("off", evidence.NO_EVIDENCE)


def test_fastest_as_accurate_mode_wins():
    measured = distill(results({"random": (0.61, 0.62), "realistic_margins": (0.95, 0.95)}))
    assert {m.mode: (m.exact, m.as_accurate) for m in measured} == {
        "off": (True, False), "graph": (True, True), "flashinfer": (False, False),
        "flashinfer-graph": (False, True)}
    assert choose(lambda mode: True, measured)[0] == "flashinfer-graph"
    # Without FlashInfer installed: the exact graphs on the standard path.
    assert choose(lambda mode: mode == "graph", measured)[0] == "graph"
    assert choose(lambda mode: False, measured)[0] == "off"


def test_less_accurate_than_bf16_on_any_checkpoint_is_not_chosen():
    measured = distill(results({"random": (0.61, 0.62), "realistic_margins": (0.95, 0.90)}))
    mode, why = choose(lambda mode: True, measured)
    assert mode == "graph" and "token-exact" in why


def test_a_mode_that_fell_back_in_the_check_is_no_evidence():
    data = results({"random": (0.6, 0.7)})
    data["rows"][5]["accel_active"] = "off"  # flashinfer-graph fell back at batch 1
    assert "flashinfer-graph" not in {m.mode for m in distill(data)}
    data = results({"random": (0.6, 0.7)})
    data["quality"]["checkpoints"]["random"]["flashinfer-graph"]["accel_active"] = "off"
    assert not {m.mode: m for m in distill(data)}["flashinfer-graph"].as_accurate


def test_a_bar_that_was_not_the_reference_s_tokens_proves_nothing():
    data = results({"random": (0.6, 0.7)})
    data["quality"]["bar_is_reference"] = False  # padded bf16 differed from the reference there
    assert choose(lambda mode: True, distill(data))[0] == "graph"


def test_auto_through_the_accelerator(engine, monkeypatch):
    monkeypatch.setattr(evidence, "RECORDED", (Measured("flashinfer-graph", 14.0, False, True),
                                               Measured("graph", 9.0, True, True)))
    acc = Accelerator("auto", platform=FakeCudaPlatform(packages=("triton",)))
    try:
        report = acc.prepare(engine)  # no FlashInfer here: the next fastest
        assert (report.requested, report.active, report.reason) == ("auto", "graph", None)
        assert "graph: fastest measured (9.00x" in acc.auto_choice
    finally:
        acc.release()
    acc = Accelerator("auto", platform=FakeCudaPlatform(capability=None))
    assert acc.prepare(engine).active == "off"  # no CUDA GPU: the standard path, no reason
    assert acc.report.reason is None


@pytest.mark.parametrize("recorded", [(), (Measured("graph", 9.0, True, True),)])
def test_auto_on_the_cpu_is_the_standard_path(engine, monkeypatch, recorded):
    monkeypatch.setattr(evidence, "RECORDED", recorded)
    acc = Accelerator("auto")
    assert acc.prepare(engine).active == "off" and acc.report.reason is None
