"""The worker holds one Accelerator: applied on load and on set_accel, reported through
accel_changed and every RenderResult, and a failing accelerated render still finishes."""

from __future__ import annotations

import numpy as np
import pytest

from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions
from studio.service.requests import LoadRequest, RenderRequest
from studio.worker.sentences import INTERNAL_ERROR, TAKES_NOT_SAVED
from studio.worker.worker import InferenceWorker
from tests.accel_fakes import FakeCudaPlatform, install_fake_flashinfer
from tests.job_log import job_for

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
    worker.model_loading.connect(seen["loading"].append)
    worker.load_model(LoadRequest(source=str(tiny_checkpoint), device="cpu", precision="fp32",
                                  accel=accel, disk_cache=False))
    assert worker.engine is not None
    return worker, seen


def render(worker, seen):
    worker.render(job_for(done=seen["results"], failed=seen["failed"]), REQUEST)
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


# ------------------------------------------------------------------ reload, failures, availability

def watch(worker):
    seen = {"loaded": [], "model_failed": [], "results": [], "failed": [], "availability": []}
    worker.model_loaded.connect(seen["loaded"].append)
    worker.model_failed.connect(seen["model_failed"].append)
    worker.accel_availability.connect(seen["availability"].append)
    return seen


def test_a_reload_drops_the_old_model_before_loading_the_new_one(qapp, tiny_checkpoint,
                                                                 monkeypatch):
    import gc
    import weakref

    from studio.engine.engine import Engine

    install_fake_flashinfer(monkeypatch)
    alive_at_load = []
    engines = []

    def load(source, **kwargs):
        alive_at_load.append([ref() is not None for ref in engines])
        engine = Engine.load(source, **kwargs)
        engines.append(weakref.ref(engine))
        return engine

    platform = FakeCudaPlatform()
    worker = InferenceWorker(load_engine=load, accel_platform=platform)
    seen = watch(worker)
    request = LoadRequest(source=str(tiny_checkpoint), device="cpu", precision="fp32",
                          accel="flashinfer", disk_cache=False)
    try:
        worker.load_model(request)
        worker.load_model(request)
        assert len(seen["loaded"]) == 2 and not seen["model_failed"]
        assert alive_at_load == [[], [False]]  # the first engine was gone before the second
        gc.collect()
        assert engines[0]() is None and engines[1]() is worker.engine
    finally:
        worker.release()


def test_a_failed_reload_leaves_no_model_and_render_says_so(qapp, tiny_checkpoint, caplog):
    from studio.engine.engine import Engine

    calls = []

    def load(source, **kwargs):
        calls.append(source)
        if len(calls) > 1:
            raise RuntimeError("disk on fire")
        return Engine.load(source, **kwargs)

    worker = InferenceWorker(load_engine=load)
    seen = watch(worker)
    request = LoadRequest(source=str(tiny_checkpoint), device="cpu", precision="fp32",
                          disk_cache=False)
    try:
        worker.load_model(request)
        assert worker.engine is not None
        worker.load_model(request)
        assert seen["model_failed"] == [INTERNAL_ERROR]
        assert worker.engine is None and worker.prompts is None
        assert "disk on fire" in caplog.text
        worker.render(job_for(done=seen["results"], failed=seen["failed"]), REQUEST)
        assert seen["failed"] == [
            "The model is not loaded yet; wait for it or pick a model in Settings."]
    finally:
        worker.release()


def test_an_unexpected_error_anywhere_in_a_load_ends_in_model_failed(qapp, tiny_checkpoint,
                                                                     engine, caplog):
    worker = InferenceWorker(load_engine=lambda *a, **k: engine)
    seen = watch(worker)
    request = LoadRequest(source="tiny", disk_cache=False)
    try:
        worker.load_model(request)
        assert seen["loaded"]

        accelerator = worker.accelerator

        def broken_release():  # once: when the old model is dropped
            del accelerator.release
            raise RuntimeError("unapply exploded")

        accelerator.release = broken_release  # logged, and the load goes on
        worker.load_model(request)
        assert len(seen["loaded"]) == 2 and not seen["model_failed"]
        assert "unapply exploded" in caplog.text

        def broken_prepare(_engine):
            raise RuntimeError("prepare exploded")

        worker.accelerator.prepare = broken_prepare  # after the load: still one sentence
        worker.load_model(request)
        assert seen["model_failed"] == [INTERNAL_ERROR] and len(seen["loaded"]) == 2
        assert "prepare exploded" in caplog.text
        assert worker.engine is None  # half set up is not loaded
        assert len(seen["availability"]) == 3  # after every attempt, failed or not
    finally:
        vars(worker.accelerator).pop("release", None)
        vars(worker.accelerator).pop("prepare", None)
        worker.release()


def test_a_keeper_that_raises_still_finishes_the_render_unsaved(qapp, engine, tmp_path, caplog):
    worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=tmp_path / "data")
    seen = watch(worker)
    worker.load_model(LoadRequest(source="tiny", disk_cache=False))

    def broken_save(*args, **kwargs):
        raise RuntimeError("keeper exploded")

    worker.keeper.save = broken_save
    try:
        worker.render(job_for(done=seen["results"], failed=seen["failed"]), REQUEST)
        assert not seen["failed"]
        result = seen["results"][-1]
        assert len(result.takes) == 1 and result.takes[0].audio.size > 0
        assert result.takes[0].take_id is None and result.batch is None
        assert TAKES_NOT_SAVED in result.warnings
        assert "keeper exploded" in caplog.text
    finally:
        worker.release()


def test_availability_is_computed_on_the_worker_for_its_platform(qapp, engine, monkeypatch):
    install_fake_flashinfer(monkeypatch)
    worker = InferenceWorker(load_engine=lambda *a, **k: engine, accel_platform=FakeCudaPlatform())
    seen = watch(worker)
    try:
        worker.load_model(LoadRequest(source="tiny", disk_cache=False))
        modes = ("off", "compile", "flashinfer", "flashinfer-graph")
        assert [{m: a[m] for m in modes} for a in seen["availability"]] == \
            [{mode: (True, None) for mode in modes}]
        assert seen["availability"][0]["device:cuda"] == (True, None)  # the platform's GPU
    finally:
        worker.release()


def test_availability_on_this_machine_matches_the_probe(qapp, engine):
    from studio.engine.accel_probe import hardware, probe

    worker = InferenceWorker(load_engine=lambda *a, **k: engine)
    seen = watch(worker)
    try:
        worker.load_model(LoadRequest(source="tiny", disk_cache=False))
        assert seen["availability"] == [{**probe(), **hardware()}]
    finally:
        worker.release()
