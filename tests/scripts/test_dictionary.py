"""The Script view's pronunciations, Qt-free: the text form, and the data folder's file
read once per change (a damaged one too: one sentence, not a read per line shown)."""

from __future__ import annotations

import os

import pytest

from studio.engine.lexicon import GLOBAL_FILE, Lexicon
from studio.errors import UserError
from studio.scripts.dictionary import Pronunciations, dictionary_text, parse_dictionary


def test_the_text_form_round_trips_and_a_bad_line_is_one_sentence():
    lexicon = parse_dictionary("# names\nNguyen = Win\n\nSQL = sequel\n")
    assert dictionary_text(lexicon) == "Nguyen = Win\nSQL = sequel"
    with pytest.raises(UserError, match="^Line 2 of the pronunciations needs the form"):
        parse_dictionary("SQL = sequel\nNguyen")


def test_the_common_file_is_read_once_per_change(tmp_path, monkeypatch):
    reads = []
    load = Lexicon.load.__func__
    monkeypatch.setattr(Lexicon, "load", classmethod(
        lambda cls, path: reads.append(path) or load(cls, path)))
    words = Pronunciations(tmp_path)
    own = parse_dictionary("Bo = Boo")
    assert words.reads("Ana and Bo.", None, own) == "Ana and Boo." and reads == []
    common = tmp_path / GLOBAL_FILE
    common.write_text('{"Ana": "Ahna"}', encoding="utf-8")
    for _ in range(10):
        assert words.reads("Ana and Bo.", None, own) == "Ahna and Boo."
    assert len(reads) == 1
    assert words.lexicon(own) is words.lexicon(own), "compiled once while nothing changes"
    common.write_text("[1, 2", encoding="utf-8")
    os.utime(common, ns=(1, 1))
    for _ in range(3):
        assert words.reads("Ana and Bo.", None, own) == "Ana and Boo.", "the project's still"
        with pytest.raises(UserError):
            words.common()
    assert len(reads) == 2, "a damaged file is not read again until it changes"
    common.unlink()
    assert words.reads("Ana and Bo.", None, own) == "Ana and Boo."
