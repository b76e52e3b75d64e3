"""Journey 10: the Voices view in the launched program: two voices saved from Clone,
searched, renamed, deleted and brought back, duplicated; then used in Clone."""

from __future__ import annotations

from studio_process import pick_reference


def save_voice(studio, clip, transcript: str, name: str) -> None:
    pick_reference(studio, clip, transcript)
    studio.type("cloneView/voiceNameEdit", name)
    studio.click("cloneView/saveVoiceButton")
    studio.wait_until(lambda: studio.get("cloneView/voicePicker")["text"] == name, 60,
                      f"the voice {name!r} to be saved")


def listed(studio) -> list[str]:
    return studio.get("voicesView/voicesList")["rows"]


def test_search_rename_delete_undo_and_duplicate_voices(launch, reference_clip, screenshot):
    studio = launch()
    studio.wait_model_loaded()
    save_voice(studio, reference_clip, "A short sentence in my own voice.", "Narrator")
    save_voice(studio, reference_clip, "The same clip, another voice.", "News anchor")

    studio.click_row("sidebar", 2)  # Voices
    studio.wait_until(lambda: studio.get("voicesView")["visible"], 10, "the Voices view")
    assert sorted(listed(studio)) == ["Narrator", "News anchor"]
    studio.type("voicesView/voicesSearch", "anchor")
    studio.wait_until(lambda: listed(studio) == ["News anchor"], 10, "the search to filter")
    assert studio.text("voicesView/voicesCount") == "1 of 2 voices"

    studio.type("voicesView/voiceNameField", "Evening news")
    studio.key("voicesView/voiceNameField", "Return")
    studio.type("voicesView/voicesSearch", "")
    studio.wait_until(lambda: sorted(listed(studio)) == ["Evening news", "Narrator"], 30,
                      "the rename to be saved by the worker")

    studio.click_row("voicesView/voicesList", listed(studio).index("Narrator"))
    studio.click("voicesView/deleteVoiceButton")
    studio.wait_until(lambda: listed(studio) == ["Evening news"], 30, "the delete")
    assert studio.text("voicesView/undoText") == "Deleted the voice 'Narrator'."
    studio.click("voicesView/undoButton")
    studio.wait_until(lambda: sorted(listed(studio)) == ["Evening news", "Narrator"], 30,
                      "the undo")

    studio.click_row("voicesView/voicesList", listed(studio).index("Narrator"))
    studio.click("voicesView/duplicateVoiceButton")
    studio.wait_until(lambda: "Narrator copy" in listed(studio), 30, "the copy")
    assert studio.status() == "Saved a copy as 'Narrator copy'."
    screenshot(studio, "voices", None)

    studio.click_row("voicesView/voicesList", listed(studio).index("Evening news"))
    studio.click("voicesView/useVoiceButton")
    studio.wait_until(lambda: studio.get("cloneView")["visible"], 10, "the Clone view")
    assert studio.get("cloneView/voicePicker")["text"] == "Evening news"
    assert studio.text("referencePanel/refTextEdit") == "The same clip, another voice."
    assert studio.close() == 0
