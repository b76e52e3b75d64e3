"""int8 on the CPU (studio.engine.int8): the quantised projection's numerics against a
float reference, the projections replaced and their float weights gone, ``auto``'s
decision per CPU class as measured (precision.INT8_VERDICTS), and a take rendered in
int8 recorded as int8 (CLI report and the take library)."""

from __future__ import annotations

import json
import os

import pytest
import torch
import torch.nn.functional as F

import studio.engine.precision as precision_module
from studio.cli import main
from studio.engine.engine import Engine
from studio.engine.int8 import (
    Bf16Linear,
    Int8Linear,
    activation_levels,
    bf16_linear_available,
    default_kernel,
    onednn_int8_available,
    quantize_projections,
    quantize_weight,
)
from studio.engine.options import DecodeOptions, GenerationOptions
from studio.engine.precision import INT8_VERDICTS, Int8Verdict, choose_precision
from studio.errors import UserError

CPU = torch.device("cpu")


def _int_mm_exact() -> bool:
    """torch._int_mm sums exactly here. Where oneDNN lacks VNNI it does not (seen with
    ONEDNN_MAX_CPU_ISA=AVX2: every sum came back 32640), and the studio never uses it
    there: default_kernel() picks oneDNN's quantised ops wherever torch has them."""
    g = torch.Generator().manual_seed(9)
    x = torch.randint(-127, 128, (32, 256), dtype=torch.int8, generator=g)
    w = torch.randint(-127, 128, (256, 64), dtype=torch.int8, generator=g)
    return torch.equal(torch._int_mm(x, w), x.int() @ w.int())


# The kernels that can run here: _int_mm (the fallback) where it is exact, oneDNN's where torch has it.
KERNELS = (["int_mm"] if _int_mm_exact() else []) + (["onednn"] if onednn_int8_available() else [])
# W8A8 with per-channel weights and per-token activations on Gaussian data: the
# relative Frobenius error is about 1.1 % (both operands' rounding, 1/127 steps of
# their row maxima, ~3.5 sigma for Gaussian rows of 1024); 2 % leaves room for summation
# order and still fails a per-tensor scheme on the outlier test below.
TOLERANCE = 0.02
SEVEN_BIT = "; 7-bit activations: this CPU adds int8 products in 16 bits (no VNNI)"


def rel_err(got: torch.Tensor, want: torch.Tensor) -> float:
    return float((got.double() - want).norm() / want.norm())


def test_weight_quantisation_is_symmetric_per_output_channel():
    w = torch.tensor([[1.0, -0.5, 0.25], [0.0, 0.02, -0.04]])
    values, scale = quantize_weight(w)
    assert values.dtype == torch.int8 and values.shape == (3, 2)  # (in, out)
    assert torch.allclose(scale, torch.tensor([1.0, 0.04]) / 127)
    assert values.abs().amax(dim=0).tolist() == [127, 127]  # every row uses its full range
    assert torch.allclose(values.t().float() * scale[:, None], w, atol=float(scale.max()) / 2)


@pytest.mark.parametrize("kernel", KERNELS)
def test_int8_linear_matches_the_float_projection_within_tolerance(kernel):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 300, 256, generator=g)
    w = torch.randn(384, 256, generator=g) * 0.02
    layer = Int8Linear.from_weight(w, kernel)
    y = layer(x)
    assert y.shape == (2, 300, 384) and y.dtype == torch.float32
    assert rel_err(y, F.linear(x.double(), w.double())) < TOLERANCE


@pytest.mark.parametrize("kernel", KERNELS)
def test_activations_are_scaled_per_token_so_one_loud_token_spoils_no_other(kernel):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 256, generator=g)
    x[7] *= 1000.0  # a per-tensor scale would leave the other rows ~8 levels of 255
    w = torch.randn(128, 256, generator=g) * 0.02
    y = Int8Linear.from_weight(w, kernel)(x)
    want = F.linear(x.double(), w.double())
    quiet = torch.arange(64) != 7
    assert rel_err(y[quiet], want[quiet]) < TOLERANCE
    assert rel_err(y[7:8], want[7:8]) < TOLERANCE


