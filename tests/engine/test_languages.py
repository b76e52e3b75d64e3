"""Language table and resolution, checked against the reference package.

The reference import is unconditional: without it these tests must fail, not skip.
"""

import dataclasses
import logging
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # pydub complains about a missing ffmpeg
    from omnivoice.models.omnivoice import _resolve_language
    from omnivoice.utils.lang_map import LANG_IDS, LANG_NAME_TO_ID, lang_display_name

from studio.engine.languages import (
    Languages,
    _read_table,
    load_languages,
    parse_languages,
    resolve_language,
)

REF_LOGGER = "omnivoice.models.omnivoice"


@pytest.fixture(scope="module")
def langs() -> Languages:
    return load_languages()


def test_table_matches_reference(langs):
    assert len(langs.entries) == 646
    assert langs.ids == LANG_IDS
    expected = {lang_id: lang_display_name(name) for name, lang_id in LANG_NAME_TO_ID.items()}
    assert {e.id: e.name for e in langs.entries} == expected
    assert langs.names == tuple(e.name for e in langs.entries)


def test_tsv_states_provenance():
    text = _read_table()
    header = [line for line in text.splitlines() if line.startswith("#")]
    joined = " ".join(header)
    for fact in ("k2-fsa/OmniVoice", "lang_id_name_map.tsv", "0.2.1", "Apache"):
        assert fact in joined
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(rows) == 646 and all(line.count("\t") == 1 for line in rows)


def _check(value, caplog):
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=REF_LOGGER):
        expected = _resolve_language(value)
    ref_warned = any(r.name == REF_LOGGER for r in caplog.records)
    code, warning = resolve_language(value)
    assert code == expected, value
    assert (warning is not None) == ref_warned, value
    assert load_languages().resolve(value) == expected
    if warning:
        assert repr(value) in warning or str(value) in warning
        assert "\n" not in warning and warning.endswith(".")


def test_every_id_and_name_resolves_like_reference(caplog):
    for lang_id in sorted(LANG_IDS):
        for value in (lang_id, lang_id.upper(), lang_id.title()):
            _check(value, caplog)
    for name in LANG_NAME_TO_ID:
        for value in (name, lang_display_name(name), name.upper(), f" {name}", f"{name} "):
            _check(value, caplog)


@pytest.mark.parametrize("value", [
    None, "none", "None", "NONE", "", " ", "en", "EN", "English", "english", "ENGLISH",
    "zh", "Chinese", "chinese", "cen", "Cen", "CEN", "luo", "Luo", "vai", "Vai", "xx",
    "klingon", "en-US", "zh_CN", " en", "Arbëreshë albanian", "ARBËRESHË ALBANIAN",
    "fe'fe'", "Fe'Fe'", "santiago del estero quichua", "Santiago Del Estero Quichua",
])
def test_odd_values_resolve_like_reference(value, caplog):
    _check(value, caplog)


def test_display_name(langs):
    for name, lang_id in LANG_NAME_TO_ID.items():
        assert langs.display_name(lang_id) == lang_display_name(name)
    assert langs.display_name("English") is None
    assert langs.display_name("xx") is None


def test_search_ranks_exact_matches_first(langs):
    assert langs.search("en")[0].id == "en"
    assert langs.search("English")[0].id == "en"
    assert langs.search("zh")[0].id == "zh"
    assert langs.search("chin")[0].name == "Chinese"
    quechua = langs.search("QUECHUA")
    assert quechua and all("quechua" in lang.name.lower() for lang in quechua)
    assert len(langs.search("")) == 646
    assert len(langs.search("a", limit=5)) == 5
    assert langs.search("no such language") == []


def test_table_is_immutable_and_cached(langs):
    assert load_languages() is langs
    with pytest.raises(dataclasses.FrozenInstanceError):
        langs.entries = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        langs._by_id["xx"] = "X"  # type: ignore[index]


def test_parse_skips_comments_and_blank_lines():
    table = parse_languages("# a comment\n\nen\tEnglish\nyue\tCantonese\n")
    assert table.ids == {"en", "yue"}
    assert table.resolve("cantonese") == "yue"
