"""CPU speed choices: precision ``auto``, the ``auto`` decode mode, prepacked bf16 layers.

bf16 results are not compared bit for bit with fp32 (they cannot be); how far
they agree is measured by benchmarks/bench_precision.py and documented in
docs/performance.md. What is asserted here is which path runs, and that the
prepacked stack computes the standard stack's logits up to bf16 rounding.
"""

from __future__ import annotations

import json

import pytest
import torch

import studio.engine.engine as engine_module
import studio.engine.precision as precision_module
from studio.cli import main
from studio.engine.cpu_layers import PackedLinear, PrepackedLayers, prepack_supported
from studio.engine.decode import DecodeOptions
from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
from studio.engine.options import resolve_decode_mode
from studio.engine.packed import layer_stack, pack, packed_logits
from studio.engine.precision import choose_precision
from studio.errors import UserError

CPU = torch.device("cpu")
GREEDY = dict(position_temperature=0.0, class_temperature=0.0)


# ------------------------------------------------------------------ precision auto


def test_auto_picks_bf16_on_a_cpu_with_native_bf16():
    choice = choose_precision("auto", CPU, bf16_feature=lambda: "avx512_bf16")
    assert choice.dtype == torch.bfloat16
    assert choice.reason == "auto: CPU has native bf16 (avx512_bf16)"


def test_auto_picks_fp32_on_a_cpu_without_native_bf16():
    choice = choose_precision("auto", CPU, bf16_feature=lambda: None, int8_feature=lambda: None)
    assert choice.dtype == torch.float32 and "no native bf16" in choice.reason


def test_auto_on_cuda_picks_the_half_precision_the_gpu_has(monkeypatch):
    cuda = torch.device("cuda")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert choose_precision("auto", cuda).dtype == torch.bfloat16
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert choose_precision("auto", cuda).dtype == torch.float16


def test_auto_elsewhere_is_fp32():
    assert choose_precision("auto", torch.device("mps"), bf16_feature=lambda: "x").dtype == torch.float32


def test_explicit_precision_is_kept_and_checked():
    assert choose_precision("fp32", CPU, bf16_feature=lambda: "avx512_bf16").dtype == torch.float32
    assert choose_precision("bf16", CPU, bf16_feature=lambda: None).reason == "requested"
    with pytest.raises(UserError):
        choose_precision("fp16", CPU)
    with pytest.raises(UserError):
        choose_precision("int4", CPU)


@pytest.mark.parametrize(
    ("flags", "torch_ok", "expected"),
    [({"avx512_bf16", "avx512f"}, True, "avx512_bf16"), ({"amx_bf16"}, True, "amx_bf16"),
     ({"avx512f", "avx2"}, True, None), ({"avx512_bf16"}, False, None)],
)
def test_cpu_feature_needs_the_flag_and_torch_support(monkeypatch, flags, torch_ok, expected):
    monkeypatch.setattr(precision_module.sys, "platform", "linux")
    monkeypatch.setattr(precision_module.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(precision_module, "_linux_cpu_flags", lambda: set(flags))
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: torch_ok)
    assert precision_module.cpu_bf16_feature() == expected


def test_cpuinfo_flags_are_read_from_x86_and_arm_lines(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu avx512_bf16 sse\n\nFeatures\t: fp asimd bf16\n")
    assert {"avx512_bf16", "bf16", "asimd"} <= precision_module._linux_cpu_flags(info)
    assert precision_module._linux_cpu_flags(tmp_path / "missing") == set()


def test_engine_load_auto_reports_its_choice(tiny_checkpoint):
    expected = choose_precision("auto", CPU)
    engine = Engine.load(tiny_checkpoint, device="cpu", precision="auto")
    assert (engine.precision, engine.dtype) == (expected.name, expected.dtype)
    # an int8 choice on a CPU without VNNI adds that its activations got 7 bits
    assert engine.precision_reason.startswith(expected.reason)
    assert engine.net.audio_heads.weight.dtype == expected.dtype


def test_cli_json_reports_precision_reason_and_packed_default(tiny_checkpoint, tmp_path, capfd):
    code = main(["synth", "--device", "cpu", "--precision", "auto", "--steps", "2",
                 "--model", str(tiny_checkpoint), "--text", "Which precision is this?",
                 "--out", str(tmp_path / "a.wav"), "--seed", "1", "--json"])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out.strip().splitlines()[-1])
    expected = choose_precision("auto", CPU)
    assert summary["precision"] == expected.name
    assert summary["precision_reason"].startswith(expected.reason)
    assert summary["decode"] == "packed"


