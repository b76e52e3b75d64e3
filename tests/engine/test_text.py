"""Text front end, checked against the reference package, plus our two fixes.

The reference import is unconditional: without it these tests must fail, not skip.
"""

import random
import re
import warnings

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import PreTrainedTokenizerFast

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # pydub complains about a missing ffmpeg
    from omnivoice.models.omnivoice import (
        _NONVERBAL_PATTERN,
        _combine_text,
        _tokenize_with_nonverbal_tags,
    )
    from omnivoice.utils.text import add_punctuation as ref_add_punctuation
    from omnivoice.utils.text import chunk_text_punctuation

from studio.engine.text import (
    NONVERBAL_TAGS,
    add_punctuation,
    chunk_text,
    combine_text,
    tokenize_text,
)

SPECIAL_TOKENS = [
    "<|denoise|>", "<|lang_start|>", "<|lang_end|>", "<|instruct_start|>",
    "<|instruct_end|>", "<|text_start|>", "<|text_end|>",
]

PARAGRAPHS = [
    "Hello there. How are you today? I'm fine, thanks! And you; are you well: yes.",
    "Mr. Smith met Dr. Jones at St. Mary's on Jan. the first, i.e. New Year. They talked.",
    "He said, \"Go now.\" She replied: 'Never!' (Really?) [Yes.] <Maybe.> Done.",
    "今天天气很好。我们去公园散步吧！你觉得怎么样？好的，走吧；别忘了带伞：可能会下雨。",
    "“你好。”他说。「再见！」】她笑了）。《书名》。",
    "No punctuation at all in this rather long sentence that just keeps going on and on",
    "Short. A. B. C. D. E. F. G. Then a much longer sentence follows right here, ok.",
    "...!!!???,,,;;;:::",
    "  Leading and trailing spaces.   Many   spaces   inside.  ",
    "Line one.\nLine two!\r\nLine three?\n\nLast line",
    "Mixed English 和中文 text. 这是第二句。And the third!",
    "[laughter] That was funny. [sigh] Anyway, let's go. [question-en] Right?",
    "Etc. and vs. e.g. approx. fig. def. Sept. Prof. Inc. Ltd. are abbreviations.",
    "Ends with closing marks.\" Another one.' And ) here.]",
    "a.b,c;d:e!f?g。h，i；j：k！l？m",
    "",
    "   ",
    ".Starts with a period, then continues.",
]

# No digits, so the reference's number splitting never comes into play.
FUZZ_ALPHABET = "abcXYZ  你好世界.,;:!?。，；：！？\"'“”‘’）]》>」】([\n"


def _train_tokenizer() -> Tokenizer:
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    corpus = PARAGRAPHS + [
        " ".join("".join(rng.choice(letters) for _ in range(rng.randint(2, 8))) for _ in range(10))
        for _ in range(3000)
    ]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1500, min_frequency=1, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus, trainer)
    tok.add_special_tokens(SPECIAL_TOKENS)
    return tok


@pytest.fixture(scope="module", params=["plain", "with-prefix"])
def tokenizer(request) -> PreTrainedTokenizerFast:
    tok = _train_tokenizer()
    if request.param == "with-prefix":
        # A tokenizer that adds a special token by default shows whether
        # add_special_tokens is passed the way the reference passes it.
        start = tok.token_to_id("<|text_start|>")
        tok.post_processor = processors.TemplateProcessing(
            single="<|text_start|> $A", special_tokens=[("<|text_start|>", start)]
        )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok)
    assert len(fast) > 1024
    assert all(fast.convert_tokens_to_ids(t) >= 1024 for t in SPECIAL_TOKENS)
    return fast


def _fuzz(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(FUZZ_ALPHABET) for _ in range(rng.randint(0, 120))) for _ in range(n)]


# --- combine_text -----------------------------------------------------------

COMBINE_CASES = [
    "Hello world", "  padded  ", "tabs\tand  spaces", "你好 世界", "Hello 世界 again",
    "（括号）and (parens)", "中文 ， 标点", "a\u3000b 中\u3000文", "", "x", "[laughter] 哈哈",
]


def test_combine_text_matches_reference_without_newlines():
    for text in COMBINE_CASES:
        for ref in (None, "", "  Reference text.  ", "参考文本。", "ref\tx"):
            assert combine_text(text, ref) == _combine_text(text, ref_text=ref), (text, ref)


def test_combine_text_keeps_reference_result_for_cjk_line_breaks():
    for text in ("你好\n世界", "第一行。\r\n第二行！\n\n第三行", "中文\n", "\n中文", "英文\nEnglish"):
        assert combine_text(text, "参考\n文本") == _combine_text(text, ref_text="参考\n文本")


def test_combine_text_fix_line_breaks_become_spaces():
    # The reference glues these into "Helloworld" and "Line one.Line two.".
    assert _combine_text("Hello\nworld") == "Helloworld"
    assert combine_text("Hello\nworld") == "Hello world"
    assert combine_text("Line one.\r\n\r\nLine two.") == "Line one. Line two."
    assert combine_text("a \n b") == "a b"
    assert combine_text("two", "one\n") == "one two"


