"""FlashInferRunner on the CPU through a fake FlashInfer with the same math:
same tokens as the standard packed path, no duplicate weights, an exact unapply,
nothing shared between runners, a bounded graph cache owned by one thread."""

from __future__ import annotations

import threading
from types import MethodType

import pytest
import torch

from studio.engine.accel.flashinfer_runner import FlashInferRunner, RunnerError, load_flashinfer
from studio.engine.decode import DecodeOptions
from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
from studio.engine.packed import pack
from tests.accel_fakes import FakeCudaPlatform, install_fake_flashinfer


@pytest.fixture(scope="module")
def fresh(tiny_checkpoint):
    """Engines of their own: these tests patch weights, the shared engine stays untouched."""
    return lambda: Engine.load(tiny_checkpoint, device="cpu", precision="fp32")


@pytest.fixture(scope="module")
def engine_a(fresh):
    return fresh()


@pytest.fixture
def kernels(monkeypatch):
    return install_fake_flashinfer(monkeypatch)


def greedy(steps: int = 5, **settings) -> GenerationOptions:
    return GenerationOptions(
        decode=DecodeOptions(num_step=steps, position_temperature=0.0, class_temperature=0.0,
                             **settings),
        decode_mode="packed",
    )


def requests(prompt=None):
    items = [SynthesisItem("Hello there, a voice design test.", instruct="female, low pitch"),
             SynthesisItem("A second, longer item of the same batch runs here."),
             SynthesisItem("Two of the same.", seed=4), SynthesisItem("Two of the same.", seed=5)]
    if prompt is not None:
        items.append(SynthesisItem("Cloned from the reference clip.", prompt=prompt))
    return items


def make_runner(engine, graph=False, **kwargs):
    platform = FakeCudaPlatform()
    return FlashInferRunner(engine.net, load_flashinfer(platform), platform, graph=graph, **kwargs)


def tokens_of(renders):
    return [t for r in renders for t in r.tokens]


def snapshot(net):
    """Everything unapply must give back: parameter objects, values, storages, forwards."""
    params = dict(net.named_parameters())
    return {
        "ids": {name: id(p) for name, p in params.items()},
        "state": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "own_storage": {name: (p.storage_offset(), p.untyped_storage().nbytes() == p.numel() * p.element_size())
                        for name, p in params.items()},
        "shared": len({p.untyped_storage().data_ptr() for p in params.values()}),
        "forwards": {name: m.__dict__.get("forward") for name, m in net.named_modules()},
    }


def assert_same(before, after):
    assert after["ids"] == before["ids"]
    assert after["state"].keys() == before["state"].keys()
    assert all(torch.equal(after["state"][k], v) for k, v in before["state"].items())
    assert after["own_storage"] == before["own_storage"]
    assert after["shared"] == before["shared"]
    assert after["forwards"] == before["forwards"]


@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
def test_runner_tokens_equal_the_standard_packed_path(engine_a, kernels, speech, graph):
    prompt = engine_a.create_prompt((speech(3.0, seed=2), 24000), "A short reference sentence")
    for options in (greedy(), greedy(guidance_scale=0.0), greedy(t_shift=0.5, layer_penalty=2.0)):
        standard = tokens_of(engine_a.synthesize(requests(prompt), options))
        runner = make_runner(engine_a, graph=graph, bucket=64)
        runner.apply()
        engine_a.layers = runner
        try:
            fast = tokens_of(engine_a.synthesize(requests(prompt), options))
        finally:
            engine_a.layers = None
            runner.unapply()
        assert kernels.runs > 0  # the fake kernels really ran
        assert len(fast) == len(standard)
        assert all(torch.equal(a, b) for a, b in zip(standard, fast))


def test_fused_weights_are_views_not_copies(engine_a, kernels):
    net = engine_a.net
    layer = net.llm.layers[0]
    before = sum(p.untyped_storage().nbytes() for p in net.parameters())
    runner = make_runner(engine_a)
    runner.apply()
    try:
        q, k, v = layer.self_attn.q_proj.weight, layer.self_attn.k_proj.weight, layer.self_attn.v_proj.weight
        fused = runner._layers[0][1]
        assert q.untyped_storage().data_ptr() == k.untyped_storage().data_ptr() == fused.untyped_storage().data_ptr()
        gate = layer.mlp.gate_proj.weight
        assert gate.untyped_storage().data_ptr() == runner._layers[0][2].untyped_storage().data_ptr()
        # Memory held by the weights is unchanged: each fused tensor replaced its pieces.
        distinct = {p.untyped_storage().data_ptr(): p.untyped_storage().nbytes() for p in net.parameters()}
        assert sum(distinct.values()) == before
        assert torch.equal(fused, torch.cat([q, k, v]))
    finally:
        runner.unapply()


def test_unapply_restores_exactly_and_keeps_other_forwards(engine_a, kernels):
    net = engine_a.net
    mine = MethodType(lambda self, x: x, net.llm.norm)
    net.llm.norm.forward = mine  # an unrelated instance forward that must survive
    try:
        before = snapshot(net)
        runner = make_runner(engine_a)
        runner.apply()
        runner.unapply()
        after = snapshot(net)
        assert_same(before, after)
        assert net.llm.norm.__dict__["forward"] is mine
        assert runner.workspace is None and not runner._layers and not runner.graphs
    finally:
        del net.llm.norm.forward


