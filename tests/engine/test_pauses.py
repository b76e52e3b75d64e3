"""Pause tags, our extension: "[pause 500ms]" or "[pause 1.5s]" splits the text there and
puts exactly that much silence between the parts (the model has no pause token)."""

from __future__ import annotations

import numpy as np
import pytest

from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions, SynthesisItem, check_item
from studio.engine.stream import Joiner
from studio.engine.text import split_pauses
from studio.errors import UserError

GREEDY = GenerationOptions(decode=DecodeOptions(num_step=4, position_temperature=0.0,
                                                class_temperature=0.0))
SR = 24000


@pytest.mark.parametrize("text, parts", [
    ("Hello there. [pause 500ms] And now.", [("Hello there.", 0.5), ("And now.", 0.0)]),
    ("One [PAUSE 1.5s] two [pause 250 ms][pause 0.25s] three",
     [("One", 1.5), ("two", 0.5), ("three", 0.0)]),
    ("[pause 1s] Start.", [("", 1.0), ("Start.", 0.0)]),
    ("End. [pause 2s]", [("End.", 2.0)]),
    ("No pause at all.", [("No pause at all.", 0.0)]),
])
def test_pause_tags_split_the_text(text, parts):
    assert split_pauses(text) == parts


@pytest.mark.parametrize("text, says", [
    ("Wait [pause] here.", "is not understood"),
    ("Wait [pause forever] here.", "is not understood"),
    ("Wait [pause 2 minutes] here.", "is not understood"),
    ("Wait [pause 61s] here.", "longer than 60 s"),
    ("[pause 1s]", "The text is empty"),
])
def test_bad_or_empty_pauses_are_one_sentence_before_any_work(text, says):
    with pytest.raises(UserError, match=says):
        check_item(SynthesisItem(text))


def test_the_joiner_puts_exactly_the_asked_silence_between_two_chunks():
    a, b = np.full(SR, 0.25, np.float32), np.full(SR, -0.25, np.float32)
    joiner = Joiner(SR, 2, ref_rms=0.5, postprocess=False, lead_s=0.3)
    first = joiner.add(a, pause_after=0.7)
    second = joiner.add(b, pause_after=0.2)
    out = np.concatenate([first, second])
    pad, lead, pause, tail = SR // 10, int(0.3 * SR), int(0.7 * SR), int(0.2 * SR)
    assert out.size == pad + lead + a.size + pause + b.size + tail + pad
    assert not out[: pad + lead].any()  # the pause before the first words
    start_gap = pad + lead + a.size
    gap = out[start_gap: start_gap + pause]
    assert not gap.any() and out[start_gap - 2] != 0 and out[start_gap + pause + 1] != 0
    assert not out[-(tail + pad):].any()


def test_a_render_with_pauses_is_longer_by_exactly_the_pauses(engine):
    def render(pause: str):
        chunks = []
        [r] = engine.synthesize([SynthesisItem(f"The first part. {pause} The second part.",
                                               instruct="male", seed=4)], GREEDY,
                                on_chunk=chunks.append)
        return r, chunks

    short, short_chunks = render("[pause 200ms]")
    long, long_chunks = render("[pause 1.2s]")
    assert len(short_chunks) == len(long_chunks) == 2
    assert [t.tolist() for t in short.tokens] == [t.tolist() for t in long.tokens]
    assert long.audio.size - short.audio.size == SR  # 1.2 s - 0.2 s, to the sample
    joined = np.concatenate([c.audio for c in long_chunks])
    np.testing.assert_array_equal(joined, long.audio)  # streamed as usual


def test_pause_tags_need_quick_start_chunking(engine):
    with pytest.raises(UserError, match="Pause tags need quick-start"):
        engine.synthesize([SynthesisItem("One. [pause 1s] Two.")],
                          GenerationOptions(decode=GREEDY.decode, chunking="reference"))
