"""The packed decode path (studio.engine.packed) against the padded, reference-equal one.

In fp32 on the CPU the two differ only in float summation order (attention per
document vs a masked padded row): the logits agree to ~1e-7, and with greedy
settings the tokens are equal on every case below.
"""

from __future__ import annotations

import json

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from studio.cli import main
from studio.engine.decode import DecodeOptions, _padded_batch, decode
from studio.engine.engine import GenerationOptions, SynthesisItem
from studio.engine.packed import decode_packed, pack, packed_logits
from studio.errors import UserError

LONG = " ".join(
    f"Sentence number {word} tells a small story about the sea, the wind and the boats."
    for word in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
)


@pytest.fixture(scope="module")
def prompt(engine, speech):
    return engine.create_prompt((speech(3.2, seed=3), 24000), "A short reference sentence")


def greedy(mode: str, steps: int = 6, **decode_settings) -> GenerationOptions:
    return GenerationOptions(
        decode=DecodeOptions(num_step=steps, position_temperature=0.0, class_temperature=0.0,
                             **decode_settings),
        decode_mode=mode,
    )


def batch_of_three(prompt):
    return [
        SynthesisItem("First take of the batch.", instruct="male, elderly", language="en"),
        SynthesisItem("第二个句子更长一些，对吧？", prompt=prompt),
        SynthesisItem("Third one [sigh] is here, and it runs a little longer than the others."),
    ]


CASES = {
    "voice_design": (lambda p: [SynthesisItem("Hello world, this is a voice design test.",
                                              instruct="female, low pitch, british accent")], {}),
    "clone": (lambda p: [SynthesisItem("Now say something new in the same voice.", prompt=p)], {}),
    "guidance_zero": (lambda p: [SynthesisItem("No guidance at all for this one.")],
                      dict(guidance_scale=0.0)),
    "batch_of_three": (batch_of_three, {}),
    "equal_lengths": (lambda p: [SynthesisItem("Two of the same.", seed=1),
                                 SynthesisItem("Two of the same.", seed=2),
                                 SynthesisItem("Now say something new in the same voice.", prompt=p)],
                      {}),
    "long_form": (lambda p: [SynthesisItem(LONG, language="en")], {}),
    "long_form_clone": (lambda p: [SynthesisItem(LONG, prompt=p)], {}),
    "settings": (lambda p: [SynthesisItem("Other decoding settings.", prompt=p)],
                 dict(t_shift=0.5, layer_penalty=2.0, guidance_scale=3.0)),
}


@pytest.mark.parametrize("name", CASES)
def test_packed_tokens_equal_padded(name, engine, prompt):
    make, settings = CASES[name]
    items = make(prompt)
    padded = engine.synthesize(items, greedy("padded", **settings))
    packed = engine.synthesize(items, greedy("packed", **settings))
    assert len(padded) == len(packed) == len(items)
    for a, b in zip(padded, packed):
        assert len(a.tokens) == len(b.tokens)
        for x, y in zip(a.tokens, b.tokens):
            assert torch.equal(x, y)
    if name.startswith("long_form"):
        assert len(packed[0].tokens) > 1  # really chunked


def test_sampled_decoding_is_reproducible(engine):
    options = GenerationOptions(decode=DecodeOptions(num_step=6, class_temperature=1.0),
                                decode_mode="packed")
    item = SynthesisItem("Sampled packed decoding.", seed=11)
    a, b = engine.synthesize([item], options), engine.synthesize([item], options)
    assert torch.equal(a[0].tokens[0], b[0].tokens[0])


def _decode_items(engine, requests):
    jobs = [engine._prepare(r, None) for r in requests]
    options = GenerationOptions()
    return [engine._item(j, j.text, j.target_len, j.prompt, options=options) for j in jobs]


