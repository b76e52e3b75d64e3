"""Voice-design instruct normalisation, checked against the reference package.

The reference import is unconditional: without it these tests must fail, not skip.
"""

import random
import re
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # pydub complains about a missing ffmpeg
    from omnivoice.models.omnivoice import _resolve_instruct
    from omnivoice.utils.voice_design import _INSTRUCT_CATEGORIES

from studio.engine.instruct import CATEGORIES, normalize_instruct, text_wants_chinese
from studio.errors import UserError

ALL_ITEMS = [w for c in CATEGORIES for i in c.items for w in (i.en, i.zh) if w]
SEPARATORS = [", ", ",", "，", " , ", "，  ", " ，", ",  "]


def _reference(instruct, use_zh):
    try:
        return _resolve_instruct(instruct, use_zh=use_zh)
    except ValueError as exc:
        return exc


def _same(instruct, use_zh):
    expected = _reference(instruct, use_zh)
    if isinstance(expected, ValueError):
        with pytest.raises(UserError) as err:
            normalize_instruct(instruct, use_zh)
        message = str(err.value)
        assert "\n" not in message and message.endswith("."), message
        return expected, message
    assert normalize_instruct(instruct, use_zh) == expected, (instruct, use_zh)
    return expected, None


def test_vocabulary_matches_reference():
    ours = []
    for cat in CATEGORIES:
        if all(i.en and i.zh for i in cat.items):
            ours.append({i.en: i.zh for i in cat.items})
        else:
            ours.append({i.en or i.zh for i in cat.items})
    assert ours == _INSTRUCT_CATEGORIES
    assert [c.key for c in CATEGORIES] == ["gender", "age", "pitch", "style", "accent", "dialect"]


def test_vocabulary_is_immutable():
    assert isinstance(CATEGORIES, tuple)
    assert all(isinstance(c.items, tuple) for c in CATEGORIES)
    with pytest.raises(AttributeError):
        CATEGORIES[0].items[0].en = "x"  # type: ignore[misc]


@pytest.mark.parametrize("use_zh", [False, True])
def test_every_item_alone(use_zh):
    for item in ALL_ITEMS:
        for value in (item, item.upper(), item.title(), f"  {item} ", f",{item},", f"，{item}"):
            _, error = _same(value, use_zh)
            assert error is None, value


@pytest.mark.parametrize("value", [None, "", "   ", ",", "，，", " , "])
def test_empty_instructs(value):
    for use_zh in (False, True):
        assert normalize_instruct(value, use_zh) == _resolve_instruct(value, use_zh=use_zh)


def test_random_combinations_match_reference():
    rng = random.Random(1234)
    errors = 0
    for _ in range(3000):
        picked = []
        for cat in CATEGORIES:
            if rng.random() < 0.45:
                item = rng.choice(cat.items)
                picked.append(rng.choice([w for w in (item.en, item.zh) if w]))
        if rng.random() < 0.15:  # occasionally a second item of some category
            picked.append(rng.choice(ALL_ITEMS))
        rng.shuffle(picked)
        picked = [w.upper() if rng.random() < 0.1 else w for w in picked]
        text = ""
        for k, word in enumerate(picked):
            text += (rng.choice(SEPARATORS) if k else "") + word
        if rng.random() < 0.1:
            text = rng.choice(SEPARATORS) + text + rng.choice(SEPARATORS)
        _, error = _same(text, rng.random() < 0.5)
        errors += error is not None
    assert 100 < errors < 2000  # both outcomes are exercised


@pytest.mark.parametrize("value, use_zh, expected", [
    ("female, low pitch", True, "女，低音调"),
    ("女，低音调", False, "female, low pitch"),
    ("男, 四川话", False, "男，四川话"),
    ("male, british accent", True, "male, british accent"),
    ("女,British Accent", True, "female, british accent"),
    ("Female，Elderly， whisper", False, "female, elderly, whisper"),
    ("东北话, very high pitch", False, "东北话，极高音调"),
])
def test_unification_examples(value, use_zh, expected):
    assert normalize_instruct(value, use_zh) == expected
    assert _resolve_instruct(value, use_zh=use_zh) == expected


@pytest.mark.parametrize("value", [
    "mal", "femal", "yung adult", "britsh accent", "四川", "hi pitch", "whispering",
    "xyz", "male; low pitch", "male、女", "male, teenage", "american", "广东话",
    "very low", "midle-aged", "女,低音", "male, low pitch, foo", "foo, bar",
])
def test_unknown_items_are_named_with_the_reference_suggestion(value):
    expected, message = _same(value, False)
    assert isinstance(expected, ValueError)
    for line in str(expected).splitlines():
        m = re.match(r"  '(.*)' -> '.*' \(unsupported(?:; did you mean '(.*)'\?)?\)$", line)
        if m:
            raw, suggestion = m.groups()
            assert f"'{raw}'" in message
            if suggestion:
                assert f"did you mean '{suggestion}'" in message
            else:
                assert f"'{raw}' (did you mean" not in message


@pytest.mark.parametrize("value, named", [
    ("male, female", ["'male'", "'female'", "gender"]),
    ("male, 男", ["'male'", "'男'", "gender"]),
    ("whisper, whisper", ["'whisper'", "style"]),
    ("child, 老年", ["'child'", "'老年'", "age"]),
    ("low pitch, HIGH PITCH", ["'low pitch'", "'HIGH PITCH'", "pitch"]),
    ("british accent, indian accent", ["'british accent'", "'indian accent'", "accent"]),
    ("四川话，东北话", ["'四川话'", "'东北话'", "dialect"]),
    ("british accent, 四川话", ["'british accent'", "'四川话'", "accent", "dialect"]),
])
def test_conflicts_are_named(value, named):
    for use_zh in (False, True):
        expected, message = _same(value, use_zh)
        assert isinstance(expected, ValueError)
        for part in named:
            assert part in message, message


@pytest.mark.parametrize("text, expected", [
    ("", False), (None, False), ("Hello", False), ("你好", True), ("Hello 世界", True),
    ("こんにちは", False), ("한국어", False), ("\u3400", False), ("\u4e00", True),
    ("\u9fff", True), ("\ua000", False), ("ＡＢＣ", False), ("《》", False),
])
def test_text_wants_chinese(text, expected):
    # The reference decides this inline: any character in U+4E00..U+9FFF.
    assert text_wants_chinese(text) is expected
