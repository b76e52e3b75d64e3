"""Reading scripts: plain text, Markdown chapters, SRT and VTT cues."""

from __future__ import annotations

import pytest

from studio.errors import UserError
from studio.scripts.parse import (
    CHAPTER_PAUSE_S,
    DEFAULT_SPEAKER,
    LINE_PAUSE_S,
    PARAGRAPH_PAUSE_S,
    parse_subtitles,
    parse_text,
    read_script,
)


def test_names_start_lines_and_new_names_become_speakers():
    script = parse_text("Alice: Hello, Bob.\nBob: Hi.\nHow are you?\n\nAlice: Fine. Note: all good.\n")
    assert [(ln.speaker, ln.text) for ln in script.lines] == [
        ("Alice", "Hello, Bob."), ("Bob", "Hi."), ("Bob", "How are you?"),
        ("Alice", "Fine. Note: all good.")]
    assert script.speakers == ["Alice", "Bob"]
    assert [ln.pause_after for ln in script.lines] == [LINE_PAUSE_S, LINE_PAUSE_S,
                                                     PARAGRAPH_PAUSE_S, 0.0]


def test_lines_before_any_name_are_the_narrators():
    assert parse_text("Once upon a time.\nThe end.").speakers == [DEFAULT_SPEAKER]


def test_markdown_headings_open_chapters_with_a_longer_pause():
    script = parse_text("# One\nA: First.\nA: Second.\n## Two\nB: Third.", markdown=True)
    assert [ln.chapter for ln in script.lines] == ["One", None, "Two"]
    assert script.lines[1].pause_after == CHAPTER_PAUSE_S
    assert "#" not in " ".join(ln.text for ln in script.lines)


SRT = """1
00:00:01,000 --> 00:00:03,500
Alice: Hello <i>there</i>.

2
00:00:04,250 --> 00:00:06,000
Good to see you,
old friend.
"""


def test_srt_cues_become_timed_lines():
    script = parse_subtitles(SRT)
    assert script.lead == 1.0
    assert [(ln.speaker, ln.text) for ln in script.lines] == [
        ("Alice", "Hello there."), (DEFAULT_SPEAKER, "Good to see you, old friend.")]
    assert [ln.duration for ln in script.lines] == pytest.approx([2.5, 1.75])
    assert script.lines[0].pause_after == pytest.approx(0.75)


def test_vtt_headers_and_notes_are_skipped(tmp_path):
    path = tmp_path / "talk.vtt"
    path.write_text("WEBVTT\n\nNOTE a comment\n\n00:01.000 --> 00:02.000\nOne.\n\n"
                    "intro\n00:00:02.500 --> 00:00:04.000 align:start\nTwo.\n", encoding="utf-8")
    script = read_script(path)
    assert [ln.text for ln in script.lines] == ["One.", "Two."]
    assert [ln.duration for ln in script.lines] == pytest.approx([1.0, 1.5])


@pytest.mark.parametrize("name, content, says", [
    ("s.doc", "x", "must end in"),
    ("s.txt", "\n\n", "has no lines"),
    ("s.srt", "1\n00:00:05,000 --> 00:00:04,000\nBackwards.\n", "ends before it starts"),
])
def test_unreadable_scripts_are_one_sentence(tmp_path, name, content, says):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=says):
        read_script(path)


def test_a_missing_or_non_utf8_script_is_one_sentence(tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        read_script(tmp_path / "nope.txt")
    bad = tmp_path / "latin.txt"
    bad.write_bytes(b"caf\xe9")
    with pytest.raises(UserError, match="not UTF-8"):
        read_script(bad)


@pytest.mark.parametrize("srt, says", [
    # issue 26, group 17: a malformed timing line dropped the cue, and the render was short
    ("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\n2\n00:00:03,000 -> 00:00:04,000\nTwo.\n",
     "The cue at line 5 of .* has no timing line"),
    ("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\n\n\n2\n00:00:03 --> 00:00:04\nTwo.\n",
     "The cue at line 7 of .* has no timing line .*'2 / 00:00:03 --> 00:00:04'"),
    ("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\nTwo, after a blank line.\n",
     "The cue at line 5 .* has no timing line"),
    # group 16: cues near 10^9 ms, and one longer than any line may be
    ("1\n277:46:40,000 --> 277:46:41,000\nLate.\n", "line 1 .* ends after 24 hours"),
    ("1\n00:00:00,000 --> 01:00:00,000\nLong.\n", "lasts 3,600 seconds"),
])
def test_a_cue_that_cannot_be_timed_is_one_sentence_naming_its_line(tmp_path, srt, says):
    path = tmp_path / "talk.srt"
    path.write_text(srt, encoding="utf-8")
    with pytest.raises(UserError, match=says) as refused:
        read_script(path)
    assert "\n" not in str(refused.value)


def test_vtt_style_and_region_blocks_are_skipped():
    script = parse_subtitles("WEBVTT - a title\n\nSTYLE\n::cue { color: red }\n\n"
                             "REGION\nid:r\n\n00:01.000 --> 00:02.000\nOne.\n")
    assert [ln.text for ln in script.lines] == ["One."]


@pytest.mark.parametrize("srt, says", [
    ("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\n2\n00:00:03,000 - 00:00:04,000\nTwo.\n",
     "The cue at line 5 of "),
    ("1\n00:00:01,000 --> 00:00:02,000\nOne.\n\n2\n277:46:40,000 --> 277:46:41,000\nTwo.\n",
     "ends after 24 hours"),
])
def test_script_import_and_render_refuse_such_a_cue_with_one_sentence(cli, tmp_path, srt, says):
    """The old code imported and rendered the malformed cue's script one line short (exit 0)
    and took the 10^9 ms cue to the renderer."""
    (tmp_path / "talk.srt").write_text(srt, encoding="utf-8")
    (tmp_path / "voices.json").write_text('{"Narrator": {"instruct": "male"}}',
                                          encoding="utf-8")
    for args in (("import", tmp_path / "talk.srt", "--out", tmp_path / "p.ovproj"),
                 ("render", tmp_path / "talk.srt", "--voices", tmp_path / "voices.json",
                  "--out", tmp_path / "m.wav", "--model", tmp_path / "no-model")):
        code, _, stderr = cli("script", *args)
        assert code == 2 and len(stderr) == 1 and says in stderr[0], stderr
    assert not (tmp_path / "p.ovproj").exists() and not (tmp_path / "m.wav").exists()


def test_overlapping_cues_that_would_span_more_than_a_day_are_one_sentence():
    srt = "\n\n".join(f"{n}\n00:00:00,000 --> 00:30:00,000\nLine {n}." for n in range(1, 61))
    with pytest.raises(UserError, match="overlap so much .* 30 hours"):
        parse_subtitles(srt)
