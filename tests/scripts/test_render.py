"""Rendering a script: lines batched by voice, placed with their pauses, stems that sum
to the mix, cues filled to the frame, and an SRT of what was rendered."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions
from studio.errors import UserError
from studio.scripts.parse import Line, Script, parse_subtitles, parse_text
from studio.scripts.render import CUE_FRAME_S, VoiceSpec, mix_lines, render_script, srt_text

FAST = GenerationOptions(decode=DecodeOptions(num_step=3))
SR = 24000
DIALOGUE = "\n".join([
    "Alice: Good morning.", "Bob: Morning. Did you sleep?", "Carol: Not at all.",
    "Alice: The storm was loud.", "Bob: The river rose.", "Carol: Past the bridge.",
    "", "Alice: We should go and look.", "Bob: After breakfast.", "Carol: I will come too.",
    "Alice: Bring a coat.", "Bob: And boots.", "Carol: Let us go."])


@pytest.fixture(scope="module")
def voices(engine, speech):
    prompt = engine.create_prompt((speech(3.0), SR), ref_text="A reference clip.")
    return {"Alice": VoiceSpec(instruct="female", seed=1), "Bob": VoiceSpec(instruct="male", seed=2),
            "Carol": VoiceSpec(prompt=prompt)}


@pytest.fixture(scope="module")
def dialogue(engine, voices):
    script = parse_text(DIALOGUE)
    return script, render_script(engine, script, voices, FAST, seed=10)


def test_a_three_speaker_twelve_line_script_renders(dialogue):
    script, rendered = dialogue
    assert len(script.lines) == 12 and script.speakers == ["Alice", "Bob", "Carol"]
    assert len(rendered.spans) == 12 and rendered.mix.size > 0
    assert rendered.lufs == pytest.approx(-16.0, abs=0.1) and not rendered.warnings
    assert rendered.seeds[:2] == [1, 2]  # the voices' locked seeds
    assert rendered.seeds[2] == 12  # Carol has none: --seed 10 + her line's index


def test_the_mix_is_the_lines_and_the_pauses_to_the_sample(dialogue):
    script, rendered = dialogue
    lengths = [end - start for start, end in rendered.spans]
    pauses = [round(line.pause_after * SR) for line in script.lines]
    assert rendered.mix.size == sum(lengths) + sum(pauses)
    starts = [start for start, _ in rendered.spans]
    assert starts == [sum(lengths[:n]) + sum(pauses[:n]) for n in range(12)]
    for (_start, end), pause in zip(rendered.spans, pauses):
        assert not rendered.mix[end:end + pause].any()  # the pauses are silence


def test_the_stems_sum_to_the_mix_and_each_holds_only_its_speaker(dialogue):
    script, rendered = dialogue
    stems = {speaker: rendered.stem(speaker) for speaker in script.speakers}
    assert all(stem.size == rendered.mix.size for stem in stems.values())
    total = sum(stems.values())
    assert float(np.abs(total - rendered.mix).max()) < 1e-4
    for line, (start, end) in zip(script.lines, rendered.spans):
        for speaker, stem in stems.items():
            assert stem[start:end].any() == (speaker == line.speaker)


def test_each_line_is_the_voice_rendered_alone(engine, voices, dialogue):
    """Batched by voice or alone, a line's audio is the same (up to the mix's one gain)."""
    script, rendered = dialogue
    alone = render_script(engine, parse_text("Bob: Morning. Did you sleep?"), voices, FAST,
                          seed=10, lufs=-20.0)
    start, end = rendered.spans[1]
    gain = 10 ** ((rendered.gain_db - alone.gain_db) / 20)
    np.testing.assert_allclose(rendered.mix[start:end], alone.mix * gain, atol=1e-5)


def test_subtitle_cues_are_filled_to_the_frame_or_warned(engine, voices):
    srt = ("1\n00:00:00,500 --> 00:00:02,700\nAlice: A short greeting.\n\n"
           "2\n00:00:03,000 --> 00:00:03,400\nBob: This line has far too many words to be "
           "said in well under half a second.\n")
    script = parse_subtitles(srt)
    rendered = render_script(engine, script, voices, FAST, seed=1)
    for line, (start, end) in zip(script.lines, rendered.spans):
        assert abs((end - start) / SR - line.duration) <= CUE_FRAME_S
    assert rendered.spans[0][0] == round(0.5 * SR)  # the first cue's start
    assert any("Line 2" in w and "rushed" in w for w in rendered.warnings)
    assert not any("Line 1" in w for w in rendered.warnings)


def test_a_speaker_without_a_voice_is_one_sentence(engine, voices):
    with pytest.raises(UserError, match="no voice for Dave"):
        render_script(engine, parse_text("Dave: Hello."), voices, FAST)


def test_the_srt_names_each_line_at_its_span(dialogue):
    script, rendered = dialogue
    text = srt_text(script, rendered)
    blocks = text.strip().split("\n\n")
    assert len(blocks) == 12
    first = blocks[0].split("\n")
    assert first[0] == "1" and first[2] == "Alice: Good morning."
    start, end = rendered.spans[0]
    assert first[1] == f"00:00:00,000 --> 00:00:0{end // SR},{round(end / SR * 1000) % 1000:03d}"


def test_rendering_line_5_again_changes_only_its_span_in_the_mix_and_its_speakers_stem(
        engine, voices, dialogue):
    script, first = dialogue
    assert script.lines[4].speaker == "Bob"
    kept = {n: (r.audio, r.seed) for n, r in first.fresh.items() if n != 4}
    second = render_script(engine, script, dict(voices, Bob=VoiceSpec(instruct="male", seed=77)),
                           FAST, seed=10, reuse=kept)
    assert list(second.fresh) == [4], "only line 5 was rendered again"
    assert second.spans == first.spans, "its length, and so every other line's place, is kept"
    start, end = first.spans[4]
    outside = np.ones(first.mix.size, bool)
    outside[start:end] = False
    # The loudness target is met by one gain over the whole mix, so a new take of one line
    # may scale the rest by a common factor; their samples are otherwise untouched.
    a, b = first.mix[outside].astype(np.float64), second.mix[outside].astype(np.float64)
    k = float(b @ a / (a @ a))
    assert abs(k - 1) < 0.05
    np.testing.assert_allclose(second.mix[outside], k * first.mix[outside], atol=1e-6)
    assert np.abs(second.mix[start:end] - k * first.mix[start:end]).max() > 1e-2
    for speaker in script.speakers:
        stem, again = first.stem(speaker), second.stem(speaker)
        if speaker == "Bob":
            np.testing.assert_allclose(again[outside], k * stem[outside], atol=1e-6)
            assert np.abs(again[start:end] - k * stem[start:end]).max() > 1e-2
        else:
            np.testing.assert_allclose(again, k * stem, atol=1e-6)


def test_a_long_timeline_is_mixed_and_written_with_stems_in_bounded_memory(tmp_path):
    """Ten speakers' lines over 20 minutes: one stem held whole would be 115 MB, and the
    old mix held eleven such arrays; streamed, the mix, ten stems and the SRT are written
    in a few blocks' worth of memory, and they match (a stem is its lines, the mix all)."""
    import tracemalloc

    import soundfile as sf

    from studio.scripts.export import stage_outputs, stem_files
    from studio.staged import Staged

    script = parse_text("\n".join(f"S{n % 10}: Line {n}." for n in range(11)))
    script.lines = [replace(line, pause_after=119.0) for line in script.lines]
    script.lead = 2.0
    rng = np.random.default_rng(0)
    clips = [(0.1 * rng.standard_normal(SR)).astype(np.float32) for _ in script.lines]
    stems = stem_files(tmp_path / "stems", script.speakers, ".flac")
    tracemalloc.start()
    try:
        rendered = mix_lines(script, clips, list(range(11)), SR)
        with Staged() as staged:
            stage_outputs(staged, script, rendered, tmp_path / "mix.flac", stems,
                          tmp_path / "mix.srt")
            staged.commit()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rendered.seconds > 20 * 60
    assert peak < 24 * 2**20, f"{peak / 2**20:.0f} MB"
    assert rendered.lufs == pytest.approx(-16.0, abs=0.1)
    mix = sf.read(tmp_path / "mix.flac", dtype="int16")[0]
    assert mix.size == rendered.length
    for n, (start, end) in enumerate(rendered.spans):
        stem = sf.read(stems[script.lines[n].speaker], dtype="int16", start=start - SR,
                       stop=end + SR)[0]
        np.testing.assert_array_equal(stem[SR:-SR], mix[start:end])
        assert not stem[:SR].any() and not stem[-SR:].any()


