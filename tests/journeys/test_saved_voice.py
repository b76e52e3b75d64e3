"""Journey 9: save a voice from a clip, restart, pick it in Clone, render; the take
names the voice, and the render read its stored prompt (no encode)."""

from __future__ import annotations

import sqlite3

from studio_process import pick_reference, wait_takes


def test_save_a_voice_restart_pick_it_and_render(launch, reference_clip, screenshot):
    first = launch()
    first.wait_model_loaded()
    pick_reference(first, reference_clip, "A short sentence in my own voice.")
    assert not first.get("cloneView/saveVoiceButton")["enabled"], "no name typed yet"
    first.type("cloneView/voiceNameEdit", "Narrator")
    first.click("cloneView/saveVoiceButton")
    first.wait_until(lambda: first.get("cloneView/voicePicker")["text"] == "Narrator", 60,
                     "the saved voice to be picked")
    assert first.status() == "Saved the voice 'Narrator'.", first.status()
    assert first.get("cloneView/voicePicker")["items"][1] == "Narrator"
    assert "Recent: my voice.wav" in first.get("cloneView/voicePicker")["items"]
    assert first.close() == 0

    studio = launch()
    studio.wait_model_loaded()
    picker = studio.get("cloneView/voicePicker")
    assert "Narrator" in picker["items"], "the voice is there after a restart"
    # Start from another clip, so picking the voice is what fills the reference in.
    studio.type("referencePanel/refPathEdit", "")
    studio.key("referencePanel/refPathEdit", "Return")
    studio.choose("cloneView/voicePicker", "Narrator")
    assert studio.text("referencePanel/refTextEdit") == "A short sentence in my own voice."
    assert not studio.get("cloneView/saveVoiceButton")["enabled"], "it is a saved voice already"
    screenshot(studio, "picked", None)

    studio.type("cloneForm/textEdit", "A new line in a saved voice.")
    studio.click("cloneForm/generateButton")
    wait_takes(studio, 1)
    # The take is listed once judged, just before the job's end sets the status line.
    studio.wait_until(lambda: studio.status().startswith("Rendered 1 take"), 30,
                      "the status to say the take was rendered")
    assert "Narrator" in studio.get("takesVoiceFilter")["items"], "the takes filter by the voice"
    info = studio.text("takeDetail/takeInfo")
    assert info.startswith("Clone · Narrator ·"), info
    with sqlite3.connect(studio.data / "library.sqlite") as db:
        [(voice_id,)] = db.execute("SELECT id FROM voices WHERE name = 'Narrator'").fetchall()
        [(label,)] = db.execute("SELECT voice_label FROM takes").fetchall()
        assert label == "Narrator"
        assert voice_id in db.execute("SELECT voice_key FROM takes").fetchone()
    assert studio.close() == 0
