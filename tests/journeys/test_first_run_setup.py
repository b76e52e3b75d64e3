"""Journey: the first run with no model, in a real window on a 1366×768 laptop screen
(issue 25, findings 1 and 8). From an empty data folder, offline, with the default model
not downloaded: the setup card shows, the status says Not downloaded (never Ready), and
Generate is disabled with the reason. Choose a folder… is driven through Qt's own folder
dialog: a wrong folder gets one sentence, the tiny checkpoint loads, and the first take
renders."""

from __future__ import annotations

import shutil

from studio_process import SCREENS, Studio, pick_reference, wait_takes


def shoot(studio: Studio, name: str):
    SCREENS.mkdir(parents=True, exist_ok=True)
    final = SCREENS / f"test_first_run_setup-{name}-xcb.png"
    shutil.copyfile(studio.screenshot(name), final)
    return final


def choose_folder(studio: Studio, folder) -> None:
    """Choose a folder… and type the folder into Qt's folder dialog, then Enter."""
    studio.click("modelSetupCard/setupChooseFolderButton")
    studio.wait_until(lambda: studio.request("exists", target="chooseModelFolderDialog")
                      ["visible"], 20, "the folder dialog")
    studio.type("chooseModelFolderDialog/fileNameEdit", str(folder))
    studio.key("chooseModelFolderDialog/fileNameEdit", "Return")
    studio.wait_until(lambda: not studio.request("exists", target="chooseModelFolderDialog")
                      ["visible"], 20, "the folder dialog to close")


def test_first_run_without_a_model_choose_a_folder_and_render(tmp_path, tiny_checkpoint,
                                                              reference_clip, laptop_display):
    studio = Studio(tmp_path, None, display=laptop_display)
    try:
        studio.connect()
        studio.wait_until(lambda: studio.text("modelState") == "Not downloaded", 60,
                          "the status bar to say the model is not downloaded")
        card = studio.get("modelSetupCard")
        assert card["visible"], "the setup card shows in place of the Clone page"
        assert studio.text("modelSetupCard/setupState") == "Not downloaded"
        texts = " ".join(studio.request("windows")["windows"][0]["texts"])
        assert "about 3 GB" in texts and "CC BY-NC 4.0" in texts and "Higgs Audio" in texts
        for name in ("setupDownloadButton", "setupChooseFolderButton", "setupServerButton"):
            assert studio.get(f"modelSetupCard/{name}")["enabled"], name
        generate = studio.get("cloneForm/generateButton")
        assert not generate["enabled"]
        assert generate["tooltip"] == "Generate needs the model: download it or choose its folder."
        assert "Ready" not in studio.get("cloneForm/progressBar")["text"]
        shoot(studio, "card")

        empty = tmp_path / "not a model"
        empty.mkdir()
        choose_folder(studio, empty)
        studio.wait_until(lambda: studio.get("modelSetupCard/setupMessage")["visible"]
                          and "Checking" not in studio.text("modelSetupCard/setupMessage"),
                          60, "the folder's check")
        said = studio.text("modelSetupCard/setupMessage")
        assert said == (f"{empty} does not hold an OmniVoice model; choose the folder with "
                        "config.json, model.safetensors and audio_tokenizer/ in it."), said
        assert studio.text("modelState") == "Not downloaded"
        shoot(studio, "wrong-folder")

        choose_folder(studio, tiny_checkpoint)
        studio.wait_model_loaded()
        assert not studio.get("modelSetupCard")["visible"]
        assert studio.get("cloneView")["visible"] and studio.get("cloneForm/generateButton")[
            "enabled"]
        pick_reference(studio, reference_clip, "A short sentence in my own voice.")
        studio.type("cloneForm/textEdit", "My first take.")
        studio.click("cloneForm/generateButton")
        assert wait_takes(studio, 1)["count"] == 1
        # The take is listed once judged, just before the job's end sets the status line.
        studio.wait_until(lambda: studio.status().startswith("Rendered 1 take"), 30,
                          "the status to say the take was rendered")
        shoot(studio, "first-take")
        assert studio.close() == 0
    finally:
        studio.stop()
    # The folder chosen is the model now: the next start loads it without asking.
    again = Studio(tmp_path, None, display=laptop_display)
    try:
        again.connect()
        again.wait_model_loaded()
        assert not again.get("modelSetupCard")["visible"]
        assert again.close() == 0
    finally:
        again.stop()