# ------------------------------------------------------------------ decode mode auto


def test_decode_mode_defaults_to_auto_which_is_packed_on_cpu_and_padded_on_cuda():
    assert GenerationOptions().decode_mode == "auto"
    assert resolve_decode_mode("auto", CPU) == "packed"
    assert resolve_decode_mode("padded", CPU) == "padded"
    # The H200 measurement (docs/performance.md, GPU check): padded on CUDA.
    assert resolve_decode_mode("auto", torch.device("cuda", 0)) == "padded"
    assert resolve_decode_mode("auto", "cuda:1") == "padded"
    assert resolve_decode_mode("packed", "cuda") == "packed"


def test_default_options_run_the_packed_path(engine, monkeypatch):
    calls = []
    real_packed, real_padded = engine_module.decode_packed, engine_module.decode
    monkeypatch.setattr(engine_module, "decode_packed",
                        lambda *a, **k: calls.append("packed") or real_packed(*a, **k))
    monkeypatch.setattr(engine_module, "decode",
                        lambda *a, **k: calls.append("padded") or real_padded(*a, **k))
    engine.synthesize([SynthesisItem("Default layout.", seed=1)],
                      GenerationOptions(decode=DecodeOptions(num_step=2)))
    engine.synthesize([SynthesisItem("Reference layout.", seed=1)],
                      GenerationOptions(decode=DecodeOptions(num_step=2), decode_mode="padded"))
    assert calls == ["packed", "padded"]


# ------------------------------------------------------------------ prepacked bf16 layers


@pytest.fixture(scope="module")
def bf16_engine(tiny_checkpoint):
    return Engine.load(tiny_checkpoint, device="cpu", precision="bf16")


def _onednn_bf16(monkeypatch, supported: bool) -> None:
    """Inject what oneDNN says of this CPU's bf16, for the decisions built on it."""
    monkeypatch.setattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", lambda: supported)


# The prepacked kernels themselves exist only on CPUs whose oneDNN runs bf16 (AVX-512
# BF16, AMX, AVX-NE-CONVERT); elsewhere oneDNN refuses to reorder a bf16 weight. The
# decision to use them is tested on every machine above, by injection.
onednn_bf16 = pytest.mark.skipif(
    not torch.ops.mkldnn._is_mkldnn_bf16_supported(),
    reason="this CPU's oneDNN has no bf16 kernels (no AVX-512 BF16/AMX), so the prepacked "
           "bf16 path cannot run here; the decision not to use it is tested by injection",
)


@pytest.mark.parametrize("supported", [True, False])
def test_prepacking_is_chosen_for_bf16_on_a_cpu_whose_onednn_runs_bf16(
        engine, bf16_engine, monkeypatch, supported):
    _onednn_bf16(monkeypatch, supported)
    assert prepack_supported(bf16_engine.net) is supported
    assert not prepack_supported(engine.net)  # fp32: the exact path is never touched
    assert engine._cpu_layers() is None
    with pytest.raises(ValueError):
        PrepackedLayers(engine.net)


def test_without_onednn_bf16_a_bf16_render_runs_the_standard_stack(tiny_checkpoint, monkeypatch):
    _onednn_bf16(monkeypatch, False)
    made = []
    monkeypatch.setattr(engine_module, "PrepackedLayers", lambda net: made.append(net))
    fresh = Engine.load(tiny_checkpoint, device="cpu", precision="bf16")
    options = GenerationOptions(decode=DecodeOptions(num_step=2, **GREEDY))
    [result] = fresh.synthesize([SynthesisItem("Emulated bf16, standard stack.", seed=3)], options)
    assert made == [] and fresh._cpu_layers() is None
    assert torch.isfinite(torch.from_numpy(result.audio)).all()


