"""studio.service.voices: one way from a request's voice to the items a render takes,
shared by the CLI, the worker, serve and script render."""

from __future__ import annotations

from types import SimpleNamespace

import soundfile as sf
import torch

from studio.engine.lexicon import Lexicon
from studio.engine.prompt import VoicePrompt
from studio.service.voices import VoiceChoice, prompt_source, resolve_voice, synthesis_items


def _prompt(engine, seed: int) -> VoicePrompt:
    spec = engine.info.audio
    tokens = torch.randint(0, spec.mask_id, (spec.codebooks, 30),
                           generator=torch.Generator().manual_seed(seed))
    return VoicePrompt(tokens, "A clip.", 0.05)


def test_each_kind_of_voice_resolves_to_its_prompt(engine, tmp_path, speech):
    saved, given = tmp_path / "saved.pt", tmp_path / "given.pt"
    _prompt(engine, 1).save(saved)
    _prompt(engine, 2).save(given)
    sf.write(tmp_path / "clip.wav", speech(2.0), 24000)
    prompts = prompt_source(engine, None, None)

    prompt, source = resolve_voice(engine, prompts, VoiceChoice(saved_prompt=saved))
    assert source == "disk" and torch.equal(prompt.tokens, _prompt(engine, 1).tokens)
    prompt, source = resolve_voice(engine, prompts, VoiceChoice(prompt_file=given))
    assert source == "file" and torch.equal(prompt.tokens, _prompt(engine, 2).tokens)
    prompt, source = resolve_voice(engine, prompts, VoiceChoice(
        reference=tmp_path / "clip.wav", ref_text="A clip of speech."))
    assert prompt.text == "A clip of speech." and prompts.encodes == 1
    again, source = resolve_voice(engine, prompts, VoiceChoice(
        reference=tmp_path / "clip.wav", ref_text="A clip of speech."))
    assert prompts.encodes == 1 and torch.equal(again.tokens, prompt.tokens)  # the cache's
    assert resolve_voice(engine, prompts, VoiceChoice()) == (None, "none")


def test_a_saved_voice_fills_in_only_what_the_request_leaves_out():
    voice = SimpleNamespace(language="de", seed=77)
    lexicon = Lexicon()
    left_out = synthesis_items("Hallo.", [None, 5], saved=voice, lexicon=lexicon, speed=1.5)
    assert [(i.language, i.seed) for i in left_out] == [("de", 77), ("de", 5)]
    assert all(i.lexicon is lexicon and i.speed == 1.5 and i.text == "Hallo." for i in left_out)
    given = synthesis_items("Hello.", [3], language="en", saved=voice)
    assert [(i.language, i.seed) for i in given] == [("en", 3)]
    assert [(i.language, i.seed) for i in synthesis_items("Hi.", [None])] == [(None, None)]
