"""The judgement headers stay ASCII, valid JSON and within their bound, whatever the
judges' lines say."""

from __future__ import annotations

import json

from studio.serve.headers import header_value
from studio.serve.scores import MAX_JUDGEMENT_CHARS, compact, score_headers


def _judgement(why: str) -> dict:
    return {"combined": 0.61234, "judgements": [
        {"judge": "voice", "score": 0.8123, "verdict": "ok", "explanation": why, "details": {}},
        {"judge": "words", "score": None, "verdict": "not judged", "explanation": why,
         "details": {}},
        {"judge": "sound", "score": 0.5, "verdict": "warn", "explanation": why,
         "details": {"ovrl": 3.0}}]}


def test_short_lines_are_kept_and_non_ascii_is_escaped():
    headers = score_headers(_judgement("First: dropped \u201cbrown\u201d at 1.2 s."))
    assert headers["X-OmniVoice-Score"] == "0.612"
    text = headers["X-OmniVoice-Judgement"]
    assert text.isascii() and header_value(text) == text  # nothing left to escape or cut
    data = json.loads(text)
    assert data["voice"] == {"score": 0.812, "verdict": "ok",
                             "why": "First: dropped \u201cbrown\u201d at 1.2 s."}
    assert data["words"]["score"] is None and data["combined"] == 0.61234


def test_long_lines_are_dropped_before_the_json_would_be_cut():
    text = compact(_judgement("x" * 400))
    assert len(text) <= MAX_JUDGEMENT_CHARS
    data = json.loads(text)
    assert data["sound"] == {"score": 0.5, "verdict": "warn"} and "why" not in data["voice"]


def test_nothing_judged_says_none():
    assert score_headers({"combined": None, "judgements": []})["X-OmniVoice-Score"] == "none"
