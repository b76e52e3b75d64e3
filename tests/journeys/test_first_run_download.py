"""Journey: the first run downloads the model from the setup card (issue 25, finding 1),
against a local server that speaks the Hugging Face hub's routes (HF_ENDPOINT), with the
real huggingface_hub client inside the launched studio: bytes and percent while it runs,
Cancel keeps what arrived, Download again resumes it (a Range request), the model loads
and the first take renders. Loopback only."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from studio_process import SCREENS, Studio, design_generate, wait_takes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from hub_server import HubServer

REPO = "k2-fsa/OmniVoice"
WEIGHTS = "model.safetensors"


def test_download_from_the_card_cancel_resume_and_render(tmp_path, tiny_checkpoint):
    with HubServer(REPO, tiny_checkpoint) as hub:
        hub.hold[WEIGHTS] = 300_000  # the body pauses here until the test releases it
        studio = Studio(tmp_path, None, env={"HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0",
                                             "HF_HUB_DISABLE_TELEMETRY": "1"})
        try:
            studio.connect()
            studio.wait_until(lambda: studio.text("modelState") == "Not downloaded", 60,
                              "the status bar to say the model is not downloaded")
            studio.click("modelSetupCard/setupDownloadButton")
            assert hub.held.wait(60), "the download never reached the weights"
            studio.wait_until(lambda: studio.text("modelState").startswith("Downloading ")
                              and "%" in studio.text("modelState"), 30, "the percent")
            bar = studio.get("modelSetupCard/setupProgress")
            assert bar["visible"] and " of " in bar["text"], bar
            assert not studio.get("cloneForm/generateButton")["enabled"]
            assert studio.get("modelSetupCard/setupCancelButton")["visible"]
            SCREENS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(studio.screenshot("downloading"),
                            SCREENS / "test_first_run_download-downloading-offscreen.png")

            studio.click("modelSetupCard/setupCancelButton")
            hub.release.set()  # the next chunk arrives, and the cancel stops before writing it
            studio.wait_until(lambda: "cancelled" in studio.text("modelSetupCard/setupMessage"),
                              30, "the cancel")
            assert studio.text("modelState") == "Not downloaded"
            partial = studio.data / "models" / "k2-fsa--OmniVoice" / (WEIGHTS + ".part")
            kept = partial.stat().st_size
            assert kept >= 300_000
            assert studio.text("modelSetupCard/setupDownloadButton").startswith("Resume download (")

            studio.click("modelSetupCard/setupDownloadButton")
            studio.wait_model_loaded(180)
            assert hub.ranges(WEIGHTS)[-1] == f"bytes={kept}-", "resumed, not started over"
            assert not studio.get("modelSetupCard")["visible"]
            design_generate(studio, "Downloaded and rendering.")
            assert wait_takes(studio, 1)["count"] == 1
            assert studio.close() == 0
        finally:
            studio.stop()
