"""The one rule for names the app makes from a text (studio.outputs): short, readable,
cut where a sentence, a clause or a word ends, and a name every file system accepts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from studio.outputs import MAX_STEM_CHARS, TITLE_WORDS, name_of, safe_stem, title_of


def test_a_title_is_the_first_sentence_or_clause_never_a_cut_one():
    """Review 5 (9): the export suggested "Chapter two. The rain had not"."""
    assert title_of("Chapter two. The rain had not stopped for three days.") == "Chapter two"
    assert title_of("Good evening, and welcome to the story.") == "Good evening"
    assert title_of("The rain had not stopped for three days") == "The rain had not stopped"
    assert title_of("Hi!") == "Hi"
    assert title_of("今天天气很好，我们去公园散步吧。然后回家吃饭。") == "今天天气很好，我们去公园散步吧"
    assert title_of("   ") == ""


def test_a_name_joins_its_parts_and_drops_what_file_systems_refuse():
    assert name_of("Chapter two", "", "take 2") == "Chapter two - take 2"
    assert safe_stem('Take 3 · seed 5: "best"/final.') == "Take 3 - seed 5 best final"
    assert safe_stem("...") == "take" and safe_stem("", "voice") == "voice"


@given(st.text(max_size=300))
def test_a_title_ends_where_a_word_of_the_text_ends(text):
    title = title_of(text)
    assert len(title.split()) <= TITLE_WORDS
    words = text.split()
    if title and len(words) > 1:
        last = title.split()[-1]
        n = len(title.split()) - 1
        assert words[n].startswith(last), (title, words)  # whole words, less punctuation
        assert title.split()[:-1] == words[:n]


@given(st.text(max_size=300))
def test_a_stem_is_safe_everywhere(text):
    stem = safe_stem(text)
    assert stem and len(stem) <= MAX_STEM_CHARS
    assert not set(stem) & set('<>:"/\\|?*') and all(ord(c) >= 32 for c in stem)
    assert stem == stem.strip(" .")
