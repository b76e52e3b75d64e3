"""Quick-start chunking and streaming: chunks handed over as they are decoded, joined
exactly into the take, and one-chunk texts rendered exactly as the reference would."""

from __future__ import annotations

import numpy as np
import pytest

from studio.engine.audio import cross_fade_chunks, fade_and_pad
from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions, SynthesisItem
from studio.engine.prompt import VoicePrompt
from studio.engine.stream import Joiner
from studio.engine.text import quick_start_chunks
from studio.errors import UserError

GREEDY = DecodeOptions(num_step=4, position_temperature=0.0, class_temperature=0.0)
QUICK = GenerationOptions(decode=GREEDY)
PARAGRAPH = ("The storm rolled in over the hills just after noon. Farmers hurried to bring "
             "their animals inside before the rain. By evening the river had risen past the "
             "old stone bridge. Nobody in the village could remember a flood like it.")
SR = 24000


@pytest.fixture(scope="module")
def prompt(engine, speech):
    return engine.create_prompt((speech(3.0), SR), ref_text="A reference clip for cloning.")


def stream(engine, items, options=QUICK):
    chunks = []
    renders = engine.synthesize(items, options, on_chunk=chunks.append)
    return chunks, renders


def joined(chunks, item=0):
    mine = [c for c in chunks if c.item == item]
    return np.concatenate([c.audio for c in mine])


# ----------------------------------------------------------------------- the plan

def test_quick_start_splits_the_first_sentence_off_and_doubles_the_limit():
    text = "One two three. Four five six seven. Eight nine ten eleven twelve. Thirteen."
    chunks = quick_start_chunks(text, first_len=16, chunk_len=1000)
    assert chunks[0] == "One two three."
    assert all(len(c) <= 16 * 2 ** i or "," not in c for i, c in enumerate(chunks))
    assert " ".join(chunks) == text
    assert len(chunks) >= 3


def test_a_long_first_sentence_starts_with_its_first_clause():
    text = "When the bell rang at last, everyone in the crowded hall stood up and cheered."
    chunks = quick_start_chunks(text, first_len=30, chunk_len=1000)
    assert chunks[0] == "When the bell rang at last,"
    assert " ".join(chunks) == text


def test_a_text_within_the_first_chunk_stays_whole():
    assert quick_start_chunks("Short. Two sentences.", first_len=40, chunk_len=100) == [
        "Short. Two sentences."]


def test_chunks_never_exceed_the_chunk_length_unless_one_clause_does():
    text = " ".join(["Word word word word."] * 40)
    chunks = quick_start_chunks(text, first_len=25, chunk_len=100)
    assert all(len(c) <= 100 for c in chunks)
    assert [len(c) for c in chunks[:3]] == sorted(len(c) for c in chunks[:3])


# ----------------------------------------------------------------------- joining

def test_joiner_joints_and_edges_are_the_references(speech):
    """Without trimming and gain, chunk-by-chunk joining gives the reference's cross-fade
    and edge fades of the whole, sample for sample."""
    pieces = [speech(1.2, seed=1), speech(0.7, seed=2), speech(2.0, seed=3)]
    joiner = Joiner(SR, 3, ref_rms=0.5, postprocess=False)
    out = [joiner.add(p) for p in pieces]
    expected = fade_and_pad(cross_fade_chunks(pieces, SR), SR).reshape(-1)
    assert np.array_equal(np.concatenate(out), expected)
    assert np.array_equal(joiner.audio(), expected)
    # Only the joint's 0.1 s tail waits for the next chunk.
    assert out[0].size == int(0.1 * SR) + pieces[0].size - SR // 10


def test_joiner_holds_a_tail_reaching_back_past_a_tiny_chunk(speech):
    pieces = [speech(1.0, seed=1), speech(0.05, seed=2), speech(1.0, seed=3)]
    joiner = Joiner(SR, 3, ref_rms=0.5, postprocess=False)
    out = np.concatenate([joiner.add(p) for p in pieces])
    assert np.array_equal(out, fade_and_pad(cross_fade_chunks(pieces, SR), SR).reshape(-1))


def test_a_design_voice_keeps_the_first_chunks_gain_and_clips_a_louder_chunk(speech):
    quiet, loud = speech(1.0, seed=1) * 0.1, speech(1.0, seed=2)
    joiner = Joiner(SR, 2, ref_rms=None, postprocess=False)
    first = joiner.add(quiet)
    gain = 0.5 / float(np.abs(quiet).max())
    assert float(np.abs(first).max()) == pytest.approx(0.5, rel=1e-5)
    second = joiner.add(loud)
    assert float(np.abs(second).max()) == 1.0  # clipped at full scale
    tenth = SR // 10  # the second chunk comes after the held tail and the joint's silence,
    body = second[3 * tenth: 3 * tenth + 100]  # and fades in over its first tenth
    assert np.allclose(body, np.clip(loud * np.float32(gain), -1, 1)[tenth: tenth + 100],
                       atol=1e-6)


