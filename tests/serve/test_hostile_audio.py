"""Hostile ref_audio against a real ``serve`` process (issue 26, groups 1, 2 and 14).

A request of a few KB once got the server killed: the clip was decoded and resampled
to 24 kHz before its length was checked (2,000 samples declared at 1 Hz: +1.8 GB), a
250 KB FLAC of 8 channels x 1,300 s cost 2.2 GB per request (paid by requests that
then got 429), and a 24,001 Hz clip cost 10 GB. Now the header is checked before the
queue and the decode, after admission, is bounded; each of these gets a 4xx sentence
and the server's peak memory (VmHWM) grows by far less than any one of them cost.
"""

from __future__ import annotations

import base64
import io
import json
import subprocess
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
import soundfile as sf

from tests.serve.servers import (
    COMMAND,
    STEPS,
    TEXT,
    assert_one_sentence,
    env_for,
    serving,
    speech_like_wav,
)
from tests.sound.test_clip_bounds import flac_bomb, wav

GROWTH_KB = 300 * 1024  # far above what a bounded request costs, far below what they cost


@pytest.fixture(scope="module")
def server(tiny_checkpoint, tmp_path_factory):
    """Its own process, so its peak memory is this module's alone; one saved voice whose
    prompt file is then deleted (its 422 once named the data folder)."""
    root = tmp_path_factory.mktemp("hostile")
    data = root / "data"
    clip = speech_like_wav(root / "clip.wav")
    saved = subprocess.run([COMMAND, "voices", "save", "Broken", "--ref", str(clip),
                            "--ref-text", "A clip of speech for the test.", "--model",
                            str(tiny_checkpoint), "--device", "cpu"],
                           env=env_for(data), capture_output=True, text=True, timeout=180)
    assert saved.returncode == 0, saved.stderr
    for prompt in data.rglob("*.pt"):
        prompt.unlink()
    with serving(tiny_checkpoint, root, data, "--queue", "4") as running:
        yield running


def speak(server, clip: bytes, timeout: float = 120) -> httpx.Response:
    uri = "data:audio/wav;base64," + base64.b64encode(clip).decode()
    return httpx.post(f"{server.url}/v1/audio/speech", timeout=timeout,
                      json={"input": TEXT, "steps": STEPS, "ref_audio": uri,
                            "ref_text": "A clip of speech."})


@pytest.fixture
def peak(server):
    """Asserts, after the test, that the server's peak RSS grew by under GROWTH_KB and
    that it still answers /health."""
    before = server.rss_kb("VmHWM")
    yield
    grown = server.rss_kb("VmHWM") - before
    assert grown < GROWTH_KB, f"the server's peak RSS grew by {grown // 1024} MB"
    assert httpx.get(f"{server.url}/health", timeout=10).json()["status"] == "ok"


def test_a_clip_declared_at_1_hz_is_refused_from_its_header(server, peak):
    message = assert_one_sentence(speak(server, wav(2_000, 1)), 422)
    assert "1 Hz" in message and "8,000 to 192,000 Hz" in message


def test_a_flac_bomb_is_413_from_its_header(server, peak):
    bomb = flac_bomb()
    assert len(bomb) < 250_000
    message = assert_one_sentence(speak(server, bomb), 413)
    assert "1,300 s long" in message


def test_twenty_bombs_that_hide_their_length_at_once(server, peak):
    """The header cannot refuse these: each is admitted (or gets 429) and its decode
    stops at the bound."""
    bomb = flac_bomb(hide_length=True)
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda _: speak(server, bomb), range(20)))
    messages = [assert_one_sentence(answer, (413, 429)) for answer in answers]
    assert any("longer than the limit of 60 s" in m for m in messages), messages


def test_an_odd_rate_renders_within_bounds(server, peak):
    path = speech_like_wav(server.data.parent / "odd.wav")
    wave, _ = sf.read(path, dtype="float32")
    buf = io.BytesIO()
    sf.write(buf, wave, 24_001, format="WAV")  # the same samples, declared at 24,001 Hz
    response = speak(server, buf.getvalue())
    assert response.status_code == 200, response.text[:300]


def test_a_missing_prompt_file_does_not_name_the_servers_folders(server):
    response = httpx.post(f"{server.url}/v1/audio/speech", timeout=60,
                          json={"input": TEXT, "steps": STEPS, "voice": "Broken"})
    message = assert_one_sentence(response, 422)
    assert str(server.data) not in message and str(server.data.parent) not in message
    assert "/" not in message, message
    assert "server's data folder" in message


def test_parsing_reads_only_the_header():
    """What a request costs before the queue admits it (a 429 costs no more): a
    1,300 s FLAC that hides its length is not decoded by parse_speech."""
    from studio.serve.request import parse_speech

    uri = "data:audio/flac;base64," + base64.b64encode(flac_bomb(hide_length=True)).decode()
    tracemalloc.start()
    try:
        parsed = parse_speech({"input": TEXT, "ref_audio": uri, "ref_text": "Hello."})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, f"parse_speech allocated {peak // 2**20} MB"
    assert isinstance(parsed.ref_audio, bytes) and parsed.ref_key


def test_twenty_of_the_largest_bodies_at_once_cost_a_bounded_amount(server, peak):
    """Bodies are parsed before the queue can refuse them; the intake's budget lets a
    few be read at once and answers the rest 429 before reading them."""
    clip = base64.b64encode(np.random.default_rng(0).bytes(15 * 2**20)).decode()
    body = json.dumps({"input": TEXT, "steps": 0, "ref_audio": clip,
                       "ref_text": "x"}).encode()  # refused (steps) once it is parsed
    assert len(body) > 20 * 2**20

    def send(_):
        return httpx.post(f"{server.url}/v1/audio/speech", content=body, timeout=120,
                          headers={"content-type": "application/json"})

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(send, range(20)))
    for answer in answers:
        assert_one_sentence(answer, (400, 429))
    busy = [a for a in answers if a.status_code == 429]
    assert busy and all(a.headers["retry-after"] == "1" for a in busy)
