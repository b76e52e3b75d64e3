"""Engine behaviour beyond conformance: progress, cancellation, seeds, bad input."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

from studio.engine.decode import Cancelled, DecodeOptions
from studio.engine.engine import Engine, GenerationOptions, SynthesisItem
from studio.errors import UserError

FAST = GenerationOptions(decode=DecodeOptions(num_step=6))
LONG = " ".join(f"This is sentence {n} of a long text that will be split into chunks." for n in
                ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"))


def test_progress_reports_every_step_in_order(engine):
    seen = []
    engine.synthesize([SynthesisItem("Count the steps.", seed=1)], FAST, on_progress=seen.append)
    assert [(p.step, p.steps, p.chunk, p.chunks) for p in seen] == [(i, 6, 1, 1) for i in range(1, 7)]


def test_progress_names_the_chunk_in_long_form(engine):
    seen = []
    [result] = engine.synthesize([SynthesisItem(LONG, seed=1)], FAST, on_progress=seen.append)
    chunks = len(result.tokens)
    assert chunks > 1
    assert [(p.chunk, p.step) for p in seen] == [(c, s) for c in range(1, chunks + 1) for s in range(1, 7)]
    assert {p.chunks for p in seen} == {chunks}


def test_cancel_stops_within_one_step_and_engine_stays_usable(engine):
    cancel = threading.Event()
    steps = []

    def on_progress(p):
        steps.append(p.step)
        if p.step == 2:
            cancel.set()

    item = SynthesisItem("Cancel me halfway through.", seed=5)
    with pytest.raises(Cancelled):
        engine.synthesize([item], FAST, on_progress=on_progress, cancel=cancel)
    assert steps == [1, 2]
    first = engine.synthesize([item], FAST)[0]
    again = engine.synthesize([item], FAST)[0]
    assert np.array_equal(first.audio, again.audio)


def test_same_seed_same_audio_other_seed_other_tokens(engine):
    options = GenerationOptions(decode=DecodeOptions(num_step=6, class_temperature=1.0))
    a = engine.synthesize([SynthesisItem("Reproducible takes.", seed=42)], options)[0]
    b = engine.synthesize([SynthesisItem("Reproducible takes.", seed=42)], options)[0]
    c = engine.synthesize([SynthesisItem("Reproducible takes.", seed=43)], options)[0]
    assert a.seed == 42 and np.array_equal(a.audio, b.audio)
    assert not torch.equal(a.tokens[0], c.tokens[0])


def test_unseeded_render_reports_the_seed_that_reproduces_it(engine):
    options = GenerationOptions(decode=DecodeOptions(num_step=4))
    first = engine.synthesize([SynthesisItem("Which seed was it?")], options)[0]
    again = engine.synthesize([SynthesisItem("Which seed was it?", seed=first.seed)], options)[0]
    assert np.array_equal(first.audio, again.audio)


def test_rendering_never_touches_the_global_rng(engine):
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    engine.synthesize([SynthesisItem("Leave the global generator alone.", seed=3)], FAST)
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize(
    "item, words",
    [
        (SynthesisItem(""), "empty"),
        (SynthesisItem(" \n\t "), "empty"),
        (SynthesisItem("x" * 20_001), "20,000"),
        (SynthesisItem("Fine text.", speed=0), "speed"),
        (SynthesisItem("Fine text.", speed=float("nan")), "speed"),
        (SynthesisItem("Fine text.", duration=-1.0), "duration"),
        (SynthesisItem("Fine text.", instruct="femal"), "female"),
        (SynthesisItem("Fine text.", instruct="british accent, 四川话"), "accent"),
    ],
)
def test_bad_requests_are_one_sentence(engine, item, words):
    with pytest.raises(UserError) as error:
        engine.synthesize([item], FAST)
    message = str(error.value)
    assert words in message and "\n" not in message


def test_unknown_language_warns_and_renders(engine):
    notes = []
    [result] = engine.synthesize([SynthesisItem("Hello.", language="Klingon", seed=1)], FAST,
                                 warn=notes.append)
    assert result.audio.size > 0
    assert len(notes) == 1 and "Klingon" in notes[0]


class _SilentCodec:
    """Decodes every token sequence to digital silence."""

    def __init__(self, real):
        self.real = real
        self.device = real.device

    def decode(self, codes):
        out = self.real.decode(codes)
        out.audio_values = torch.zeros_like(out.audio_values)
        return out


def test_all_silent_output_is_returned_not_a_crash(engine):
    """The reference divides by the peak of an empty array here and crashes."""
    silent = Engine(engine.net, engine.tokenizer, _SilentCodec(engine.codec), engine.info,
                    engine.device, engine.dtype)
    [result] = silent.synthesize([SynthesisItem("Nothing to hear.", seed=1)], FAST)
    assert result.audio.dtype == np.float32
    assert not result.audio.any()
    # The decoded length is kept (silence is not trimmed to nothing), plus the edge padding.
    assert result.audio.size == result.tokens[0].shape[1] * 960 + 2 * int(0.1 * 24000)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda speech: (np.zeros(0, np.float32), 24000), "no audio"),
        (lambda speech: (np.zeros(48000, np.float32), 24000), "silent"),
        (lambda speech: (np.full(48000, np.nan, np.float32), 24000), "NaN"),
    ],
)
def test_bad_reference_audio_is_one_sentence(engine, speech, make, words):
    with pytest.raises(UserError, match=words):
        engine.create_prompt(make(speech), "Some words.")


def test_reference_without_transcript_needs_an_explicit_transcriber(engine, speech):
    with pytest.raises(UserError, match="transcript"):
        engine.create_prompt((speech(2.0), 24000), None)
    heard = []

    def transcribe(wave, rate):
        heard.append((wave.shape, rate))
        return "what the clip says"

    prompt = engine.create_prompt((speech(2.0), 24000), None, transcribe=transcribe)
    assert prompt.text == "what the clip says." and heard and heard[0][1] == 24000


def test_stereo_and_other_rates_are_converted(engine, speech):
    mono = speech(2.0, sample_rate=44100)
    stereo = np.stack([mono, mono])
    prompt = engine.create_prompt((stereo, 44100), "Stereo clip.")
    assert prompt.tokens.shape[0] == 8 and prompt.tokens.shape[1] > 0


def test_long_reference_warns(engine, speech):
    notes = []
    engine.create_prompt((speech(22.0), 24000), "A long clip.", preprocess=False, warn=notes.append)
    assert len(notes) == 1 and "22" in notes[0]
