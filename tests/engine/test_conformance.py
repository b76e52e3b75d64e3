"""Token-for-token conformance with the reference implementation (omnivoice 0.2.1).

Both load the same random checkpoint in the official layout; with
position_temperature=0 and class_temperature=0 decoding is deterministic, so
our tokens must equal the reference's exactly and the audio must match in
length and to within 2e-3. The reference is required: these tests fail, never
skip, when it is missing.
"""

from __future__ import annotations

import numpy as np
import omnivoice
import pytest
import torch
from conformance_cases import CASES, GREEDY, LONG_EN

from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions, SynthesisItem
from studio.engine.prompt import VoicePrompt


@pytest.fixture(scope="module")
def reference(tiny_checkpoint):
    model = omnivoice.OmniVoice.from_pretrained(str(tiny_checkpoint), dtype=torch.float32,
                                                device_map="cpu")
    return model.eval()


def run_reference(model, **kwargs):
    """The reference's audio, plus the tokens it decoded (one list of chunks per item)."""
    seen = []
    original = model._decode_and_post_process

    def spy(tokens, rms, config):
        seen.append([t.cpu() for t in tokens] if isinstance(tokens, list) else [tokens.cpu()])
        return original(tokens, rms, config)

    model._decode_and_post_process = spy
    try:
        audios = model.generate(**kwargs)
    finally:
        del model._decode_and_post_process
    return audios, seen


def options(steps=8, **overrides) -> GenerationOptions:
    """Greedy settings on the padded path with the reference's chunking: its own layout and
    chunks, compared bit for bit (the engine fixture is fp32; the default decode mode is
    packed, tested in test_packed.py; quick-start chunking in test_stream.py)."""
    decode = {k: overrides.pop(k) for k in list(overrides) if k in DecodeOptions.__dataclass_fields__}
    overrides.setdefault("decode_mode", "padded")
    overrides.setdefault("chunking", "reference")
    return GenerationOptions(decode=DecodeOptions(num_step=steps, **GREEDY, **decode), **overrides)


def assert_same(ours, audios, tokens):
    assert len(ours) == len(audios)
    for rendering, audio, chunks in zip(ours, audios, tokens):
        assert len(rendering.tokens) == len(chunks)
        for mine, theirs in zip(rendering.tokens, chunks):
            assert mine.dtype == torch.long
            assert torch.equal(mine, theirs)
        assert rendering.audio.shape == audio.shape
        assert float(np.abs(rendering.audio - audio).max()) < 2e-3


@pytest.mark.parametrize("name", CASES)
def test_matches_reference(name, engine, reference):
    request, settings = CASES[name]
    settings = dict(settings)
    steps = settings.pop("num_step", 8)
    ref_kwargs = {("guidance_scale" if k == "guidance_scale" else
                   "layer_penalty_factor" if k == "layer_penalty" else k): v
                  for k, v in settings.items()}
    audios, tokens = run_reference(reference, num_step=steps, **GREEDY, **ref_kwargs, **request)
    item = SynthesisItem(**request)
    ours = engine.synthesize([item], options(steps, **settings))
    assert_same(ours, audios, tokens)
    if name.startswith("long_form"):
        assert len(ours[0].tokens) > 1  # really chunked


@pytest.fixture(scope="module")
def clip(speech):
    return speech(3.2, seed=3)


def test_clone_prompt_and_render_match(engine, reference, clip):
    theirs = reference.create_voice_clone_prompt((torch.from_numpy(clip), 24000),
                                                 ref_text="A short reference sentence")
    mine = engine.create_prompt((clip, 24000), "A short reference sentence")
    assert torch.equal(mine.tokens, theirs.ref_audio_tokens.cpu())
    assert mine.text == theirs.ref_text and mine.rms == pytest.approx(theirs.ref_rms, rel=1e-6)

    text = "Now say something new in the same voice."
    audios, tokens = run_reference(reference, text=text, voice_clone_prompt=theirs, num_step=8,
                                   **GREEDY)
    assert_same(engine.synthesize([SynthesisItem(text=text, prompt=mine)], options(8)),
                audios, tokens)

    # Denoise off changes the conditioning only when there is a reference.
    audios, tokens = run_reference(reference, text=text, voice_clone_prompt=theirs, num_step=8,
                                   denoise=False, **GREEDY)
    assert_same(engine.synthesize([SynthesisItem(text=text, prompt=mine)], options(8, denoise=False)),
                audios, tokens)


def test_long_form_with_reference_matches(engine, reference, clip):
    theirs = reference.create_voice_clone_prompt((torch.from_numpy(clip), 24000),
                                                 ref_text="A short reference sentence")
    mine = VoicePrompt(theirs.ref_audio_tokens.cpu(), theirs.ref_text, theirs.ref_rms)
    audios, tokens = run_reference(reference, text=LONG_EN, voice_clone_prompt=theirs,
                                   num_step=6, **GREEDY)
    ours = engine.synthesize([SynthesisItem(text=LONG_EN, prompt=mine)], options(6))
    assert len(ours[0].tokens) > 1
    assert_same(ours, audios, tokens)


def test_batch_of_three_matches(engine, reference):
    texts = ["First take of the batch.", "第二个句子更长一些，对吧？", "Third one [sigh] is here."]
    instructs = ["male, elderly", "female, whisper", None]
    langs = ["en", "zh", None]
    audios, tokens = run_reference(reference, text=texts, instruct=instructs, language=langs,
                                   num_step=6, **GREEDY)
    items = [SynthesisItem(text=t, instruct=i, language=lang)
             for t, i, lang in zip(texts, instructs, langs)]
    assert_same(engine.synthesize(items, options(6)), audios, tokens)


def test_prompt_files_interchangeable(engine, reference, clip, tmp_path):
    theirs = reference.create_voice_clone_prompt((torch.from_numpy(clip), 24000),
                                                 ref_text="Hello there.")
    theirs.save(str(tmp_path / "theirs.pt"))
    loaded = VoicePrompt.load(tmp_path / "theirs.pt", codebooks=8)
    assert torch.equal(loaded.tokens, theirs.ref_audio_tokens.cpu())
    assert (loaded.text, loaded.rms) == (theirs.ref_text, pytest.approx(theirs.ref_rms))

    mine = engine.create_prompt((clip, 24000), "Hello there.")
    mine.save(tmp_path / "mine.pt")
    back = omnivoice.VoiceClonePrompt.load(str(tmp_path / "mine.pt"))
    assert torch.equal(back.ref_audio_tokens, mine.tokens)
    assert (back.ref_text, back.ref_rms) == (mine.text, mine.rms)
