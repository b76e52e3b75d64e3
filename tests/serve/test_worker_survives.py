"""A failure the renderer did not foresee, while it prepares one request's voice, is
that request's 500 sentence; the model's thread lives on and the next request renders
(before, the exception ended the thread and every later request waited forever)."""

from __future__ import annotations

import base64
import time

from tests.serve.servers import assert_one_sentence, speech_like_wav


def test_a_failing_voice_is_a_500_and_the_next_request_renders(served, tmp_path, monkeypatch,
                                                               caplog):
    client, renderer = served

    def broken(*_args, **_kwargs):
        raise RuntimeError("an unforeseen failure inside the codec")

    monkeypatch.setattr(renderer.engine, "create_prompt", broken)
    clip = base64.b64encode(speech_like_wav(tmp_path / "clip.wav").read_bytes()).decode()
    refused = client.post("/v1/audio/speech", json={
        "input": "Hello there.", "steps": 2, "seed": 1,
        "ref_audio": f"data:audio/wav;base64,{clip}", "ref_text": "A clip of speech."})
    message = assert_one_sentence(refused, 500)
    assert "log file" in message
    assert "an unforeseen failure inside the codec" in caplog.text  # the details: in the log

    rendered = client.post("/v1/audio/speech", json={"input": "Hello there.", "steps": 2,
                                                     "seed": 1})
    assert rendered.status_code == 200 and len(rendered.content) > 44
    # The model's thread releases the slot just after it sends the audio: wait for it.
    deadline = time.monotonic() + 10
    while renderer.admitted and time.monotonic() < deadline:
        time.sleep(0.02)
    assert renderer.admitted == 0