def test_prepacked_layers_with_onednn_injected_compute_the_standard_stack(
        bf16_engine, tiny_checkpoint, monkeypatch):
    """The plumbing on every CPU: a stand-in oneDNN whose "reorder" keeps the weight and
    whose linear is F.linear gives the standard stack's logits exactly."""
    _onednn_bf16(monkeypatch, True)
    monkeypatch.setattr(torch.ops.mkldnn, "_reorder_linear_weight", lambda w, _size: w.clone())
    monkeypatch.setattr(torch.ops.mkldnn, "_linear_pointwise",
                        lambda x, w, b, *_: torch.nn.functional.linear(x, w, b))
    net = bf16_engine.net
    layers = PrepackedLayers(net)
    jobs = [bf16_engine._prepare(SynthesisItem("Injected oneDNN, same logits.", seed=2), None)]
    items = [bf16_engine._item(j, j.text, j.target_len, None, options=GenerationOptions())
             for j in jobs]
    batch = pack(items, net.audio.codebooks, "cpu")
    with torch.inference_mode():
        standard = packed_logits(net, batch, layer_stack(net, batch))
        prepacked = packed_logits(net, batch, layers(net, batch))
    assert torch.equal(prepacked, standard)
    other = Engine.load(tiny_checkpoint, device="cpu", precision="bf16")
    with pytest.raises(ValueError):
        layers(other.net, None)  # checked before the batch is read


@onednn_bf16
def test_prepacked_layers_are_built_where_the_hardware_has_bf16(bf16_engine):
    assert prepack_supported(bf16_engine.net)
    assert isinstance(bf16_engine._cpu_layers(), PrepackedLayers)


@onednn_bf16
def test_prepacked_stack_matches_the_standard_stack_and_keeps_one_copy(tiny_checkpoint):
    engine = Engine.load(tiny_checkpoint, device="cpu", precision="bf16")  # its own: modified below
    net = engine.net
    jobs = [engine._prepare(SynthesisItem("Prepacked weights, same logits.", seed=2), None)]
    items = [engine._item(j, j.text, j.target_len, None, options=GenerationOptions()) for j in jobs]
    batch = pack(items, net.audio.codebooks, "cpu")
    projection_bytes = sum(p.nbytes for name, p in net.named_parameters() if name.endswith("proj.weight"))
    with torch.inference_mode():
        standard = packed_logits(net, batch, layer_stack(net, batch)).float()
        prepacked = packed_logits(net, batch, PrepackedLayers(net)(net, batch)).float()
    assert prepacked.shape == standard.shape
    # Only bf16 rounding differs (oneDNN's blocked kernels sum in another order).
    assert float((prepacked - standard).abs().max()) < 0.05 * float(standard.abs().max())
    assert float((prepacked.argmax(-1) == standard.argmax(-1)).float().mean()) > 0.9
    # One copy of the projection weights: the modules now hold only the prepacked ones
    # (keeping the plain weights beside them cost 0.9 GB at full size).
    assert not [name for name, _ in net.named_parameters() if name.endswith("proj.weight")]
    assert all(type(m.q_proj) is PackedLinear for m in (layer.self_attn for layer in net.llm.layers))
    packed_bytes = sum(b.nbytes for m in net.modules() if isinstance(m, PackedLinear) for b in m.buffers())
    assert packed_bytes <= 1.05 * projection_bytes


@onednn_bf16
def test_bf16_packed_render_uses_the_prepacked_layers(bf16_engine, monkeypatch):
    used = []
    real = PrepackedLayers.__call__
    monkeypatch.setattr(PrepackedLayers, "__call__",
                        lambda self, net, batch: used.append(1) or real(self, net, batch))
    options = GenerationOptions(decode=DecodeOptions(num_step=3, **GREEDY))
    item = SynthesisItem("Rendered on prepacked weights.", seed=4)
    [fast] = bf16_engine.synthesize([item], options)
    assert used == [1] and torch.isfinite(torch.from_numpy(fast.audio)).all()
    bf16_engine.cpu_prepack = False
    try:
        [plain] = bf16_engine.synthesize([item], options)
    finally:
        bf16_engine.cpu_prepack = True
    assert used == [1]  # switched off: the standard stack ran
    assert fast.tokens[0].shape == plain.tokens[0].shape
