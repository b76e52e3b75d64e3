"""Journey 12: the studio on a laptop screen (issue 25, findings 2, 3 and 11), in real windows
on Xvfb at 1366x768 and 1024x640.

The window fits the screen; with Advanced open and three takes streaming, Generate,
the progress bar and Cancel stay inside the screen in Clone, Design and Script; the focus
stays in the text after Generate and no path field is selected after Render all; and
real wheel turns (xdotool) over every form and Settings change no setting.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest
from studio_process import SCREENS, Studio, pick_reference, wait_takes

DIALOGUE = """Alice: Good morning, Bob. The storm kept me up all night long.
Bob: Morning. Then coffee first, and the plan after that, if you can stand it.
Alice: Coffee it is, and then the long walk down to the river to see the bridge.
"""
PARAGRAPH = ("The storm rolled in over the hills just after noon. Farmers hurried to bring "
             "their animals inside before the rain. By evening the river had risen past the "
             "old stone bridge.")
VIEWS = {"clone": 0, "design": 1, "voices": 2, "script": 3, "settings": 4}


@pytest.fixture(params=["1366x768", "1024x640"])
def screen(request):
    """An X server of a laptop's size, with no window manager: the window is what the
    studio asks for."""
    binary = shutil.which("Xvfb")
    if binary is None or shutil.which("xdotool") is None:
        pytest.fail("Xvfb and xdotool are needed (apt-get install xvfb xdotool)")
    read, write = os.pipe()
    server = subprocess.Popen([binary, "-displayfd", str(write), "-screen", "0",
                               f"{request.param}x24", "-nolisten", "tcp"], pass_fds=(write,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        pytest.fail("Xvfb did not start")
    width, height = map(int, request.param.split("x"))
    yield {"display": f":{number}", "size": (width, height), "name": request.param}
    server.terminate()
    server.wait(10)


@pytest.fixture
def studio(tmp_path, tiny_checkpoint, screen):
    launched = Studio(tmp_path, tiny_checkpoint, display=screen["display"])
    launched.connect()
    launched.wait_until(lambda: launched.request("activate")["active"], 10,
                        "the window to become active")
    yield launched
    launched.stop()


def inside(studio: Studio, target: str) -> list[str]:
    """Why ``target`` is not wholly on the screen's available area (empty when it is)."""
    seen = studio.request("rect", target=target)
    x, y, w, h = seen["rect"]
    sx, sy, sw, sh = seen["screen"]
    problems = [] if seen["visible"] else [f"{target} is hidden"]
    if x < sx or y < sy or x + w > sx + sw or y + h > sy + sh:
        problems.append(f"{target} at {seen['rect']} is outside the screen {seen['screen']}")
    return problems


def assert_actions_on_screen(studio: Studio, form: str, *extra: str) -> None:
    problems = []
    for name in ("generateButton", "progressBar", "cancelButton", *extra):
        problems += inside(studio, f"{form}/{name}")
    assert not problems, problems


def show(studio: Studio, view: str) -> None:
    studio.click_row("sidebar", VIEWS[view])
    studio.wait_until(lambda: studio.get(f"{view}View")["visible"], 10, f"the {view} view")


def three_takes_streaming(studio: Studio, form: str) -> None:
    """Advanced open, 3 takes of a paragraph; Generate; wait until it decodes."""
    if not studio.get(f"{form}/takesSpin")["visible"]:
        studio.click(f"{form}/advancedSection/sectionToggle")
    studio.type(f"{form}/takesSpin", "3")
    studio.key(f"{form}/takesSpin", "Tab")
    studio.type(f"{form}/textEdit", PARAGRAPH)
    studio.click(f"{form}/presetDraft")
    studio.click(f"{form}/generateButton")  # by mouse: the button takes the focus
    studio.wait_until(lambda: studio.get(f"{form}/progressBar")["value"] > 0, 120,
                      "the render to start")


def keep(studio: Studio, name: str, screen: dict) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(studio.screenshot(name), SCREENS / f"laptop-{screen['name']}-{name}.png")


