"""Journey 7: Transcribe in the launched studio, with a tiny Whisper model built here and
chosen in Settings, as a user picks a local model folder."""

from __future__ import annotations

import soundfile as sf
from studio_process import pick_reference, wait_takes
from tiny_asr import build_tiny_whisper


def test_transcribe_fills_the_transcript_with_the_asr_models_words(launch, reference_clip,
                                                                   tmp_path):
    from studio.engine.asr import Transcriber

    whisper = build_tiny_whisper(tmp_path / "tiny-whisper")
    wave, rate = sf.read(reference_clip, dtype="float32")
    expected = Transcriber(str(whisper))(wave, rate)  # the same pipeline, in this process
    assert expected.strip()

    studio = launch()
    studio.wait_model_loaded()
    studio.click_row("sidebar", 4)  # Settings
    studio.type("settingsView/asrModelEdit", str(whisper))
    studio.key("settingsView/asrModelEdit", "Return")
    studio.wait_until(lambda: studio.get("modelState")["text"].startswith("Loading"), 10,
                      "the reload with the new ASR model")
    studio.wait_model_loaded()

    studio.click_row("sidebar", 0)
    pick_reference(studio, reference_clip, "")
    studio.click("referencePanel/transcribeButton")
    studio.wait_until(lambda: studio.text("referencePanel/refTextEdit"), 120, "the transcript")
    assert studio.text("referencePanel/refTextEdit") == expected
    assert studio.status() == "Transcription ready."

    studio.type("cloneForm/textEdit", "Cloned with the transcript Whisper wrote.")
    studio.click("cloneForm/generateButton")
    assert wait_takes(studio, 1)["count"] == 1
    assert studio.close() == 0
