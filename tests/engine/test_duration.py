"""Duration estimates, checked bit-for-bit against the reference package.

The reference import is unconditional: without it these tests must fail, not skip.
"""

import random
import warnings
from types import SimpleNamespace

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # pydub complains about a missing ffmpeg
    from omnivoice.models.omnivoice import OmniVoice
    from omnivoice.utils.duration import RuleDurationEstimator

from studio.engine.duration import DurationEstimator, char_weight

REF = RuleDurationEstimator()
# _estimate_target_tokens only touches self.duration_estimator.
REF_MODEL = SimpleNamespace(duration_estimator=REF)
OURS = DurationEstimator()

SAMPLES = [
    "", " ", "Hello, world.", "Nice to meet you.", "The quick brown fox jumps over the lazy dog!",
    "你好，世界！", "今天天气很好，我们去公园散步吧。", "こんにちは、世界。カタカナ", "안녕하세요 세계",
    "नमस्ते दुनिया", "مَرْحَبًا بِالْعَالَم", "مرحـــبا", "Chào thế giới", "Привет, мир!",
    "Γειά σου κόσμε", "Բարեւ աշխարհ", "שלום עולם", "გამარჯობა", "ሰላም ለዓለም", "ꆈꌠꉙ",
    "สวัสดีชาวโลก", "ສະບາຍດີ", "ជំរាបសួរ", "မင်္ဂလာပါ", "བཀྲ་ཤིས་བདེ་ལེགས།", "ᏣᎳᎩ",
    "ᠮᠣᠩᠭᠣᠯ", "Hello 🌍! This is fun 🎉", "1234567890", "١٢٣ ٤٥٦", "Ⅻ ½ ²",
    "𠀀𠀁𪚥", "\U00020000", "ἀρχή", "⺀⼀", "\u3000\u3001", "ＡＢＣ１２３", "tab\there\nnewline",
    "\u200b\u200d\ufeff", "\ue000", "e\u0301\u0308", "[laughter] ha ha [sigh]",
    "Mr. Smith paid $3.50 on 21:30, 1,000 times.",
]


def test_char_weight_over_the_basic_plane_and_beyond():
    codes = list(range(0x10000)) + list(range(0x10000, 0x110000, 97)) + [0x20000, 0x20001]
    mismatched = [c for c in codes if char_weight(chr(c)) != REF._get_char_weight(chr(c))]
    assert mismatched == []


@pytest.mark.parametrize("ref_frames", [0, -5, 1, 25, 75.5, 100, 333, 1000])
def test_estimate_is_identical(ref_frames):
    for target in SAMPLES:
        for ref in SAMPLES:
            expected = REF.estimate_duration(target, ref, ref_frames)
            got = OURS.estimate(target, ref, ref_frames)
            assert got == expected and type(got) is type(expected), (target, ref, ref_frames)


@pytest.mark.parametrize("low, boost", [(None, 3), (50, 1), (50, 2), (10, 3), (200, 5)])
def test_estimate_options_are_identical(low, boost):
    for target in SAMPLES:
        for ref in ("Hello, world.", "你好，世界！", "नमस्ते दुनिया"):
            expected = REF.estimate_duration(target, ref, 60, low_threshold=low, boost_strength=boost)
            assert OURS.estimate(target, ref, 60, low_threshold=low, boost_strength=boost) == expected


def test_estimate_random_strings():
    rng = random.Random(7)
    pool = "".join(SAMPLES) + "abcXYZ .,!?\u0640\u0301"
    for _ in range(500):
        target = "".join(rng.choice(pool) for _ in range(rng.randint(0, 300)))
        ref = "".join(rng.choice(pool) for _ in range(rng.randint(0, 60)))
        frames = rng.choice([25, 120, rng.uniform(1, 500)])
        assert OURS.estimate(target, ref, frames) == REF.estimate_duration(target, ref, frames)


@pytest.mark.parametrize("speed", [1.0, 0.5, 1.3, 2.0, 0.0, -1.0, 0.01])
def test_target_frames_match_reference(speed):
    refs = [(None, None), ("", 100), (None, 100), ("Hello, world.", None),
            ("Hello, world.", 60), ("你好，世界！", 80), ("Hello, world.", 0), ("...", 3)]
    for text in SAMPLES:
        for ref_text, ref_frames in refs:
            expected = OmniVoice._estimate_target_tokens(
                REF_MODEL, text, ref_text, ref_frames, speed=speed
            )
            assert OURS.target_frames(text, ref_text, ref_frames, speed) == expected


def test_target_frames_fallback_and_floor():
    # No reference clip: the built-in "Nice to meet you." / 25 frames rate.
    for text in SAMPLES:
        expected = OURS.target_frames(text, "Nice to meet you.", 25)
        assert OURS.target_frames(text, None, None) == expected
        assert OURS.target_frames(text, "", 999) == expected
        assert OURS.target_frames(text, "Hello", None) == expected
    # Below 50 frames short texts are lifted: 25 raw frames become 39.
    assert OURS.target_frames("Nice to meet you.", None, None) == 39
    # A zero estimate still yields one frame.
    assert OURS.target_frames("anything", "Hello", 0) == 1