def test_joiner_refuses_more_chunks_than_announced(speech):
    joiner = Joiner(SR, 1, ref_rms=0.5)
    joiner.add(speech(0.5))
    with pytest.raises(ValueError):
        joiner.add(speech(0.5))


# ----------------------------------------------------------------------- the engine

@pytest.mark.parametrize("text", ["A short line.", PARAGRAPH])
@pytest.mark.parametrize("voice", ["design", "clone"])
def test_streamed_chunks_joined_equal_the_render(engine, prompt, text, voice):
    extra = dict(instruct="female, low pitch") if voice == "design" else dict(prompt=prompt)
    item = SynthesisItem(text, seed=11, **extra)
    chunks, [streamed] = stream(engine, [item])
    [plain] = engine.synthesize([item], QUICK)
    assert np.array_equal(joined(chunks), plain.audio)
    assert np.array_equal(streamed.audio, plain.audio)
    assert [c.index for c in chunks] == list(range(len(plain.tokens)))
    assert all(c.chunks == len(plain.tokens) for c in chunks)
    assert [c.start for c in chunks] == [0] + [c.total for c in chunks[:-1]]
    assert chunks[-1].total == plain.audio.size and chunks[-1].last
    if text == PARAGRAPH:
        assert len(chunks) >= 3  # a four-sentence paragraph starts with its first sentence
        assert chunks[0].audio.size < plain.audio.size / 2


def test_the_first_chunk_is_handed_over_before_the_second_is_decoded(engine, monkeypatch):
    events = []
    decode_audio = engine._decode_audio

    def logged(tokens):
        events.append("decode")
        return decode_audio(tokens)

    monkeypatch.setattr(engine, "_decode_audio", logged)
    engine.synthesize([SynthesisItem(PARAGRAPH, seed=3)], QUICK,
                      on_progress=lambda p: events.append(f"step {p.chunk}"),
                      on_chunk=lambda c: events.append(f"chunk {c.index}"))
    first_handed = events.index("chunk 0")
    assert events[:first_handed].count("decode") == 1
    assert "step 2" not in events[:first_handed]
    assert events.index("chunk 1") > events.index("step 2")


def test_n_takes_stream_together_each_chunk_index_in_one_pass(engine):
    items = [SynthesisItem(PARAGRAPH, seed=s) for s in (1, 2, 3)]
    chunks, renders = stream(engine, items)
    assert [(c.index, c.item) for c in chunks[:3]] == [(0, 0), (0, 1), (0, 2)]
    for i, render in enumerate(renders):
        assert np.array_equal(joined(chunks, i), render.audio)
        [alone] = engine.synthesize([items[i]], QUICK)
        assert np.array_equal(alone.audio, render.audio)  # batched or alone, the same take


@pytest.mark.parametrize("voice", ["design", "clone"])
def test_a_one_chunk_text_renders_as_with_the_references_chunking(engine, prompt, voice):
    extra = dict(instruct="male") if voice == "design" else dict(prompt=prompt)
    item = SynthesisItem("Just one sentence here.", seed=5, **extra)
    [quick] = engine.synthesize([item], QUICK)
    [ref] = engine.synthesize([item], GenerationOptions(decode=GREEDY, chunking="reference"))
    assert len(quick.tokens) == 1
    assert np.array_equal(quick.tokens[0], ref.tokens[0])
    assert np.allclose(quick.audio, ref.audio, atol=1e-6)


def test_streaming_with_the_references_chunking_is_one_sentence(engine):
    with pytest.raises(UserError, match="quick-start"):
        engine.synthesize([SynthesisItem("Hello.")], GenerationOptions(chunking="reference"),
                          on_chunk=lambda c: None)


@pytest.mark.parametrize("bad", [dict(chunking="sentences"), dict(first_chunk_duration=0.2),
                                 dict(first_chunk_duration=float("nan"))])
def test_bad_chunking_settings_are_refused(engine, bad):
    with pytest.raises(UserError):
        engine.synthesize([SynthesisItem("Hello.")], GenerationOptions(**bad))


def test_a_quiet_reference_gets_its_level_back_in_every_chunk(engine, speech):
    quiet = VoicePrompt(engine.create_prompt((speech(3.0), SR), ref_text="A clip.").tokens,
                        "A clip.", rms=0.02)
    loud = VoicePrompt(quiet.tokens, quiet.text, rms=0.3)
    [a] = engine.synthesize([SynthesisItem(PARAGRAPH, prompt=quiet, seed=2)], QUICK)
    [b] = engine.synthesize([SynthesisItem(PARAGRAPH, prompt=loud, seed=2)], QUICK)
    assert np.allclose(a.audio, b.audio * 0.2, atol=1e-6)
