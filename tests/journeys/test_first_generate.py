"""Journey 1: first launch on an empty data folder, clone from a reference file,
Generate, and the take appears and plays to the audio device."""

from __future__ import annotations

import sqlite3

import pytest
from studio_process import pick_reference, play_selected_take, wait_takes


@pytest.mark.parametrize("platform", ["offscreen", "xcb"], indirect=True)
def test_first_launch_clone_generate_and_play(launch, reference_clip, screenshot, platform):
    studio = launch()
    assert studio.get("mainWindow")["visible"]
    assert studio.get("cloneView")["visible"], "the studio opens on the Clone view"
    studio.wait_model_loaded()

    pick_reference(studio, reference_clip, "A short sentence in my own voice.")
    studio.type("cloneForm/textEdit", "Hello from the first journey.")
    studio.click("cloneForm/generateButton")
    takes = wait_takes(studio, 1)
    assert takes["count"] == 1 and takes["current"] == 0, "the new take is listed and selected"
    status = studio.status()
    assert status.startswith("Rendered 1 take"), status
    assert studio.get("cloneForm/generateButton")["enabled"], "Generate is back for the next take"

    player = play_selected_take(studio)
    assert player["states"][:1] == ["playing"] and player["duration"] > 0.5
    assert player["position"] == pytest.approx(player["duration"], abs=0.05), "played to the end"
    assert player["underflows"] == 0
    screenshot(studio, "take", None)

    # What the user keeps: the take's audio and its row in the library.
    flacs = list((studio.data / "takes").glob("*.flac"))
    assert len(flacs) == 1
    with sqlite3.connect(studio.data / "library.sqlite") as db:
        assert db.execute("SELECT count(*) FROM takes").fetchone()[0] == 1
    assert studio.close() == 0
