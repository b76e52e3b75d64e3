"""The pronunciation dictionary: whole-word, case-aware replacements that reach the
model's token ids, from a file or the data folder's pronunciations.json."""

from __future__ import annotations

import json

import pytest

from studio.engine import engine as engine_module
from studio.engine.decode import DecodeOptions
from studio.engine.engine import GenerationOptions, SynthesisItem
from studio.engine.lexicon import GLOBAL_FILE, Entry, Lexicon, load_pronunciations
from studio.errors import UserError


def test_whole_words_only_ignoring_case_unless_asked():
    lexicon = Lexicon([Entry("SQL", "sequel"), Entry("Read", "Reed", case=True)])
    assert lexicon.apply("sql, SQL and SQLite. Read it; read it.") == (
        "sequel, sequel and SQLite. Reed it; read it.")


def test_the_longest_entry_wins_and_earlier_entries_win_ties():
    lexicon = Lexicon([Entry("New York", "Noo York"), Entry("New", "Nyoo")]) + Lexicon(
        [Entry("New", "ignored")])
    assert lexicon.apply("New York is new.") == "Noo York is Nyoo."


def test_language_entries_apply_to_their_language_only():
    lexicon = Lexicon([Entry("Gift", "gift", language="en"), Entry("Gift", "Gifft", "de")])
    assert lexicon.apply("Ein Gift.", "de") == "Ein Gifft."
    assert lexicon.apply("A Gift.", "en") == "A gift."
    assert lexicon.apply("A Gift.", None) == "A Gift."


def test_tags_and_phonemes_in_brackets_are_left_alone_and_cjk_matches_inside_words():
    lexicon = Lexicon.from_data({"pause": "paws", "laughter": "laff", "重庆": "chong2 qing4",
                                 "Bass": "[B EY1 S]"})
    assert lexicon.apply("A pause [pause 1s] [laughter] Bass [B AE1 S].") == (
        "A paws [pause 1s] [laughter] [B EY1 S] [B AE1 S].")
    assert lexicon.apply("我在重庆。") == "我在chong2 qing4。"


def test_a_dictionary_entry_reaches_the_token_ids(engine, monkeypatch):
    built = []
    original = engine_module.build_item

    def spy(tokenizer, text, *args, **kwargs):
        item = original(tokenizer, text, *args, **kwargs)
        built.append(item.cond_ids[0, : item.audio_start].tolist())
        return item

    monkeypatch.setattr(engine_module, "build_item", spy)
    said = engine.tokenizer("Zorblax", add_special_tokens=False).input_ids
    kept = engine.tokenizer("Kowalczyk", add_special_tokens=False).input_ids
    lexicon = Lexicon([Entry("Kowalczyk", "Zorblax")])
    options = GenerationOptions(decode=DecodeOptions(num_step=2))
    engine.synthesize([SynthesisItem("Ask Kowalczyk now.", seed=1, lexicon=lexicon)], options)
    [ids] = built

    def contains(haystack, needle):
        return any(haystack[i:i + len(needle)] == needle for i in range(len(haystack)))

    assert contains(ids, said) and not contains(ids, kept)
    built.clear()
    engine.synthesize([SynthesisItem("Ask Kowalczyk now.", seed=1)], options)
    assert contains(built[0], kept)


@pytest.mark.parametrize("content, says", [
    ("{not json", "not valid JSON"),
    ('"a string"', "must be a JSON list"),
    ('[{"word": "x"}]', "needs a \"word\" and a \"say\""),
    ('[{"word": "x", "say": "y", "colour": 1}]', "must be an object with"),
    ('[{"word": "x", "say": "y", "case": "yes"}]', "must be true or false"),
    ('{"x": "' + "y" * 300 + '"}', "longer than 200 characters"),
])
def test_a_bad_dictionary_file_is_one_sentence(tmp_path, content, says):
    path = tmp_path / "words.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=says):
        Lexicon.load(path)


def test_the_data_folders_dictionary_joins_a_given_one(tmp_path, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(tmp_path / "data"))
    assert load_pronunciations() is None
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / GLOBAL_FILE).write_text(json.dumps({"Ana": "Ahna", "Bo": "Boo"}))
    given = tmp_path / "project.json"
    given.write_text(json.dumps({"Ana": "Anna"}))
    assert load_pronunciations().apply("Ana and Bo.") == "Ahna and Boo."
    assert load_pronunciations(given).apply("Ana and Bo.") == "Anna and Boo."