# --- non-verbal tags and tokenisation ----------------------------------------

def test_nonverbal_tags_match_reference():
    assert len(NONVERBAL_TAGS) == 13 == len(set(NONVERBAL_TAGS))
    assert all(_NONVERBAL_PATTERN.fullmatch(tag) for tag in NONVERBAL_TAGS)
    listed = re.search(r"\((.*)\)", _NONVERBAL_PATTERN.pattern).group(1).split("|")
    assert {f"[{name}]" for name in listed} == set(NONVERBAL_TAGS)


TOKENIZE_CASES = [
    "", "Hello world.", "你好，世界！", "[laughter]", "[laughter][sigh]", "ha[laughter]ha",
    "[[sigh]]", "[laugh] is not a tag", "[Laughter] is not either", "x [question-en] y",
    "混合[surprise-wa]文本[dissatisfaction-hnn]。", "<|lang_start|>en<|lang_end|>",
    "ends with a tag [confirmation-en]", " ", "\n",
] + [f"a{tag}b" for tag in NONVERBAL_TAGS]


def test_tokenize_matches_reference(tokenizer):
    rng = random.Random(3)
    cases = TOKENIZE_CASES + PARAGRAPHS + [
        "".join(rng.choice(["[sigh]", "[laughter]", "你", "a", " ", "[", "]", "x"])
                for _ in range(rng.randint(0, 20)))
        for _ in range(150)
    ]
    for text in cases:
        for wrapped in (text, f"<|text_start|>{combine_text(text)}<|text_end|>"):
            expected = _tokenize_with_nonverbal_tags(wrapped, tokenizer)[0].tolist()
            assert tokenize_text(wrapped, tokenizer) == expected, wrapped


def test_tags_tokenize_the_same_in_any_context(tokenizer):
    def contains(ids: list[int], part: list[int]) -> bool:
        return any(ids[k:k + len(part)] == part for k in range(len(ids) - len(part) + 1))

    for tag in NONVERBAL_TAGS:
        alone = tokenize_text(tag, tokenizer)
        for context in (f"你好{tag}世界", f"word{tag}", f"{tag}word", f"a [{tag}] b"):
            assert contains(tokenize_text(context, tokenizer), alone), context


# --- add_punctuation -----------------------------------------------------------

def test_add_punctuation_matches_reference():
    cases = PARAGRAPHS + COMBINE_CASES + [
        "Hello", "你好", "Hello…", "Hello……", "ok)", "quote\"", "“引号”", "列表、", "】",
        "  spaced  ", "Hello 世界", "こんにちは", "안녕", "1234", "ends;", "ends:", "x}",
    ]
    for text in cases + _fuzz(random.Random(5), 300):
        assert add_punctuation(text) == ref_add_punctuation(text), text


# --- chunk_text ------------------------------------------------------------------

CHUNK_SETTINGS = [(1, None), (5, None), (20, None), (20, 3), (40, 3), (40, 10), (80, 0),
                  (200, 3), (0, 3), (15, 15), (60, 100)]


def test_chunk_text_matches_reference_on_paragraphs():
    text_all = " ".join(PARAGRAPHS)
    for text in PARAGRAPHS + [text_all]:
        for chunk_len, min_len in CHUNK_SETTINGS:
            expected = chunk_text_punctuation(text, chunk_len, min_len)
            assert chunk_text(text, chunk_len, min_len) == expected, (text, chunk_len, min_len)


def test_chunk_text_matches_reference_on_random_text():
    rng = random.Random(11)
    for text in _fuzz(rng, 600):
        chunk_len, min_len = rng.choice(CHUNK_SETTINGS)
        assert chunk_text(text, chunk_len, min_len) == chunk_text_punctuation(text, chunk_len, min_len)


@pytest.mark.parametrize("text, reference_cut", [
    ("It costs 3.5 dollars now. Then more.", "It costs 3."),
    ("We meet at 21:30, then leave. Bye.", "We meet at 21:"),
    ("About 1,000 people came today. Wow.", "About 1,"),
    ("版本 2.0 已经发布了。很好。", "版本 2."),
])
def test_chunk_text_fix_numbers_stay_whole(text, reference_cut):
    number = re.search(r"\d+[.,:]\d+", text).group()
    # The reference cuts the number at its separator...
    assert chunk_text_punctuation(text, 12, 3)[0] == reference_cut
    # ...ours keeps it whole, in every chunking.
    for chunk_len, min_len in CHUNK_SETTINGS:
        chunks = chunk_text(text, chunk_len, min_len)
        assert any(number in c for c in chunks), (chunks, chunk_len, min_len)
        assert "".join(chunks).replace(" ", "") == text.replace(" ", "")


def test_chunk_text_still_splits_next_to_digits():
    # Only a separator with a digit on both sides is protected.
    assert chunk_text("Room 5. Next one.", 1) == ["Room 5.", "Next one."]
    assert chunk_text("Count: 3, 4.", 1) == ["Count:", "3,", "4."]
    assert chunk_text("3.", 1) == ["3."]
    assert chunk_text(".5 and 5.", 1) == chunk_text_punctuation(".5 and 5.", 1)
    assert chunk_text("1.", 1) == ["1."]