@pytest.mark.parametrize("kernel", KERNELS)
def test_two_activation_passes_leave_the_weight_rounding_alone(kernel):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(200, 256, generator=g)
    w = torch.randn(128, 256, generator=g) * 0.02
    want = F.linear(x.double(), w.double())
    one = rel_err(Int8Linear.from_weight(w, kernel)(x), want)
    two = rel_err(Int8Linear.from_weight(w, kernel, passes=2)(x), want)
    # what is left is the weight's rounding: the exact input through the int8 weights
    values_t, scale = quantize_weight(w)
    weight_only = rel_err(x @ (values_t.float() * scale), want)
    assert two < 0.8 * one
    assert abs(two - weight_only) < 0.05 * weight_only


@pytest.mark.parametrize("kernel", KERNELS)
def test_63_activation_levels_keep_the_projection_within_tolerance(kernel):
    g = torch.Generator().manual_seed(4)
    x = torch.randn(300, 256, generator=g).abs()  # one-sided, as after SiLU: the worst for pairs
    w = torch.randn(384, 256, generator=g) * 0.02
    layer = Int8Linear.from_weight(w, kernel, levels=63)
    assert layer.levels == 63
    assert rel_err(layer(x), F.linear(x.double(), w.double())) < TOLERANCE


# Run in a child whose oneDNN may use nothing past AVX2 (no VNNI): the kernel then adds
# each pair of u8 x s8 products in int16, as on an AVX2-only CPU or a Skylake.
_AVX2_CHILD = """
import json, torch, torch.nn.functional as F
from studio.engine.int8 import Int8Linear, activation_levels
g = torch.Generator().manual_seed(4)
x = torch.randn(300, 256, generator=g).abs()
w = torch.randn(384, 256, generator=g) * 0.02
want = F.linear(x.double(), w.double())
err = lambda layer: float((layer(x).double() - want).norm() / want.norm())
print(json.dumps({"levels": activation_levels("onednn"), "probed": err(Int8Linear.from_weight(w, "onednn")),
                  "full_range": err(Int8Linear.from_weight(w, "onednn", levels=127))}))
"""


