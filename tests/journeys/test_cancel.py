"""Journey 3: cancel in the middle of a render, Generate again, and a take appears."""

from __future__ import annotations

import pytest
from studio_process import LONG_TEXT, design_generate, take_count, wait_rendering, wait_takes


@pytest.mark.parametrize("platform", ["offscreen", "xcb"], indirect=True)
def test_cancel_mid_render_then_generate_again(launch, screenshot, platform):
    studio = launch()
    studio.wait_model_loaded()
    design_generate(studio, LONG_TEXT, preset="Final")
    wait_rendering(studio)
    assert studio.get("designForm/cancelButton")["enabled"]
    studio.click("designForm/cancelButton")
    studio.wait_until(lambda: studio.get("designForm/generateButton")["enabled"], 30,
                      "Generate to come back after Cancel")
    assert studio.text("designForm/formMessage") == "Cancelled."
    assert take_count(studio) == 0, "a cancelled render leaves no take"
    screenshot(studio, "cancelled")

    studio.type("designForm/textEdit", "And this one finishes.")
    studio.click("designForm/presetDraft")
    studio.click("designForm/generateButton")
    assert wait_takes(studio, 1)["count"] == 1
    assert studio.close() == 0
