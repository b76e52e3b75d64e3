"""A render request's own checks need no model (studio.service.render_check): they say
what the engine would refuse, so Generate says it before offering any download."""

from __future__ import annotations

import numpy as np
import soundfile as sf

from studio.engine.options import MAX_TEXT_CHARS
from studio.service.render_check import render_problem
from studio.service.requests import RenderRequest

RATE, HOP = 24_000, 960


def clip(tmp_path, name, audio):
    path = tmp_path / name
    sf.write(path, audio, RATE)
    return path


def test_a_silent_clip_is_refused_in_the_engines_words_and_named(tmp_path):
    silent = clip(tmp_path, "silence.wav", np.zeros(5 * RATE, np.float32))
    refusal = render_problem(RenderRequest(text="Hello.", reference=silent), RATE, HOP)
    assert refusal is not None and refusal.clip == silent
    assert refusal.sentence == (f"{silent} is completely silent; choose a clip where the voice "
                                "is audible.")


def test_a_clip_too_short_to_encode_is_refused(tmp_path, speech):
    short = clip(tmp_path, "blip.wav", speech(1.0)[: HOP // 2])
    refusal = render_problem(RenderRequest(text="Hello.", reference=short, preprocess=False),
                             RATE, HOP)
    assert refusal is not None and "too short to encode" in refusal.sentence


def test_a_text_over_the_limit_is_refused_and_is_not_about_the_clip(tmp_path, speech):
    good = clip(tmp_path, "me.wav", speech(4.0))
    refusal = render_problem(RenderRequest(text="a" * (MAX_TEXT_CHARS + 1), reference=good),
                             RATE, HOP)
    assert refusal is not None and refusal.clip is None
    assert "split it into parts" in refusal.sentence


def test_a_good_request_passes_and_a_saved_voices_clip_is_not_read(tmp_path, speech):
    good = clip(tmp_path, "me.wav", speech(4.0))
    assert render_problem(RenderRequest(text="Hello.", reference=good), RATE, HOP) is None
    # A saved voice renders from the prompt it was saved with; its clip is not encoded.
    silent = clip(tmp_path, "voice.wav", np.zeros(RATE, np.float32))
    saved = RenderRequest(text="Hello.", reference=silent, voice_id="v1")
    assert render_problem(saved, RATE, HOP) is None
