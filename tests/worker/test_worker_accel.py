"""The worker holds one Accelerator: applied on load and on set_accel, reported through
accel_changed and every RenderResult, and a failing accelerated render still finishes."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions
from studio.worker.jobs import LoadRequest, RenderRequest
from studio.worker.worker import InferenceWorker
from tests.accel_fakes import FakeCudaPlatform, install_fake_flashinfer

REQUEST = RenderRequest(
    text="The worker keeps every render.",
    seeds=(5,),
    options=GenerationOptions(decode=DecodeOptions(num_step=3, position_temperature=0.0,
                                                   class_temperature=0.0), decode_mode="packed"),
    mode="design",
)


def make_worker(tiny_checkpoint, accel, platform=None):
    worker = InferenceWorker(accel_platform=platform)
    seen = {"accel": [], "results": [], "failed": [], "loading": []}
    worker.accel_changed.connect(seen["accel"].append)
    worker.finished.connect(lambda job, result: seen["results"].append(result))
    worker.failed.connect(lambda job, text: seen["failed"].append(text))
    worker.model_loading.connect(seen["loading"].append)
    worker.load_model(LoadRequest(source=str(tiny_checkpoint), device="cpu", precision="fp32",
                                  accel=accel, disk_cache=False))
    assert worker.engine is not None
    return worker, seen


def render(worker, seen):
    worker.render(1, REQUEST, threading.Event())
    assert not seen["failed"], seen["failed"]
    return seen["results"][-1]


@pytest.fixture
def standard_audio(qapp, tiny_checkpoint):
    worker, seen = make_worker(tiny_checkpoint, "off")
    try:
        return render(worker, seen).takes[0].audio
    finally:
        worker.release()


def test_out_of_memory_on_the_accelerated_path_still_finishes(qapp, tiny_checkpoint, monkeypatch,
                                                              standard_audio):
    import torch

    kernels = install_fake_flashinfer(monkeypatch)
    worker, seen = make_worker(tiny_checkpoint, "flashinfer", FakeCudaPlatform())
    try:
        first = seen["accel"][-1]
        assert (first.requested, first.active, first.reason) == ("flashinfer", "flashinfer", None)
        kernels.fail = torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1 GiB")
        result = render(worker, seen)
        reason = "flashinfer: CUDA out of memory, rendered on the standard path"
        assert (result.accel_requested, result.accel_active, result.fallback_reason) == (
            "flashinfer", "off", reason)
        assert reason in result.warnings
        assert seen["accel"][-1].reason == reason  # the status bar hears of it
        assert np.array_equal(result.takes[0].audio, standard_audio)
        runs = kernels.runs
        assert render(worker, seen).fallback_reason == reason and kernels.runs == runs  # latched
    finally:
        worker.release()
    assert worker.engine is None


def test_set_accel_applies_and_removes_the_runner(qapp, tiny_checkpoint, monkeypatch, standard_audio):
    install_fake_flashinfer(monkeypatch)
    worker, seen = make_worker(tiny_checkpoint, "off", FakeCudaPlatform())
    try:
        worker.set_accel("flashinfer-graph")
        state = seen["accel"][-1]
        assert (state.requested, state.active) == ("flashinfer-graph", "flashinfer-graph")
        assert worker.engine.layers is worker.accelerator.runner is not None
        result = render(worker, seen)
        assert (result.accel_active, result.fallback_reason) == ("flashinfer-graph", None)
        assert np.array_equal(result.takes[0].audio, standard_audio)
        worker.set_accel("off")
        assert seen["accel"][-1].active == "off" and worker.engine.layers is None
    finally:
        worker.release()


def test_compile_warm_up_shows_as_a_loading_stage(qapp, tiny_checkpoint):
    loaded = []
    worker, seen = make_worker(tiny_checkpoint, "off", FakeCudaPlatform())
    worker.model_loaded.connect(loaded.append)
    try:
        worker.set_accel("compile")
        assert seen["accel"][-1].active == "compile"
        assert any("compiling" in stage for stage in seen["loading"])
        assert loaded  # back to "ready" after the warm-up
    finally:
        worker.release()


def test_on_this_machine_flashinfer_falls_back_with_its_reasons(qapp, tiny_checkpoint):
    worker, seen = make_worker(tiny_checkpoint, "flashinfer")  # the real platform
    try:
        result = render(worker, seen)
        assert result.accel_active == "off"
        assert result.fallback_reason.startswith("flashinfer: ")
        assert result.fallback_reason.endswith(", rendered on the standard path")
    finally:
        worker.release()