def test_a_timeline_longer_than_a_mix_may_be_is_one_sentence_before_any_render():
    """Streaming keeps memory flat, so a mistaken cue time would instead fill the disk
    with days of silence: the timeline is bounded before anything renders or is written."""
    from studio.scripts.render import MAX_MIX_HOURS

    cues = ("1\n00:00:01,000 --> 00:00:02,000\nA: Hi.\n\n"
            f"2\n{MAX_MIX_HOURS + 1}:00:00,000 --> {MAX_MIX_HOURS + 1}:00:01,000\nA: Bye.\n")
    with pytest.raises(UserError, match="at most a day"):  # subtitles: refused as parsed
        parse_subtitles(cues)
    # Pauses can make any script that long: the render checks the timeline itself.
    far = Script([Line("A", "Hi.", pause_after=(MAX_MIX_HOURS + 1) * 3600.0),
                  Line("A", "Bye.")])

    class NoEngine:  # a render would be a failure of the check
        def __getattr__(self, name):
            raise AssertionError(f"the engine was used ({name})")

    with pytest.raises(UserError, match=f"a mix is at most {MAX_MIX_HOURS} hours"):
        render_script(NoEngine(), far, {"A": VoiceSpec(instruct="male")}, FAST)
    with pytest.raises(UserError, match="hours long"):
        mix_lines(far, [np.zeros(SR, np.float32)] * 2, [0, 0], SR)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.tuples(st.sampled_from("ABC"), st.integers(1, 3000),
                                st.integers(0, 5000)), min_size=1, max_size=8),
       lead=st.integers(0, 3000), size=st.integers(1, 4000))