def test_a_failure_halfway_through_apply_is_undone(engine_a, kernels, monkeypatch):
    net = engine_a.net
    before = snapshot(net)
    calls = []
    original = FlashInferRunner._fuse

    def fuse_then_fail(self, linears):
        out = original(self, linears)
        calls.append(1)
        if len(calls) == 3:  # layer 0 done, layer 1's QKV already fused
            raise RuntimeError("simulated failure while patching")
        return out

    monkeypatch.setattr(FlashInferRunner, "_fuse", fuse_then_fail)
    runner = make_runner(engine_a)
    with pytest.raises(RuntimeError):
        runner.apply()
    runner.unapply()
    assert_same(before, snapshot(net))


def test_two_runners_on_two_engines_share_nothing(fresh, kernels):
    one, two = fresh(), fresh()
    a, b = make_runner(one), make_runner(two)
    a.apply()
    b.apply()
    try:
        assert a.workspace.data_ptr() != b.workspace.data_ptr()
        assert a.wrapper is not b.wrapper
        ptrs = lambda r: {t.untyped_storage().data_ptr() for _, *fused in r._layers for t in fused}  # noqa: E731
        assert not ptrs(a) & ptrs(b)
        one.layers, two.layers = a, b
        options = greedy(steps=3)
        first = tokens_of(one.synthesize([SynthesisItem("Engine one.", seed=1)], options))
        b.unapply()
        two.layers = None
        again = tokens_of(one.synthesize([SynthesisItem("Engine one.", seed=1)], options))
        assert all(torch.equal(x, y) for x, y in zip(first, again))  # unaffected by b's unapply
    finally:
        a.unapply()


def _batch(engine, lengths):
    spec = engine.net.audio
    from studio.engine.decode import DecodeItem

    items = [DecodeItem(torch.full((spec.codebooks, n), spec.mask_id), 0, n) for n in lengths]
    return pack(items, spec.codebooks, "cpu")


def test_graph_cache_is_bounded_and_least_recently_used_goes(engine_a, kernels):
    runner = make_runner(engine_a, graph=True, max_graphs=2, bucket=16)
    runner.apply()
    try:
        with torch.inference_mode():
            # Each item packs as two documents (conditional, unconditional): packed lengths
            # 10, 40, 10 (a hit), 80 -> buckets 16, 48, 16, 96.
            for lengths in ([5], [20], [5], [40]):
                batch = _batch(engine_a, lengths)
                runner(engine_a.net, batch)(engine_a.net.embed(batch.ids, batch.audio_mask))
        assert len(runner.graphs) == 2
        assert list(runner.graphs) == [(3, 16), (3, 96)]  # (documents + padding, padded length)
        assert runner.platform.captures == 3
    finally:
        runner.unapply()


def test_graph_mode_refuses_another_thread(engine_a, kernels):
    runner = make_runner(engine_a, graph=True, bucket=16)
    runner.apply()
    errors = []

    def other():
        try:
            runner(engine_a.net, _batch(engine_a, [5]))
        except RunnerError as exc:
            errors.append(exc)

    try:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert errors and "thread" in str(errors[0])
        assert not runner.graphs  # nothing was captured for the other thread
    finally:
        runner.unapply()


def test_graphs_share_one_memory_pool_owned_by_the_runner(engine_a, kernels):
    runner = make_runner(engine_a, graph=True, bucket=16)
    runner.apply()
    try:
        with torch.inference_mode():
            for lengths in ([5], [20], [40]):
                batch = _batch(engine_a, lengths)
                runner(engine_a.net, batch)(engine_a.net.embed(batch.ids, batch.audio_mask))
        pools = runner.platform.pools
        assert len(pools) == 3 and pools[0] is not None
        assert all(pool is pools[0] for pool in pools)  # one pool, not one per bucket
    finally:
        runner.unapply()
    assert runner._graph_pool is None
    runner.apply()  # a new apply gets a new pool
    try:
        batch = _batch(engine_a, [5])
        with torch.inference_mode():
            runner(engine_a.net, batch)(engine_a.net.embed(batch.ids, batch.audio_mask))
        assert runner.platform.pools[-1] is not pools[0]
    finally:
        runner.unapply()


class _Probe(list):
    """A _Fused entry's parameter list that notes the runner's state when unapply restores it."""

    def __init__(self, params, runner, fused, seen):
        super().__init__(params)
        self.runner, self.fused, self.seen = runner, fused, seen

    def __iter__(self):
        r = self.runner
        alive = sum(ref() is not None for ref in self.fused)
        self.seen.append((r.workspace is None and r.wrapper is None and not r.graphs and not r._layers,
                          alive))
        return super().__iter__()


def test_unapply_drops_graphs_and_workspace_first_and_frees_fused_tensors_one_by_one(engine_a, kernels):
    import weakref

    before = snapshot(engine_a.net)
    runner = make_runner(engine_a, graph=True, bucket=16)
    runner.apply()
    batch = _batch(engine_a, [5])
    with torch.inference_mode():
        runner(engine_a.net, batch)(engine_a.net.embed(batch.ids, batch.audio_mask))
    assert runner.graphs
    fused = [weakref.ref(entry.tensor) for entry in runner._fused]
    seen: list = []
    for entry in runner._fused:
        entry.params = _Probe(entry.params, runner, fused, seen)
    del entry
    emptied = runner.platform.emptied
    runner.unapply()
    assert len(seen) == len(fused)
    assert all(first for first, _ in seen)  # nothing else of the runner is alive by then
    # Restored last to first: when entry i is restored the ones after it are already freed.
    assert [alive for _, alive in seen] == list(range(len(fused), 0, -1))
    assert all(ref() is None for ref in fused)
    assert runner.platform.emptied > emptied  # the graphs' pool went before the copies
    assert_same(before, snapshot(engine_a.net))
