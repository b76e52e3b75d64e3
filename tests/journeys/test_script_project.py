"""Journey 10: import a dialogue into the Script view, give its speakers voices, render
every line, render one line again with a new seed, export the mix and the stems, quit,
start the studio again: the project is open with its lines and takes."""

from __future__ import annotations

import soundfile as sf

from tests.audio_output import has_output, need_output

DIALOGUE = """Alice: Good morning, Bob.
Bob: Morning. Did you sleep well?
Alice: Not really, the storm kept me up.

Bob: Then coffee first, and the plan after.
"""

# A rendered line is done, or names what the take check found: the tiny random model's
# takes are often too loud (a real model's are not).
RENDERED = {"done", "too loud", "clipped", "too quiet", "silent", "long gap"}


def _statuses(studio) -> list[str]:
    return [row[4] for row in studio.get("scriptLines")["cells"]]  # #, speaker, voice, text, status


def _describe(studio, speaker: str, instruct: str) -> None:
    studio.choose("speakerCombo", speaker)
    studio.type("speakerInstructEdit", instruct)
    studio.key("speakerInstructEdit", "Return")
    studio.wait_until(lambda: studio.text("speakerSeedLabel") == "Same variation each render", 10,
                      f"{speaker}'s voice to get a locked variation")


def test_import_a_dialogue_render_rerender_export_and_reopen(launch, tmp_path, screenshot):
    script = tmp_path / "breakfast.txt"
    script.write_text(DIALOGUE, encoding="utf-8")
    studio = launch()
    studio.wait_model_loaded()
    studio.click_row("sidebar", 3)
    studio.wait_until(lambda: studio.get("scriptView")["visible"], 10, "the Script view")
    studio.type("scriptPathEdit", str(script))
    studio.key("scriptPathEdit", "Return")
    studio.wait_until(lambda: studio.get("scriptLines")["count"] == 4, 10, "the lines")
    assert studio.status().startswith("Imported breakfast.txt into breakfast.ovproj: 4 lines, "
                                      "2 speakers."), studio.status()
    cells = studio.get("scriptLines")["cells"]
    assert [row[1] for row in cells] == ["Alice", "Bob", "Alice", "Bob"]
    assert _statuses(studio) == ["not rendered"] * 4
    studio.click("renderAllButton")  # nobody has a voice yet: said, nothing starts
    assert studio.text("scriptNotice") == ("Give Alice a voice first: pick a saved voice or "
                                           "describe one."), studio.text("scriptNotice")
    _describe(studio, "Alice", "female, low pitch")
    _describe(studio, "Bob", "male, british accent")

    studio.choose("scriptPresetCombo", "Draft")
    studio.click("renderAllButton")
    studio.wait_until(lambda: studio.status().startswith("Rendered 4 lines"), 240,
                      "the render to end")
    assert set(_statuses(studio)) <= RENDERED, _statuses(studio)
    assert studio.get("takesList")["count"] == 4, "each line's take is in the take library"
    # Play as it renders (on by default): the lines were heard before the render ended
    # (where something can play; else the test says at its end why this was left out).
    if has_output():
        player = studio.request("player")
        assert "playing" in player["states"], player
        said = studio.request("first_sound")["first_sound"]["script"]
        assert said.startswith("Line ") and said.endswith(tuple("0123456789")), \
            f"sound started when the script's progress said {said!r}"
        assert player["duration"] > 1.0, "all four lines and their pauses were streamed"
    lengths = [row[5] for row in studio.get("scriptLines")["cells"]]
    assert all(length.endswith(" s") for length in lengths), lengths

    studio.click_row("scriptLines", 2)
    assert studio.get("lineTakeCombo")["items"][0].startswith("Take 1 of 1")
    studio.click("newSeedButton")
    studio.wait_until(lambda: len(studio.get("lineTakeCombo")["items"]) == 2, 120,
                      "line 3's second take")
    takes = studio.get("lineTakeCombo")
    assert takes["text"].startswith("Take 2 of 2"), "the new take is the chosen one"
    assert set(_statuses(studio)) <= RENDERED
    assert studio.get("takesList")["count"] == 5, "one new take, of line 3 only"
    assert studio.get("compareLineButton")["enabled"]
    screenshot(studio, "rendered")

    mix = tmp_path / "out" / "breakfast.wav"
    mix.parent.mkdir()
    studio.type("exportPathEdit", str(mix))
    studio.click("exportScriptButton")
    # Written on the export's own thread: the notice says when all the files are there.
    studio.wait_until(lambda: studio.text("scriptNotice").startswith(
        "Exported breakfast.wav, .srt, .cue and 2 stems in 'breakfast_stems/'"), 60, "the export")
    assert mix.exists()
    stems = sorted(p.name for p in (mix.parent / "breakfast_stems").iterdir())
    assert stems == ["Alice.wav", "Bob.wav"], stems
    frames = sf.info(str(mix)).frames
    assert all(sf.info(str(mix.parent / "breakfast_stems" / s)).frames == frames for s in stems)
    assert (mix.parent / "breakfast.srt").read_text(encoding="utf-8").count(" --> ") == 4
    assert studio.close() == 0

    again = launch()
    again.wait_model_loaded()
    again.click_row("sidebar", 3)
    again.wait_until(lambda: again.get("scriptLines")["count"] == 4, 10, "the project to reopen")
    assert again.text("scriptPathEdit") == str(tmp_path / "breakfast.ovproj")
    assert set(_statuses(again)) <= RENDERED, "the chosen takes are still the lines'"
    again.click_row("scriptLines", 2)
    assert len(again.get("lineTakeCombo")["items"]) == 2
    assert again.text("exportPathEdit") == str(mix), "the export path is the project's"
    assert again.close() == 0
    need_output()  # the playback above was left out where nothing can play: said here