def test_packed_logits_match_padded(engine, prompt):
    items = _decode_items(engine, batch_of_three(prompt))
    spec = engine.net.audio
    with torch.inference_mode():
        ids, audio_mask, attn = _padded_batch(items, spec.codebooks, spec.mask_id, "cpu")
        ref = engine.net(ids, audio_mask, attn)
        got = packed_logits(engine.net, pack(items, spec.codebooks, "cpu"))
    expected = [ref[i, :, it.cond_ids.shape[1] - it.target_len : it.cond_ids.shape[1]]
                for i, it in enumerate(items)]
    expected += [ref[len(items) + i, :, : it.target_len] for i, it in enumerate(items)]
    expected = torch.cat([e.permute(1, 0, 2) for e in expected])
    assert got.shape == expected.shape  # heads only on the target positions
    assert float((got - expected).abs().max()) < 1e-4


def test_packed_positions_restart_per_document(engine, prompt):
    items = _decode_items(engine, batch_of_three(prompt))
    batch = pack(items, engine.net.audio.codebooks, "cpu")
    lengths = [it.cond_ids.shape[1] for it in items] + [it.target_len for it in items]
    assert [length for _, length in batch.documents] == lengths
    assert torch.equal(batch.positions[0], torch.cat([torch.arange(n) for n in lengths]))
    assert batch.ids.shape[-1] == sum(lengths)  # no padding


class _Shapes(TorchDispatchMode):
    """Records the shape of every tensor an aten op returns."""

    def __init__(self):
        super().__init__()
        self.shapes = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor):
                self.shapes.append(tuple(t.shape))
        return out


def _squares(shapes, n):
    return [s for s in shapes if sum(d >= n for d in s) >= 2]


def test_packed_never_builds_a_sequence_square(engine, prompt):
    items = _decode_items(engine, batch_of_three(prompt))
    total = sum(it.cond_ids.shape[1] + it.target_len for it in items)
    width = max(it.cond_ids.shape[1] for it in items)
    options = DecodeOptions(num_step=2, position_temperature=0.0)
    with _Shapes() as seen:
        decode_packed(engine.net, items, options)
    assert seen.shapes and not _squares(seen.shapes, total)
    # The detector does see the padded path's (2B, 1, S, S) mask.
    with _Shapes() as padded:
        decode(engine.net, items, options)
    assert (2 * len(items), 1, width, width) in padded.shapes


def test_unknown_decode_mode_is_one_sentence(engine):
    with pytest.raises(UserError) as error:
        engine.synthesize([SynthesisItem("Hello.")], GenerationOptions(decode_mode="sparse"))
    assert "padded" in str(error.value) and "\n" not in str(error.value)


def test_cli_decode_packed_renders(tiny_checkpoint, tmp_path, capfd):
    outputs = {}
    for mode in ("padded", "packed"):
        out, tokens = tmp_path / f"{mode}.wav", tmp_path / f"{mode}.pt"
        capfd.readouterr()
        code = main(["synth", "--device", "cpu", "--precision", "fp32", "--steps", "4",
                     "--model", str(tiny_checkpoint), "--text", "Packed from the command line.",
                     "--out", str(out), "--tokens-out", str(tokens), "--seed", "3",
                     "--position-temperature", "0", "--decode", mode, "--json"])
        captured = capfd.readouterr()
        assert code == 0, captured.err
        summary = json.loads(captured.out.strip().splitlines()[-1])
        assert summary["decode"] == mode
        assert out.stat().st_size > 0
        outputs[mode] = torch.load(tokens, weights_only=True)
    assert all(torch.equal(a, b) for a, b in zip(outputs["padded"], outputs["packed"]))


def test_progress_and_cancel(engine):
    import threading

    from studio.engine.decode import Cancelled

    cancel, seen = threading.Event(), []

    def on_progress(p):
        seen.append(p.step)
        if p.step == 2:
            cancel.set()

    options = GenerationOptions(decode=DecodeOptions(num_step=5), decode_mode="packed")
    with pytest.raises(Cancelled):
        engine.synthesize([SynthesisItem("Cancel the packed path.", seed=1)], options,
                          on_progress=on_progress, cancel=cancel)
    assert seen == [1, 2]
    seen.clear()
    engine.synthesize([SynthesisItem("Now to the end.", seed=1)], options,
                      on_progress=lambda p: seen.append(p.step))
    assert seen == [1, 2, 3, 4, 5]
