"""Journey 9: Generate a four-sentence paragraph and hear it before it is done: playback
starts on the first chunk, while the progress is still short of the last one."""

from __future__ import annotations

import re
import shutil

import pytest
from studio_process import SCREENS, design_generate, wait_takes

from tests.audio_output import need_output

PARAGRAPH = ("The storm rolled in over the hills just after noon. Farmers hurried to bring "
             "their animals inside before the rain. By evening the river had risen past the "
             "old stone bridge. Nobody in the village could remember a flood like it.")


@pytest.mark.parametrize("platform", ["offscreen", "xcb"], indirect=True)
def test_a_paragraph_plays_while_it_renders(launch, screenshot, platform, request):
    need_output()  # all of it is about hearing the paragraph
    studio = launch()
    studio.wait_model_loaded()
    assert studio.get("playWhileRenderingCheck")["enabled"]  # the setting, on by default
    mid = studio.screens / "mid-render.png"
    studio.request("shoot_at_first_sound", path=str(mid))
    design_generate(studio, PARAGRAPH, preset="Final")
    wait_takes(studio, 1)

    said = studio.request("first_sound")["first_sound"]["designForm"]
    match = re.search(r"chunk (\d+)/(\d+)", said)
    assert match, f"the progress had no chunk count when sound started: {said!r}"
    chunk, chunks = map(int, match.groups())
    assert chunks >= 3 and chunk < chunks, f"sound started at {said!r}"
    player = studio.request("player")
    assert player["states"][0] == "playing" and player["underflows"] == 0
    status = studio.status()
    assert "First audio after" in status, status
    assert studio.text("firstAudioLabel").startswith("First audio ")
    assert not studio.get("designForm/livePreview")["visible"], "the preview goes with the render"

    studio.wait_until(mid.exists, 10, "the mid-render screenshot")
    SCREENS.mkdir(parents=True, exist_ok=True)
    kept = SCREENS / f"{request.node.originalname}-mid-render-{platform}.png"
    shutil.copyfile(mid, kept)
    assert kept.stat().st_size > 10_000
    screenshot(studio, "done")
    assert studio.close() == 0
