"""`serve` reads a voice description with the Design view's parser: in OpenAI's
``instructions`` and in ``voice``, a description renders as the instruct it stands
for, and a bad one is refused with the window's sentence."""

from __future__ import annotations

import httpx
import pytest

from studio.engine.describe import map_description
from studio.serve.request import BadRequest, NotFound, parse_speech
from studio.serve.voices import resolve_voice
from tests.serve.servers import API_KEY, STEPS, TEXT, assert_one_sentence


def resolved(tmp_path, **body):
    return resolve_voice(parse_speech({"input": TEXT, **body}), tmp_path).instruct


def test_instructions_in_words_become_the_instruct(tmp_path):
    assert resolved(tmp_path, instructions="a deep female voice") == "female, low pitch"
    assert resolved(tmp_path, voice="an old man") == "male, elderly"
    assert resolved(tmp_path, voice="an old man", instructions="whispering") == (
        "male, elderly, whisper")


def test_an_instruct_passes_as_written(tmp_path):
    assert resolved(tmp_path, instructions="low pitch, Female") == "low pitch, Female"
    assert resolved(tmp_path, voice="女，低音调") == "女，低音调"


def test_a_bad_description_is_the_windows_sentence(tmp_path):
    for body in ({"instructions": "an old man, slightly raspy"},
                 {"voice": "an old man, slightly raspy"}):
        with pytest.raises(BadRequest) as err:
            resolved(tmp_path, **body)
        assert str(err.value) == map_description("an old man, slightly raspy").problem


def test_a_name_that_is_no_voice_and_no_description_is_still_not_found(tmp_path):
    with pytest.raises(NotFound, match="No saved voice is named 'Nobody Here'"):
        resolved(tmp_path, voice="Nobody Here")


@pytest.fixture(scope="module")
def http(our_server):
    with httpx.Client(base_url=our_server.url, timeout=60,
                      headers={"Authorization": f"Bearer {API_KEY}"}) as client:
        yield client


def test_through_the_server(http):
    def speak(**body):
        return http.post("/v1/audio/speech", json={"input": TEXT, "steps": STEPS, "seed": 3,
                                                   "position_temperature": 0, **body})

    described = speak(instructions="a deep female voice")
    instructed = speak(instructions="female, low pitch")
    assert described.status_code == instructed.status_code == 200, described.text[:300]
    assert described.content == instructed.content
    message = assert_one_sentence(speak(instructions="a man, slightly raspy"), 400)
    assert message == map_description("a man, slightly raspy").problem
