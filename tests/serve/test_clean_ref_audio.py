"""``serve`` cleans a request's own clip when asked: ``clean`` (a list or a comma-separated
string, sent by the OpenAI SDK through ``extra_body``) runs the cleanup steps on the
ref_audio before it is encoded, into the data folder's cleaned clips (the same files as the
Clone view, ``synth --clean`` and MCP), and says what it did in X-OmniVoice-Cleanup; a
clip sent again is not cleaned again, a cleaned and an uncleaned clip never share an
encoded prompt, and every mistake is a 400 with one sentence, before any work."""

from __future__ import annotations

import base64
import io
import re

import httpx
import soundfile as sf
from openai import OpenAI

from studio.sound.files import read_audio
from tests.padded_clip import PADDED_CLIP_TEXT
from tests.serve.servers import API_KEY, STEPS, assert_one_sentence, speech_like_wav

TEXT = "A short line in a cleaned voice."
BODY = {"steps": STEPS, "seed": 5}


def _uri(clip) -> str:
    return "data:audio/wav;base64," + base64.b64encode(clip.read_bytes()).decode()


def _cleaned(data) -> dict:
    return {p: p.stat().st_ino for p in (data / "cleaned_clips").glob("*.wav")}


def test_a_clip_is_cleaned_once_and_the_header_says_what_was_done(our_server, padded_clip):
    client = OpenAI(base_url=f"{our_server.url}/v1", api_key=API_KEY, max_retries=0)
    before = _cleaned(our_server.data)
    extra = {**BODY, "ref_audio": _uri(padded_clip), "ref_text": PADDED_CLIP_TEXT,
             "clean": ["trim"]}
    raw = client.audio.speech.with_raw_response.create(
        model="omnivoice", voice="auto", input=TEXT, response_format="wav", extra_body=extra)
    said = raw.headers["x-omnivoice-cleanup"]
    assert re.fullmatch(r"\d\.\d s trimmed at the start, \d\.\d s at the end\.", said), said
    audio, rate = sf.read(io.BytesIO(raw.http_response.content), dtype="float32")
    assert rate == 24000 and audio.size > 0
    made = {p: ino for p, ino in _cleaned(our_server.data).items() if p not in before}
    [(path, inode)] = made.items()  # one cleaned clip, in the server's data folder
    samples, clip_rate = read_audio(path)
    original, original_rate = read_audio(padded_clip)
    assert samples.shape[-1] / clip_rate < original.shape[-1] / original_rate - 1.5

    # The same clip again, as a comma-separated string, streamed: found, not cleaned again.
    with client.audio.speech.with_streaming_response.create(
            model="omnivoice", voice="auto", input=TEXT, response_format="pcm",
            extra_body={**extra, "clean": "trim", "stream": True}) as response:
        assert response.headers["x-omnivoice-cleanup"] == said
        assert len(response.read()) > 0
    assert _cleaned(our_server.data) == {**before, path: inode}  # the file was not rewritten


def _post(server, **fields) -> httpx.Response:
    return httpx.post(f"{server.url}/v1/audio/speech", timeout=120,
                      headers={"Authorization": f"Bearer {API_KEY}"},
                      json={"input": TEXT, **BODY, **fields})


def test_mistakes_are_one_sentence_before_any_work(our_server, padded_clip):
    clip = {"ref_audio": _uri(padded_clip), "ref_text": PADDED_CLIP_TEXT}
    before = _cleaned(our_server.data)
    unknown = assert_one_sentence(_post(our_server, clean=["trim", "echo"], **clip), 400)
    assert unknown.startswith("Unknown cleanup step 'echo'; choose from noise, trim, loudness")
    typed = assert_one_sentence(_post(our_server, clean={"steps": "trim"}, **clip), 400)
    assert typed.startswith("The field 'clean' must be a list of cleanup steps")
    assert_one_sentence(_post(our_server, clean=["trim", 3], **clip), 400)
    long = assert_one_sentence(_post(our_server, clean="trim," * 100, **clip), 413)
    assert long == "The field 'clean' is 500 characters long; the limit is 100."
    alone = assert_one_sentence(_post(our_server, clean="all"), 400)
    assert alone == ("The field 'clean' cleans the ref_audio sent with the request; send the "
                     "clip too, or leave clean out.")
    saved = assert_one_sentence(_post(our_server, voice="Narrator", clean=["noise"]), 400)
    assert saved.startswith("The voice 'Narrator' is used as it was saved")
    assert _cleaned(our_server.data) == before
    # No steps is no cleaning, and no refusal.
    plain = _post(our_server, clean=[], **clip)
    assert plain.status_code == 200 and "x-omnivoice-cleanup" not in plain.headers


def test_the_prompt_memo_keeps_a_cleaned_and_an_uncleaned_clip_apart(tmp_path):
    from studio.serve.renderer import prompt_key
    from studio.serve.request import parse_speech

    clip = _uri(speech_like_wav(tmp_path / "clip.wav"))
    keys = {prompt_key(parse_speech({"input": TEXT, "ref_audio": clip, "ref_text": "Words.",
                                     "clean": clean}))
            for clean in (None, [], "trim", ["trim"], "noise,trim", ["trim", "noise"])}
    assert len(keys) == 3  # as recorded, trimmed, denoised and trimmed


def test_one_cleaning_on_the_model_thread_and_two_prompts(served, padded_clip, monkeypatch):
    """In process: the cleaner runs once for two identical requests, on the renderer's
    thread, and the encoded prompts with and without cleaning are two, and differ."""
    import threading

    import torch

    from studio.judges.cleanup import Cleaner

    client, renderer = served
    ran = []
    clean = Cleaner.clean

    def counted(self, *args, **kwargs):
        ran.append(threading.current_thread().name)
        return clean(self, *args, **kwargs)

    monkeypatch.setattr(Cleaner, "clean", counted)
    body = {"input": TEXT, **BODY, "ref_audio": _uri(padded_clip),
            "ref_text": PADDED_CLIP_TEXT}
    answers = [client.post("/v1/audio/speech", json={**body, **extra})
               for extra in ({"clean": "trim"}, {"clean": ["trim"]}, {})]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert ran == ["omnivoice-serve-model"]
    assert answers[0].headers["x-omnivoice-cleanup"] == answers[1].headers["x-omnivoice-cleanup"]
    assert "x-omnivoice-cleanup" not in answers[2].headers
    prompts = list(renderer._prompts.values())
    assert len(prompts) == 2
    assert not torch.equal(prompts[0].tokens, prompts[1].tokens)
