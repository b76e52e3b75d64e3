"""Every request our vLLM-Omni dialect builds, validated by vLLM-Omni 0.30's own request
model (``OpenAICreateSpeechRequest``, loaded from the installed wheel: tests/serve/
vllm_omni.py), and read the way its serving code reads it: no field we send may be
dropped as unknown, and a stream must be the raw audio stream the model defines."""

from __future__ import annotations

import base64
from urllib.parse import urlparse

import pytest

from studio.remote.dialects import RemoteRequest, dialect
from tests.serve.vllm_omni import speech_protocol

CLIP = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(28)  # only its bytes travel, as base64
MODEL = "k2-fsa/OmniVoice"

REQUESTS = {
    "design": RemoteRequest(text="Hello there.", instruct="female, low pitch", language="en",
                            seed=7, steps=16, guidance=2.5),
    "clone": RemoteRequest(text="Hello there.", ref_audio=CLIP, ref_name="ref.wav",
                           ref_text="A clip of speech.", speed=1.2),
    "saved voice": RemoteRequest(text="Hello there.", voice="narrator"),
    "auto voice": RemoteRequest(text="Hello there."),
    "design, streamed": RemoteRequest(text="Hello there.", instruct="male", stream=True),
    "clone, streamed": RemoteRequest(text="Hello there.", ref_audio=CLIP, ref_text="A clip.",
                                     stream=True, seed=0),
    "saved voice, streamed at speed 1": RemoteRequest(text="Hi.", voice="narrator", speed=1.0,
                                                      stream=True),
    "streamed at speed 1.5": RemoteRequest(text="Hi.", instruct="male", speed=1.5, stream=True),
}


@pytest.fixture(scope="module")
def protocol():
    return speech_protocol()


def _validated(protocol, request: RemoteRequest):
    call = dialect("vllm-omni").speech(request, MODEL)
    assert call.path == "/v1/audio/speech" and call.data is None and call.files is None
    body = call.json
    parsed = protocol.OpenAICreateSpeechRequest.model_validate(body)
    return body, parsed


@pytest.mark.parametrize("name", list(REQUESTS))
def test_every_request_is_valid_and_nothing_we_send_is_dropped(protocol, name):
    body, parsed = _validated(protocol, REQUESTS[name])
    fields = protocol.OpenAICreateSpeechRequest.model_fields
    unknown = set(body) - set(fields)
    assert not unknown, f"vLLM-Omni would silently drop {sorted(unknown)}"
    kept = parsed.model_dump()
    for key, value in body.items():
        assert kept[key] == value, key
    # OmniVoice's adapter lists no output rates: any sample_rate is refused (HTTP 400)
    assert "sample_rate" not in body


def test_the_decoding_settings_go_in_extra_params(protocol):
    _body, parsed = _validated(protocol, REQUESTS["design"])
    assert parsed.extra_params == {"num_inference_steps": 16, "guidance_scale": 2.5}
    assert parsed.instructions == "female, low pitch" and parsed.seed == 7
    assert parsed.language == "en" and parsed.model == MODEL


def test_a_clone_sends_its_clip_as_a_data_uri(protocol):
    _body, parsed = _validated(protocol, REQUESTS["clone"])
    assert urlparse(parsed.ref_audio).scheme == "data"  # the server's accepted schemes
    head, _, data = parsed.ref_audio.partition(",")
    assert head == "data:audio/x-wav;base64" or head == "data:audio/wav;base64"
    assert base64.b64decode(data) == CLIP and parsed.ref_text == "A clip of speech."


def test_a_saved_voice_is_sent_by_name(protocol):
    _body, parsed = _validated(protocol, REQUESTS["saved voice"])
    assert parsed.voice == "narrator" and parsed.ref_audio is None


@pytest.mark.parametrize("name", ["design", "clone", "saved voice", "auto voice",
                                  "streamed at speed 1.5"])
def test_a_whole_take_is_not_a_stream(protocol, name):
    _body, parsed = _validated(protocol, REQUESTS[name])
    assert not parsed.is_streaming()


@pytest.mark.parametrize("name", ["design, streamed", "clone, streamed",
                                  "saved voice, streamed at speed 1"])
def test_a_stream_is_raw_pcm_not_sse(protocol, name):
    _body, parsed = _validated(protocol, REQUESTS[name])
    assert parsed.is_raw_audio_stream() and not parsed.is_sse_stream()
    assert parsed.response_format == "pcm"


def test_a_stream_at_another_speed_asks_for_the_whole_take_as_pcm(protocol):
    # vLLM-Omni refuses to stream with a speed change unless the model controls speed
    # itself, and OmniVoice's adapter does not; the client reads the PCM as it comes.
    body, parsed = _validated(protocol, REQUESTS["streamed at speed 1.5"])
    assert parsed.response_format == "pcm" and parsed.speed == 1.5
    assert "stream" not in body and "stream_format" not in body
