"""The description parser: free text read into an instruct, the same for the Design
view, `synth --describe` and `serve`; Qt-free like the rest of the engine."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from studio.engine.describe import (
    PHRASES,
    ZH_PHRASES,
    build_instruct,
    describe,
    instruct_or_description,
    item_key,
    map_description,
    selection_from_instruct,
)
from studio.engine.instruct import CATEGORIES, normalize_instruct
from studio.errors import UserError

ALL_KEYS = {item_key(i) for c in CATEGORIES for i in c.items}


def test_every_phrase_maps_to_items_the_engine_knows():
    for keys in (*PHRASES.values(), *ZH_PHRASES.values()):
        assert keys and set(keys) <= ALL_KEYS, keys


@pytest.mark.parametrize(("text", "expected"), [
    ("an old man with a deep voice and a british accent",
     {"gender": "male", "age": "elderly", "pitch": "low pitch", "accent": "british accent"}),
    ("Elderly woman, whispering", {"gender": "female", "age": "elderly", "style": "whisper"}),
    ("a senior lady", {"gender": "female", "age": "elderly"}),
    ("a kid with a very high-pitched voice", {"age": "child", "pitch": "very high pitch"}),
    ("girl speaking sichuanese", {"gender": "female", "dialect": "四川话"}),
    ("middle-aged guy, low pitch, indian accent",
     {"gender": "male", "age": "middle-aged", "pitch": "low pitch", "accent": "indian accent"}),
    ("teenage boy from australia",
     {"gender": "male", "age": "teenager", "accent": "australian accent"}),
    ("一个低沉的老年男声，东北话",
     {"gender": "male", "age": "elderly", "pitch": "low pitch", "dialect": "东北话"}),
])
def test_description_maps_known_words(text, expected):
    match = map_description(text)
    assert match.values == expected
    assert match.unknown == []


def test_description_reports_unknown_words_and_conflicts():
    match = map_description("a raspy old man and a woman with a british accent, sichuan dialect")
    assert match.unknown == ["raspy"]
    assert [s.text for s in match.conflicts] == ["woman", "sichuan dialect"]
    assert match.values == {"age": "elderly", "gender": "male", "accent": "british accent"}


def test_the_parser_imports_no_qt():
    code = "import sys, studio.engine.describe; print(sorted(m for m in sys.modules if 'PySide' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("word", sorted(w for c in CATEGORIES for i in c.items
                                        for w in (i.en, i.zh) if w))
def test_every_word_of_the_model_reads_as_its_own_item(word):
    match = map_description(word)
    assert match.problem is None
    assert selection_from_instruct(match.instruct) == selection_from_instruct(word)


def test_describe_gives_the_instruct_of_a_clean_description():
    instruct = describe("a young woman, low pitch, british accent")
    assert instruct == "female, young adult, low pitch, british accent"
    assert normalize_instruct(instruct, use_zh=False) == instruct
    assert describe("一个低沉的老年男声，东北话") == "male, elderly, low pitch, 东北话"
    assert describe("") is None and describe("   ") is None and describe(None) is None


@pytest.mark.parametrize(("text", "sentence"), [
    ("an old man, slightly raspy",
     "In the voice description, 'slightly', 'raspy' are no voice attributes the model knows; "
     "describe gender, age, pitch, whispering, an accent or a Chinese dialect, e.g. "
     "'a young woman, low pitch, british accent'."),
    ("an old man and a woman",
     "The voice description contradicts itself at 'woman': the gender is already described; "
     "keep one."),
    ("british accent, sichuan dialect",
     "The voice description contradicts itself at 'sichuan dialect': the accent 'british accent' "
     "cannot be combined with the dialect '四川话'; use an accent for English speech or a "
     "dialect for Chinese speech, not both."),
    ("a voice with the tone of",
     "The voice description names no voice attribute; describe gender, age, pitch, "
     "whispering, an accent or a Chinese dialect, e.g. 'a young woman, low pitch, british "
     "accent'."),
])
def test_a_bad_description_is_refused_in_one_sentence(text, sentence):
    assert map_description(text).problem == sentence
    with pytest.raises(UserError) as err:
        describe(text)
    assert str(err.value) == sentence and "\n" not in sentence


def test_a_valid_instruct_passes_as_written_and_anything_else_is_described():
    # Order and language are the user's: the model hears what they typed.
    assert instruct_or_description("low pitch, Female") == "low pitch, Female"
    assert instruct_or_description("女，低音调，四川话") == "女，低音调，四川话"
    assert instruct_or_description("a deep female voice") == "female, low pitch"
    assert instruct_or_description(" ") is None
    with pytest.raises(UserError, match="'cheerful' is no voice attribute"):
        instruct_or_description("cheerful")


def test_build_instruct_follows_the_engines_category_order():
    assert build_instruct({"accent": "british accent", "gender": "male"}) == "male, british accent"
    assert build_instruct({}) is None


def test_a_typo_gets_a_suggestion():
    assert map_description("a yung wman").problem.startswith(
        "In the voice description, 'yung' (did you mean 'young'?), 'wman' (did you mean "
        "'woman'?) are no voice attributes")


PIECES = ["very", "deep", "old", "man", "woman", "british", "accent", "sichuan", "老", "男声",
          "raspy", "\udcff", "é", " ", "  ", "\n", "\t", ",", "，", "-", "'", "."]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=12).map("".join))
@example("deep, very\ndeep")  # a phrase across a line break, quoted in the sentence
def test_any_description_is_an_accepted_instruct_or_one_sentence(text):
    try:
        instruct = describe(text)
    except UserError as exc:
        message = str(exc)
        assert "\n" not in message and "\r" not in message and message.endswith("."), message
        return
    if instruct is not None:
        normalize_instruct(instruct, use_zh=False)  # raises if the engine would refuse it


def test_a_pasted_paragraph_is_still_a_short_sentence():
    problem = map_description("a woman " + " ".join(f"word{'x' * n}" for n in range(200))).problem
    assert problem.startswith("In the voice description, 'word', 'wordx', 'wordxx' and 197 more "
                              "are no voice attributes")
    assert len(problem) < 300
    long_word = map_description("a " + "z" * 500).problem
    assert f"'{'z' * 24}'" in long_word and len(long_word) < 300
