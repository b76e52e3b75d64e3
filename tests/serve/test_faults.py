"""What a client can get wrong: each refusal is a 4xx JSON body with one sentence, the
server stays up, and nothing of it is a traceback in the server's stderr or log file."""

from __future__ import annotations

import base64

import httpx
import pytest

from tests.serve.servers import API_KEY, DESIGN, STEPS, TEXT, assert_one_sentence


@pytest.fixture(scope="module")
def http(our_server):
    with httpx.Client(base_url=our_server.url, timeout=60,
                      headers={"Authorization": f"Bearer {API_KEY}"}) as client:
        yield client


def speak(http, **body):
    return http.post("/v1/audio/speech", json={"input": TEXT, "steps": STEPS, **body})


def test_malformed_json_is_400(http):
    response = http.post("/v1/audio/speech", content=b'{"input": "hi", ',
                         headers={"content-type": "application/json"})
    assert "not valid JSON" in assert_one_sentence(response, 400)


def test_a_body_that_is_not_an_object_is_400(http):
    assert_one_sentence(http.post("/v1/audio/speech", json=["input"]), 400)


def test_input_over_the_text_limit_is_413(http):
    message = assert_one_sentence(speak(http, input="word " * 4001), 413)
    assert "20,000" in message


def test_a_body_over_the_size_limit_is_413(http):
    response = http.post("/v1/audio/speech", content=b" " * (23 * 2**20),
                         headers={"content-type": "application/json"})
    assert_one_sentence(response, 413)


def test_a_non_audio_ref_audio_is_422(http):
    junk = base64.b64encode(b"this is not audio at all" * 20).decode()
    response = speak(http, ref_audio=f"data:audio/wav;base64,{junk}", ref_text="Hello.")
    assert "not audio" in assert_one_sentence(response, 422)


def test_ref_audio_that_is_not_base64_is_400(http):
    assert_one_sentence(speak(http, ref_audio="data:audio/wav;base64,@@@", ref_text="x"), 400)


def test_ref_audio_without_its_transcript_is_422(http):
    assert_one_sentence(speak(http, ref_audio="UklGRg=="), 422)


def test_an_unknown_voice_is_404(http):
    assert "No saved voice" in assert_one_sentence(speak(http, voice="Nobody Here"), 404)


@pytest.mark.parametrize("name", ["../../x", "..\\..\\x", "/etc/passwd", "voices/../library.sqlite",
                                  "%2e%2e%2fx", "Narrator/../../x", "\x00"])
def test_a_crafted_voice_name_reaches_nothing(http, our_server, name):
    assert_one_sentence(speak(http, voice=name), (400, 404))
    assert (our_server.data / "library.sqlite").is_file()  # the data folder is as it was


def test_settings_out_of_range_are_400(http):
    for body in ({"steps": 0}, {"steps": 2.5}, {"seed": -1}, {"speed": 9}, {"guidance": "x"},
                 {"response_format": "aiff"}, {"stream": "yes"},
                 {"voice": DESIGN, "response_format": "mp3", "stream": True}):
        assert_one_sentence(speak(http, **body), (400, 422))


def test_an_unknown_language_is_spoken_without_a_hint_and_said_so(http):
    response = speak(http, voice=DESIGN, language="Klingon \u00e9\u4e2d")
    assert response.status_code == 200
    assert "Klingon" in response.headers["x-warning"]


def test_a_wrong_or_missing_key_is_401(our_server):
    for headers in ({"Authorization": "Bearer wrong"}, {}, {"Authorization": API_KEY}):
        response = httpx.post(f"{our_server.url}/v1/audio/speech", headers=headers,
                              json={"input": TEXT})
        assert "API key" in assert_one_sentence(response, 401)
    assert_one_sentence(httpx.get(f"{our_server.url}/v1/voices"), 401)


def test_unknown_paths_and_methods_are_one_sentence(http):
    assert_one_sentence(http.get("/v1/nothing"), 404)
    assert_one_sentence(http.get("/v1/audio/speech"), 405)


def test_the_server_stays_up_and_logged_no_traceback(http, our_server):
    assert speak(http, voice=DESIGN).status_code == 200
    assert http.get("/health").json()["status"] == "ok"
    assert our_server.process.poll() is None
    assert "Traceback" not in our_server.log_text()