def test_the_streamed_mix_and_stems_are_the_lines_placed_in_a_whole_array(lines, lead, size):
    """However lines, pauses and block sizes fall, the blocks streamed are exactly the
    mix (and stems) that placing each line in one whole array gives."""
    from studio.scripts.parse import Line, Script

    rate = 8000
    rng = np.random.default_rng(len(lines) * 7919 + lead)
    script = Script([Line(who, "x", pause_after=pause / rate) for who, _n, pause in lines],
                    lead=lead / rate)
    clips = [(0.3 * rng.standard_normal(n)).astype(np.float32) for _who, n, _p in lines]
    rendered = mix_lines(script, clips, [0] * len(lines), rate)
    whole = np.zeros(rendered.length, np.float32)
    stems = {who: np.zeros(rendered.length, np.float32) for who in script.speakers}
    for (who, _n, _p), clip, (start, end) in zip(lines, clips, rendered.spans):
        assert end - start == clip.size
        whole[start:end] += clip
        stems[who][start:end] += clip
    gain = np.float32(rendered.gain)
    for who, expected in [(None, whole), *stems.items()]:
        blocks = list(rendered.chunks(who, size))
        assert all(0 < block.size <= size for block in blocks)
        np.testing.assert_array_equal(np.concatenate(blocks), expected * gain)
