"""The Compare window gets the keyboard (s4 new-user review): on a bare X server (no
window manager, so no one else hands out focus) the keys of its hint -- B, Tab, Space --
went to the main window, where Tab walked to Delete and Space deleted two takes. Real
X key presses (xdotool), with the pointer over the main window as the user's was."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from studio_process import Studio, design_generate, take_count, wait_takes


@pytest.fixture
def display(small_laptop_display):
    if shutil.which("xdotool") is None:
        pytest.fail("xdotool is needed to press real keys (apt-get install xdotool)")
    return small_laptop_display


def keys(display: str, *names: str) -> None:
    for name in names:
        subprocess.run(["xdotool", "key", "--delay", "80", name], check=True,
                       env={**os.environ, "DISPLAY": display})


def test_compare_takes_the_keys_its_hint_names(tmp_path, tiny_checkpoint, display):
    studio = Studio(tmp_path, tiny_checkpoint, display=display)
    try:
        studio.connect()
        studio.wait_model_loaded()
        design_generate(studio, "Two takes to tell apart.", takes=2)
        wait_takes(studio, 2)
        studio.click_row("takesList", 0)
        studio.click_row("takesList", 1, modifiers=["ctrl"])
        studio.click("takeDetail/compareButton")
        studio.wait_until(lambda: studio.request("exists", target="abDialog")["visible"], 10,
                          "the Compare window")
        studio.wait_until(lambda: "abDialog" in studio.request("focus")["ancestors"], 10,
                          "the keyboard focus in the Compare window")
        tiles = [studio.text(f"abDialog/side{s}Label") for s in "AB"]
        assert [t.split(" at ")[0] for t in tiles] == ["Take 1/2", "Take 2/2"] or \
            [t.split(" at ")[0] for t in tiles] == ["Take 2/2", "Take 1/2"], tiles
        subprocess.run(["xdotool", "mousemove", "20", "300"], check=True,
                       env={**os.environ, "DISPLAY": display})  # over the main window
        keys(display, "b")
        studio.wait_until(lambda: studio.get("abDialog/sideBButton")["checked"], 5, "B chosen")
        keys(display, "Tab")
        studio.wait_until(lambda: studio.get("abDialog/sideAButton")["checked"], 5, "back to A")
        keys(display, "Tab", "space", "Tab", "space", "Delete")
        focus = studio.request("focus")
        assert "abDialog" in focus["ancestors"], focus
        assert take_count(studio) == 2, "the main window deleted takes"
        studio.screenshot("compare-keys")
        keys(display, "Escape")
        studio.wait_until(lambda: not studio.request("exists", target="abDialog")["visible"],
                          10, "the Compare window to close")
        assert studio.close() == 0
    finally:
        studio.stop()
