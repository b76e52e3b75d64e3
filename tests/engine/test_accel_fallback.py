"""The one fallback contract (studio.engine.accel.Accelerator), every branch on the CPU:
a named reason, the standard path's tokens, and a latch so a failed mode is not retried."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from studio.engine.accel.accelerator import Accelerator
from studio.engine.accel.flashinfer_runner import FlashInferRunner
from studio.engine.accel.reasons import REASONS, classify, reason
from studio.engine.decode import Cancelled, DecodeOptions
from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
from tests.accel_fakes import FakeCudaPlatform, install_fake_flashinfer

TAIL = ", rendered on the standard path"


@pytest.fixture(scope="module")
def engine(tiny_checkpoint):
    return Engine.load(tiny_checkpoint, device="cpu", precision="fp32")


@pytest.fixture
def kernels(monkeypatch):
    return install_fake_flashinfer(monkeypatch)


OPTIONS = GenerationOptions(
    decode=DecodeOptions(num_step=4, position_temperature=0.0, class_temperature=0.0),
    decode_mode="packed",
)
ITEMS = [SynthesisItem("Fallbacks never lose a render.", seed=7),
         SynthesisItem("A second item in the batch.", seed=8)]


@pytest.fixture(scope="module")
def standard(engine):
    return [t for r in engine.synthesize(ITEMS, OPTIONS) for t in r.tokens]


def render(engine):
    return lambda: [t for r in engine.synthesize(ITEMS, OPTIONS) for t in r.tokens]


def assert_standard(tokens, standard):
    assert len(tokens) == len(standard)
    assert all(torch.equal(a, b) for a, b in zip(tokens, standard))


def prepared(engine, mode="flashinfer", **platform):
    acc = Accelerator(mode, platform=FakeCudaPlatform(**platform))
    report = acc.prepare(engine)
    return acc, report


def test_flashinfer_applies_and_renders_the_standard_tokens(engine, kernels, standard):
    acc, report = prepared(engine)
    try:
        assert (report.requested, report.active, report.reason) == ("flashinfer", "flashinfer", None)
        assert engine.layers is acc.runner
        assert_standard(acc.run(render(engine)), standard)
        assert kernels.runs > 0
    finally:
        acc.release()
    assert engine.layers is None



@pytest.mark.parametrize("mode", ["flashinfer", "flashinfer-graph"])
def test_flashinfer_runs_its_kernels_at_prepare_as_a_loading_stage(engine, kernels, standard, mode):
    """FlashInfer compiles its kernels at their first use (minutes, the first time on a
    machine): prepare() runs them once, said as a stage, so no render seems to hang."""
    stages = []
    acc = Accelerator(mode, platform=FakeCudaPlatform(), on_stage=stages.append)
    try:
        report = acc.prepare(engine)
        assert report.active == mode and kernels.runs > 0  # before any render
        assert stages == ["preparing FlashInfer's kernels (minutes the first time on this "
                          "machine) …", "FlashInfer ready"]
        assert not acc.runner.graphs and acc.platform.captures == 0  # no graph for the dummy
        assert_standard(acc.run(render(engine)), standard)
    finally:
        acc.release()


def test_a_kernel_failure_in_the_warm_up_is_named_and_latched(engine, kernels, standard):
    kernels.fail = RuntimeError("CUDA error: no kernel image is available for execution")
    acc, report = prepared(engine)
    assert report.reason == "flashinfer: kernel failed at run time (RuntimeError)" + TAIL
    assert report.codes == ("kernel_failed",) and engine.layers is None
    kernels.fail = None
    assert_standard(acc.run(render(engine)), standard)
    assert acc.prepare(engine).codes == ("kernel_failed",)  # latched: not tried again

@pytest.mark.parametrize("platform, text", [
    (dict(packages=()), "flashinfer: package not installed"),
    (dict(capability=None), "flashinfer: no CUDA GPU"),
    (dict(model_on_cuda=False), "flashinfer: the model runs on cpu, not on a CUDA GPU"),
    (dict(capability=(7, 5), archs=("sm_75",)), "flashinfer: GPU sm_75 is older than sm_80"),
    (dict(allow_fp32=False), "flashinfer: the model is loaded in fp32 and the kernels need bf16 or fp16"),
], ids=["package-missing", "no-cuda", "non-cuda-device", "arch-below-sm80", "fp32-weights"])
def test_refusals_are_named_and_render_on_the_standard_path(engine, kernels, standard, platform, text):
    acc, report = prepared(engine, **platform)
    assert report.active == "off" and report.reason == text + TAIL
    assert engine.layers is None and acc.runner is None
    assert_standard(acc.run(render(engine)), standard)
    assert kernels.runs == 0


def test_an_apply_failure_is_undone_named_and_latched(engine, kernels, standard, monkeypatch):
    before = {k: v.clone() for k, v in engine.net.state_dict().items()}
    ids = {n: id(p) for n, p in engine.net.named_parameters()}
    calls = []
    original = FlashInferRunner._fuse

    def fuse_then_fail(self, linears):
        out = original(self, linears)
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("bad shape")
        return out

    monkeypatch.setattr(FlashInferRunner, "_fuse", fuse_then_fail)
    acc, report = prepared(engine)
    assert report.reason == "flashinfer: setup failed (ValueError)" + TAIL
    assert report.codes == ("apply_failed",)
    assert engine.layers is None
    assert {n: id(p) for n, p in engine.net.named_parameters()} == ids
    after = engine.net.state_dict()
    assert all(torch.equal(after[k], v) for k, v in before.items())
    assert all(p.untyped_storage().nbytes() == p.numel() * p.element_size()
               for p in engine.net.parameters())  # no parameter left inside a fused tensor
    assert_standard(acc.run(render(engine)), standard)
    calls.clear()
    assert acc.prepare(engine).codes == ("apply_failed",) and not calls  # latched: not tried again


@pytest.mark.parametrize("error, text, code", [
    (RuntimeError("CUDA error: an illegal memory access was encountered"),
     "flashinfer: kernel failed at run time (RuntimeError)", "kernel_failed"),
    (torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB"),
     "flashinfer: CUDA out of memory", "out_of_memory"),
], ids=["kernel-failure", "out-of-memory"])
@pytest.mark.parametrize("mode", ["flashinfer", "flashinfer-graph"])
def test_a_runtime_failure_rerenders_once_and_latches(engine, kernels, standard, error, text, code, mode):
    acc, report = prepared(engine, mode)
    assert report.active == mode
    kernels.fail = error
    tokens = acc.run(render(engine))
    assert_standard(tokens, standard)  # the render is not lost
    assert acc.report.active == "off" and acc.report.reason == text + TAIL
    assert acc.report.codes == (code,)
    assert engine.layers is None and acc.runner is None
    assert acc.platform.emptied >= 1
    runs = kernels.runs
    kernels.fail = None
    assert_standard(acc.run(render(engine)), standard)
    assert kernels.runs == runs  # latched: the second render does not try again
    assert acc.prepare(engine).reason == text + TAIL  # nor does a new prepare()
    acc.request("off")
    assert acc.prepare(engine).reason is None


def test_cancel_is_not_a_fallback(engine, kernels):
    import threading

    acc, _ = prepared(engine)
    cancel = threading.Event()
    cancel.set()
    try:
        with pytest.raises(Cancelled):
            acc.run(lambda: engine.synthesize(ITEMS, OPTIONS, cancel=cancel))
        assert acc.report.active == "flashinfer" and acc.runner is not None
    finally:
        acc.release()


def test_compile_gate_follows_the_arch_list_with_an_override(engine, kernels, standard):
    compiled = []

    def fake_compile(fn):
        compiled.append(fn)
        return fn

    platform = dict(capability=(12, 0), archs=("sm_80", "sm_90"), compile=fake_compile)
    acc, report = prepared(engine, "compile", **platform)
    assert report.reason == "compile: GPU sm_120 not in this torch build" + TAIL and not compiled
    stages = []
    acc = Accelerator("compile", platform=FakeCudaPlatform(**platform), on_stage=stages.append,
                      environ={"OMNIVOICE_COMPILE_ANY_ARCH": "1"})
    try:
        assert acc.prepare(engine).active == "compile"
        assert compiled and stages[0].startswith("compiling") and stages[-1] == "compiled"
        assert_standard(acc.run(render(engine)), standard)
    finally:
        acc.release()
    assert engine.layers is None
    missing = Accelerator("compile", platform=FakeCudaPlatform(packages=("flashinfer",)))
    assert missing.prepare(engine).reason == "compile: triton not installed" + TAIL


def test_compile_failure_in_the_warm_up_is_a_setup_failure(engine, kernels, standard):
    def broken(fn):
        def run(*args):
            raise RuntimeError("inductor failed")
        return run

    acc = Accelerator("compile", platform=FakeCudaPlatform(compile=broken))
    report = acc.prepare(engine)  # the warm-up runs the compiled code already
    assert report.reason == "compile: setup failed (RuntimeError)" + TAIL
    assert report.codes == ("apply_failed",) and engine.layers is None
    assert acc.platform.resets >= 1  # nothing compiled stays cached
    assert_standard(acc.run(render(engine)), standard)


def test_compile_failure_at_run_time_falls_back(engine, kernels, standard):
    broken = []

    def flaky(fn):
        def run(*args):
            if broken:
                raise RuntimeError("inductor failed")
            return fn(*args)
        return run

    acc = Accelerator("compile", platform=FakeCudaPlatform(compile=flaky))
    assert acc.prepare(engine).active == "compile"  # the warm-up worked
    resets = acc.platform.resets
    broken.append(1)
    assert_standard(acc.run(render(engine)), standard)
    assert acc.report.reason == "compile: kernel failed at run time (RuntimeError)" + TAIL
    assert acc.report.codes == ("kernel_failed",) and acc.report.active == "off"
    assert engine.layers is None and acc.latched("compile")
    assert acc.platform.resets > resets  # the compiled code is dropped, not kept cached


def test_compile_unapply_resets_the_compiler(engine, kernels):
    acc = Accelerator("compile", platform=FakeCudaPlatform())
    assert acc.prepare(engine).active == "compile"
    assert acc.platform.resets == 0
    acc.release()
    assert acc.platform.resets == 1 and engine.layers is None


def _keep_runner(monkeypatch, kept, fail=True):
    """FlashInferRunner.unapply that notes its runner and raises instead of undoing anything."""
    def unapply(self):
        kept.append(self)
        if fail:
            raise RuntimeError("unapply broke")

    monkeypatch.setattr(FlashInferRunner, "unapply", unapply)


def test_an_unapply_failure_still_renders_on_the_standard_path(engine, kernels, standard, monkeypatch):
    original, kept = FlashInferRunner.unapply, []
    acc, report = prepared(engine)
    assert report.active == "flashinfer"
    _keep_runner(monkeypatch, kept)
    kernels.fail = torch.cuda.OutOfMemoryError("CUDA out of memory")
    try:
        # The weights are still views of the fused tensors: the standard path computes with them.
        assert_standard(acc.run(render(engine)), standard)
        assert acc.report.reason == "flashinfer: CUDA out of memory" + TAIL
        assert acc.report.active == "off" and acc.latched("flashinfer")
        assert engine.layers is None and acc.runner is None and len(kept) == 1
    finally:
        for runner in kept:
            original(runner)


def test_an_unapply_failure_after_a_failed_apply_is_logged_and_latched(engine, kernels, monkeypatch):
    original, kept, calls = FlashInferRunner.unapply, [], []
    fuse = FlashInferRunner._fuse

    def fuse_then_fail(self, linears):
        out = fuse(self, linears)
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("bad shape")
        return out

    monkeypatch.setattr(FlashInferRunner, "_fuse", fuse_then_fail)
    _keep_runner(monkeypatch, kept)
    try:
        acc, report = prepared(engine)  # does not raise
        assert report.reason == "flashinfer: setup failed (ValueError)" + TAIL
        assert acc.report == report and acc.latched("flashinfer") and engine.layers is None
    finally:
        for runner in kept:
            original(runner)


def test_memory_is_released_after_the_failed_render_lets_go(engine, kernels, standard, monkeypatch):
    import sys
    import weakref

    class Activations:
        pass

    original, seen, refs = FlashInferRunner.unapply, [], []

    def unapply(self):
        seen.append((sys.exc_info()[0], refs[0]() is None))
        original(self)

    def failing_render():
        activations = Activations()  # what a failed render's frames keep alive
        refs.append(weakref.ref(activations))
        return render(engine)()

    acc, _ = prepared(engine)
    monkeypatch.setattr(FlashInferRunner, "unapply", unapply)
    kernels.fail = torch.cuda.OutOfMemoryError("CUDA out of memory")  # keeps its traceback
    assert_standard(acc.run(failing_render), standard)
    # Not inside the except block, and the failed render's frames already let go.
    assert seen == [(None, True)]
    assert acc.report.codes == ("out_of_memory",) and acc.platform.emptied >= 1


def test_a_malformed_override_is_the_reported_reason(engine, kernels, standard):
    acc = Accelerator("flashinfer", platform=FakeCudaPlatform(),
                      environ={"OMNIVOICE_COMPILE_ANY_ARCH": "maybe"})
    assert acc.prepare(engine).active == "flashinfer"
    acc.request("compile")
    report = acc.prepare(engine)  # the sentence, not an exception
    assert acc.report is report and (report.requested, report.active) == ("compile", "off")
    assert report.reason.startswith("OMNIVOICE_COMPILE_ANY_ARCH must be 1/on/true or 0/off/false")
    assert engine.layers is None and acc.runner is None
    assert_standard(acc.run(render(engine)), standard)


SAMPLES = {"package": "package", "arch": "sm_75", "device": "cpu", "error": "<error>"}


def test_every_reason_is_documented_and_classify_names_them():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "performance.md").read_text()
    section = docs[docs.index("## Fallback reasons"):]
    for code, template in REASONS.items():
        fields = dict(SAMPLES, arch="sm_120") if code == "arch_not_in_build" else SAMPLES
        assert template.format(**fields) in section, code
    assert classify(torch.cuda.OutOfMemoryError("CUDA out of memory")).code == "out_of_memory"
    assert classify(RuntimeError("CUDA error: out of memory")).code == "out_of_memory"
    assert classify(ModuleNotFoundError("no", name="flashinfer")).detail == "flashinfer not installed"
    assert classify(RuntimeError("x")).code == "kernel_failed"
    assert classify(RuntimeError("x"), during="apply").code == "apply_failed"
    assert reason("out_of_memory").text("flashinfer") == "flashinfer: CUDA out of memory" + TAIL