def test_without_vnni_activations_get_63_levels_and_stay_within_tolerance():
    import os
    import subprocess
    import sys

    env = {**os.environ, "ONEDNN_MAX_CPU_ISA": "AVX2"}
    out = subprocess.run([sys.executable, "-c", _AVX2_CHILD], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    assert got["levels"] == 63
    assert got["probed"] < TOLERANCE
    assert got["full_range"] > TOLERANCE  # what 127 levels gave there: saturated sums


def test_the_levels_probe_finds_full_range_where_the_cpu_has_int8_dot_products():
    flags = precision_module._linux_cpu_flags()
    capped = bool(os.environ.get("ONEDNN_MAX_CPU_ISA"))  # a cap may hide the flags' VNNI
    if onednn_int8_available() and flags & {"avx512_vnni", "amx_int8"} and not capped:
        assert activation_levels("onednn") == 127
    if _int_mm_exact():
        assert activation_levels("int_mm") == 127  # signed activations: pairs fit in int16


def test_the_kernel_the_studio_uses_is_one_that_sums_exactly_here():
    assert default_kernel() in KERNELS
    assert default_kernel() == ("onednn" if onednn_int8_available() else "int_mm")


@pytest.mark.parametrize("available", [bf16_linear_available()])
def test_a_bf16_planned_projection_takes_and_gives_fp32(tiny_checkpoint, available):
    engine = Engine.load(tiny_checkpoint, device="cpu", precision="fp32")
    mlp = engine.net.llm.layers[0].mlp
    x = torch.randn(1, 30, mlp.down_proj.in_features, generator=torch.Generator().manual_seed(5))
    want = mlp.down_proj(x).double()
    quantize_projections(engine.net.llm, plan={"down_proj": "bf16"})
    down = engine.net.llm.layers[0].mlp.down_proj
    y = down(x)
    assert y.dtype == torch.float32
    if available:  # bf16 rounding of both operands: about 0.3 %
        assert isinstance(down, Bf16Linear) and 0 < rel_err(y, want) < 0.01
    else:  # no oneDNN bf16 here: the projection stays fp32
        assert isinstance(down, torch.nn.Linear) and rel_err(y, want) < 1e-6
    assert isinstance(engine.net.llm.layers[0].mlp.up_proj, Int8Linear)


def test_an_int8_load_quantises_as_it_reads_exactly_as_quantising_afterwards(tiny_checkpoint):
    loaded = Engine.load(tiny_checkpoint, device="cpu", precision="int8")
    after = Engine.load(tiny_checkpoint, device="cpu", precision="fp32")
    quantize_projections(after.net.llm)
    x = torch.randn(1, 40, after.net.llm.config.hidden_size, generator=torch.Generator().manual_seed(6))
    with torch.inference_mode():
        for a, b in zip(loaded.net.llm.layers, after.net.llm.layers):
            assert torch.equal(a.mlp(x), b.mlp(x))
            assert torch.equal(a.self_attn.o_proj(x[..., : a.self_attn.o_proj.in_features]),
                               b.self_attn.o_proj(x[..., : b.self_attn.o_proj.in_features]))


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_an_int8_load_refuses_a_broken_projection_weight_in_one_sentence(tiny_checkpoint, tmp_path, bad):
    import shutil

    from safetensors.torch import load_file, save_file

    copy = shutil.copytree(tiny_checkpoint, tmp_path / "OmniVoice")
    state = load_file(copy / "model.safetensors")
    name = "llm.layers.1.self_attn.q_proj.weight"
    state[name][3, 4] = bad
    save_file(state, copy / "model.safetensors")
    with pytest.raises(UserError, match=f"^.*invalid \\(NaN or infinite\\) values in {name}; .*\\.$"):
        Engine.load(copy, device="cpu", precision="int8")


def test_an_int8_load_names_a_projection_of_the_wrong_shape(tiny_checkpoint, tmp_path):
    import shutil

    copy = shutil.copytree(tiny_checkpoint, tmp_path / "OmniVoice")
    config = json.loads((copy / "config.json").read_text())
    config["llm_config"]["intermediate_size"] = 96
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(UserError, match=r"(gate|up|down)_proj\.weight of the wrong shape for this config; "):
        Engine.load(copy, device="cpu", precision="int8")


def test_quantize_projections_replaces_every_projection_and_drops_its_float_weight(tiny_checkpoint):
    engine = Engine.load(tiny_checkpoint, device="cpu", precision="int8")
    llm = engine.net.llm
    assert engine.precision == "int8" and engine.dtype == torch.float32
    for layer in llm.layers:
        projections = [layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj,
                       layer.self_attn.o_proj, layer.mlp.gate_proj, layer.mlp.up_proj,
                       layer.mlp.down_proj]
        assert all(isinstance(p, Int8Linear) for p in projections)
        assert not any(p.is_floating_point() and p.dim() == 2 for m in projections
                       for p in list(m.parameters()) + [m.packed])
    # norms, embeddings and the audio heads stay fp32
    assert engine.net.audio_heads.weight.dtype == torch.float32


def test_int8_logits_stay_close_to_fp32_on_the_random_checkpoint(tiny_checkpoint):
    fp32 = Engine.load(tiny_checkpoint, device="cpu", precision="fp32")
    int8 = Engine.load(tiny_checkpoint, device="cpu", precision="int8")
    x = torch.randn(1, 40, fp32.net.llm.config.hidden_size, generator=torch.Generator().manual_seed(2))
    layer_f, layer_q = fp32.net.llm.layers[0].mlp, int8.net.llm.layers[0].mlp
    with torch.inference_mode():
        assert rel_err(layer_q(x), layer_f(x).double()) < 2 * TOLERANCE  # two projections in a row


# ------------------------------------------------------------------ auto, as measured


def test_auto_follows_the_measured_verdict_for_native_bf16_cpus():
    verdict = INT8_VERDICTS["avx512_bf16"]
    choice = choose_precision("auto", CPU, bf16_feature=lambda: "avx512_bf16",
                              int8_feature=lambda: "avx512_vnni")
    if verdict.picks_int8:
        assert choice.name == "int8" and verdict.evidence in choice.reason
    else:
        assert choice.name == "bf16" and choice.reason == "auto: CPU has native bf16 (avx512_bf16)"


def test_auto_follows_the_measured_verdict_for_avx2_only_cpus():
    verdict = INT8_VERDICTS["avx2"]
    choice = choose_precision("auto", CPU, bf16_feature=lambda: None, int8_feature=lambda: "avx2")
    if verdict.picks_int8:
        assert choice.name == "int8" and choice.plan == verdict.plan
    else:
        assert choice.name == "fp32" and choice.reason == "auto: CPU has no native bf16"


def test_auto_picks_int8_where_a_verdict_says_so_and_the_cpu_has_int8_kernels(monkeypatch):
    monkeypatch.setitem(INT8_VERDICTS, "avx_vnni", Int8Verdict(True, "1.5x fp32, agreement 0.9"))
    choice = choose_precision("auto", CPU, bf16_feature=lambda: None, int8_feature=lambda: "avx_vnni")
    assert (choice.name, choice.dtype) == ("int8", torch.float32)
    assert choice.reason == ("auto: int8 measured faster and as accurate as bf16 on avx_vnni "
                             "(1.5x fp32, agreement 0.9)")
    # the same verdict without int8 kernels (torch lacks oneDNN's quantised ops): no int8
    monkeypatch.setitem(INT8_VERDICTS, "amx_bf16", Int8Verdict(True, "x"))
    none = choose_precision("auto", CPU, bf16_feature=lambda: "amx_bf16", int8_feature=lambda: None)
    assert none.name == "bf16"


def test_auto_keeps_its_choice_on_a_cpu_class_nobody_measured(monkeypatch):
    monkeypatch.delitem(INT8_VERDICTS, "avx512_vnni", raising=False)
    choice = choose_precision("auto", CPU, bf16_feature=lambda: None, int8_feature=lambda: "avx512_vnni")
    assert choice.name == "fp32" and "no native bf16" in choice.reason


@pytest.mark.parametrize(("flags", "expected"), [({"avx512_vnni", "avx512f"}, "avx512_vnni"),
                                                 ({"amx_int8", "avx512_vnni"}, "amx_int8"),
                                                 ({"avx2", "fma"}, "avx2"),
                                                 ({"sse4_2"}, None)])
def test_int8_feature_reads_the_cpu_flags(monkeypatch, flags, expected):
    monkeypatch.setattr(precision_module.sys, "platform", "linux")
    monkeypatch.setattr(precision_module, "_linux_cpu_flags", lambda: set(flags))
    monkeypatch.setattr(precision_module, "onednn_int8_available", lambda: True)
    assert precision_module.cpu_int8_feature() == expected


def test_int8_is_refused_off_the_cpu_in_one_sentence():
    with pytest.raises(UserError, match=r"^int8 runs on the CPU only; .*\.$"):
        choose_precision("int8", torch.device("cuda"))


# ------------------------------------------------------------------ a take in int8


def test_cli_reports_int8(tiny_checkpoint, tmp_path, capfd):
    code = main(["synth", "--device", "cpu", "--precision", "int8", "--steps", "2",
                 "--model", str(tiny_checkpoint), "--text", "Eight bits each.",
                 "--out", str(tmp_path / "a.wav"), "--seed", "1", "--json"])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out.strip().splitlines()[-1])
    # without VNNI the reason also says activations got 7 bits (see the saturation tests)
    seven_bit = activation_levels(default_kernel()) < 127
    assert summary["precision"] == "int8"
    assert summary["precision_reason"] == "requested" + (SEVEN_BIT if seven_bit else "")


def test_a_take_rendered_in_int8_records_int8(tiny_checkpoint, tmp_path, qapp):
    from studio.library.takes import TakeLibrary
    from studio.service.requests import LoadRequest, RenderRequest
    from studio.worker.worker import InferenceWorker
    from tests.job_log import job_for

    engine = Engine.load(tiny_checkpoint, device="cpu", precision="int8")
    worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=tmp_path)
    loaded, finished, failed = [], [], []
    worker.model_loaded.connect(loaded.append)
    try:
        worker.load_model(LoadRequest(source="tiny", precision="int8", disk_cache=False))
        worker.render(job_for(done=finished, failed=failed),
                      RenderRequest("Stored as int8.", seeds=(3,), mode="design",
                                    options=GenerationOptions(decode=DecodeOptions(num_step=2))))
        assert not failed, failed
        assert loaded[-1].precision == "int8"
        assert finished[-1].precision == "int8"
        with TakeLibrary(tmp_path, read_only=True) as library:
            [take] = library.list()
        assert take.run.precision == "int8"
    finally:
        worker.release()
