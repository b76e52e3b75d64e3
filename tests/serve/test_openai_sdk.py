"""A client no one here wrote: the official OpenAI SDK against our ``serve``.

At temperatures 0 the decode is deterministic, so the server's audio for a seed must
equal, sample for sample, what ``omnivoice-desktop synth`` writes locally for it."""

from __future__ import annotations

import io
import subprocess

import numpy as np
import pytest
import soundfile as sf
from openai import OpenAI

from tests.serve.servers import API_KEY, COMMAND, DESIGN, STEPS, env_for

TEXT = ("The storm rolled in over the hills just after noon. Farmers hurried to bring their "
        "animals inside before the rain.")
SEED = 11
GREEDY = {"steps": STEPS, "seed": SEED, "position_temperature": 0, "class_temperature": 0}


@pytest.fixture(scope="module")
def client(our_server):
    return OpenAI(base_url=f"{our_server.url}/v1", api_key=API_KEY, max_retries=0)


@pytest.fixture(scope="module")
def local(tiny_checkpoint, tmp_path_factory, our_server):
    """``synth`` of the same request on this machine: 16-bit samples."""
    out = tmp_path_factory.mktemp("local") / "local.wav"
    run = subprocess.run(
        [COMMAND, "synth", "--model", str(tiny_checkpoint), "--text", TEXT, "--instruct", DESIGN,
         "--steps", str(STEPS), "--seed", str(SEED), "--position-temperature", "0",
         "--class-temperature", "0", "--device", "cpu", "--precision", "fp32", "--quiet",
         "--out", str(out)],
        env=env_for(our_server.data), capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    return sf.read(out, dtype="int16")[0]


def test_speech_create_equals_local_synth(client, local):
    response = client.audio.speech.create(model="omnivoice", voice=DESIGN, input=TEXT,
                                          response_format="wav", extra_body=GREEDY)
    samples, rate = sf.read(io.BytesIO(response.content), dtype="int16")
    assert rate == 24000
    assert np.array_equal(samples, local)


def test_streaming_response_equals_local_synth(client, local):
    with client.audio.speech.with_streaming_response.create(
            model="omnivoice", voice=DESIGN, input=TEXT, response_format="pcm",
            extra_body={**GREEDY, "stream": True}) as response:
        assert response.headers["x-seed"] == str(SEED)
        pieces = list(response.iter_bytes())
    assert len(pieces) >= 1
    assert np.array_equal(np.frombuffer(b"".join(pieces), "<i2"), local)


def test_a_streamed_wav_reads_back_as_the_local_take(client, local):
    with client.audio.speech.with_streaming_response.create(
            model="tts-1", voice=DESIGN, input=TEXT, response_format="wav",
            extra_body={**GREEDY, "stream": True}) as response:
        data = response.read()
    assert data[:4] == b"RIFF" and data[36:40] == b"data"
    assert np.array_equal(np.frombuffer(data[44:], "<i2"), local)


@pytest.mark.parametrize("fmt", ["flac", "mp3", "opus"])
def test_every_format_decodes(client, local, fmt):
    response = client.audio.speech.create(model="omnivoice", voice=DESIGN, input=TEXT,
                                          response_format=fmt, extra_body=GREEDY)
    samples, rate = sf.read(io.BytesIO(response.content), dtype="int16")
    assert rate in (24000, 48000)
    if fmt == "flac":  # lossless, but libsndfile scales floats for FLAC by 32767, not 32768
        assert samples.shape == local.shape
        assert np.abs(samples.astype(int) - local).max() <= 1
    else:
        assert abs(samples.shape[0] * 24000 / rate - local.shape[0]) < 0.1 * local.shape[0]


def test_models_list_names_the_served_checkpoint(client, tiny_checkpoint):
    models = client.models.list()
    assert [m.id for m in models.data] == [tiny_checkpoint.name]
    assert models.data[0].owned_by == "omnivoice-desktop"


def test_a_saved_voice_speaks_by_name(client):
    response = client.audio.speech.create(model="omnivoice", voice="narrator", input=TEXT,
                                          extra_body={"steps": STEPS, "seed": 1})
    samples, _ = sf.read(io.BytesIO(response.content), dtype="int16")
    assert samples.shape[0] > 24000 * 0.5 and np.abs(samples).max() > 0