def test_a_laptop_screen_shows_generate_progress_and_cancel_in_every_state(
        studio, screen, reference_clip):
    studio.wait_model_loaded()
    problems = inside(studio, "mainWindow") + inside(studio, "statusMessage")
    assert not problems, f"the first window does not fit {screen['name']}: {problems}"

    # Clone: a clip, Advanced open, three takes streaming.
    show(studio, "clone")
    pick_reference(studio, reference_clip, "This is my voice.")
    three_takes_streaming(studio, "cloneForm")
    assert_actions_on_screen(studio, "cloneForm")
    focus = studio.request("focus")
    assert focus["name"] == "textEdit" and "cloneForm" in focus["ancestors"], \
        f"after Generate the focus went to {focus}"
    if studio.get("cloneForm/livePreview")["visible"]:
        assert_actions_on_screen(studio, "cloneForm", "livePreview")
    keep(studio, "clone-streaming", screen)
    wait_takes(studio, 3, timeout=400)
    assert_actions_on_screen(studio, "cloneForm")

    # Design: the same, plus an inline message above the row.
    show(studio, "design")
    studio.choose("designAttributes/genderCombo", "Female")
    three_takes_streaming(studio, "designForm")
    assert_actions_on_screen(studio, "designForm")
    keep(studio, "design-streaming", screen)
    wait_takes(studio, 6, timeout=400)
    studio.type("designForm/textEdit", "")
    studio.click("designForm/generateButton")  # no text: a sentence above the row
    assert studio.get("designForm/formMessage")["visible"]
    assert_actions_on_screen(studio, "designForm", "formMessage")

    # Script: a dialogue with voices, Render all, progress and Cancel on screen.
    script = studio.home / "breakfast.txt"
    script.write_text(DIALOGUE, encoding="utf-8")
    show(studio, "script")
    studio.type("scriptPathEdit", str(script))
    studio.key("scriptPathEdit", "Return")
    studio.wait_until(lambda: studio.get("scriptLines")["count"] == 3, 10, "the lines")
    for speaker, instruct in (("Alice", "female, low pitch"), ("Bob", "male")):
        studio.choose("speakerCombo", speaker)
        studio.type("speakerInstructEdit", instruct)
        studio.key("speakerInstructEdit", "Return")
        studio.wait_until(lambda: studio.text("speakerSeedLabel") == "Same variation each render", 10,
                          f"{speaker}'s voice")
    studio.type("exportPathEdit", str(studio.home / "breakfast.wav"))
    studio.choose("scriptPresetCombo", "Draft")
    studio.click("dictionarySection/sectionToggle")  # open: the most the view can show
    studio.click("renderAllButton")
    studio.wait_until(lambda: studio.get("scriptProgress")["visible"], 60, "the script render")
    problems = []
    for name in ("renderAllButton", "scriptProgress", "cancelScriptButton", "exportPathEdit"):
        problems += inside(studio, name)
    assert not problems, problems
    focus = studio.request("focus")
    assert focus["name"] != "exportPathEdit" and not focus["selected"], \
        f"after Render all the focus went to {focus}"
    keep(studio, "script-rendering", screen)
    studio.wait_until(lambda: studio.status().startswith("Rendered 3 lines"), 300,
                      "the script render to end")
    assert studio.request("focus")["name"] != "exportPathEdit"
    assert studio.close() == 0


# ---------------------------------------------------------------- the wheel
def xdotool(display: str, *args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, env={**os.environ, "DISPLAY": display})


def settings_file(studio: Studio) -> bytes:
    files = sorted(studio.config.rglob("*.conf")) + sorted(studio.config.rglob("*.ini"))
    return b"".join(path.read_bytes() for path in files)


@pytest.mark.parametrize("screen", ["1024x640"], indirect=True)
def test_wheel_turns_over_every_form_and_settings_change_no_setting(studio, screen):
    """Finding 2: a wheel over Design changed Language; over Settings, Device (MPS on
    Linux), which unloaded the model."""
    studio.wait_model_loaded()
    display = screen["display"]
    for view in ("clone", "design", "script", "voices", "settings"):
        show(studio, view)
        for form in ("cloneForm", "designForm"):
            if view in form and not studio.get(f"{form}/takesSpin")["visible"]:
                studio.click(f"{form}/advancedSection/sectionToggle")
        studio.click_row("sidebar", VIEWS[view])  # the focus is on the sidebar, not a field
        before = studio.request("values")["values"]
        stored = settings_file(studio)
        turned = 0
        for key in before:
            now = studio.request("values")["values"].get(key)  # where it is after scrolling
            if now is None or not (now["shown"] and now["enabled"]) \
                    or isinstance(now["value"], bool):
                continue
            x, y = now["centre"]
            xdotool(display, "mousemove", str(x), str(y))
            xdotool(display, "click", "--repeat", "2", "--delay", "40", "5")
            xdotool(display, "click", "--repeat", "1", "--delay", "40", "4")
            turned += 1
            # A wheel over the voice picker once chose "Browse…" and opened a file dialog.
            opened = [w["title"] or w["class"] for w in studio.request("windows")["windows"]
                      if w["name"] != "mainWindow"]
            assert not opened, f"a wheel over {key} in {view} opened {opened}"
        time.sleep(0.5)
        after = studio.request("values")["values"]
        changed = {key: (before[key]["value"], after.get(key, {}).get("value", "(gone)"))
                   for key in before
                   if key not in after or before[key]["value"] != after[key]["value"]}
        assert turned, f"no combo or spin box was on screen in {view}"
        assert not changed, f"wheel turns over {view} changed {changed}"
        assert settings_file(studio) == stored, f"wheel turns over {view} changed a setting"
    assert studio.get("modelState")["text"].startswith("Ready")
    assert studio.close() == 0



def test_the_reload_prompt_makes_settings_longer_not_its_rows_thinner(studio, screen):
    """Review 8, item 9: with "Changing Precision unloads the model…" shown at 1366x768,
    the Model row's buttons were squashed to a few pixels and the Acceleration hint was
    drawn over itself; the page grows (it scrolls) instead."""
    studio.wait_model_loaded()
    studio.click_row("sidebar", VIEWS["settings"])
    studio.wait_until(lambda: studio.get("settingsView")["visible"], 10, "the Settings view")
    studio.choose("settingsView/precisionCombo", "fp32 (full)")
    assert studio.get("settingsView/reloadConfirm")["visible"]
    time.sleep(0.5)  # the relayouts the prompt sets off
    assert studio.request("crowded", target="settingsView") == {"squashed": [], "overlaps": []}
    studio.click("settingsView/keepModelButton")
