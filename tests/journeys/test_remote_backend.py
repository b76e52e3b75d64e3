"""Journey 11: a speech server renders for the studio. With ``omnivoice-desktop serve``
running as its own process, the user sets Settings → Backend to the server, tests
the connection (it lists the server's model and voices), and Generates in the
Design view: the take arrives from the server, lands in the take library with the
server's address, and says where it was rendered. After a restart the studio still
renders there; back on This computer, it renders locally again."""

from __future__ import annotations

import subprocess

import pytest
from studio_process import design_generate, wait_takes

from studio.library.takes import TakeLibrary
from tests.serve.servers import COMMAND, _stop, _wait_ready, env_for, free_port

KEY = "journey-key-42"


@pytest.fixture
def server(tiny_checkpoint, tmp_path):
    port = free_port()
    stderr = tmp_path / "serve-stderr.txt"
    with open(stderr, "wb") as err:
        process = subprocess.Popen(
            [COMMAND, "serve", "--model", str(tiny_checkpoint), "--port", str(port),
             "--api-key", KEY, "--device", "cpu", "--precision", "fp32"],
            env=env_for(tmp_path / "server-data"), stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, stderr)
        yield url
    finally:
        _stop(process)


def _settings(studio):
    studio.click_row("sidebar", 4)
    studio.wait_until(lambda: studio.get("settingsView")["visible"], 10, "the Settings view")


def test_the_studio_renders_on_a_speech_server(launch, screenshot, server):
    host = server.split("://", 1)[1]
    studio = launch()
    studio.wait_model_loaded()
    _settings(studio)
    assert not studio.get("settingsView/backendUrlEdit")["enabled"]
    studio.choose("settingsView/backendCombo", "A speech server (remote)")
    studio.type("settingsView/backendUrlEdit", server)
    studio.key("settingsView/backendUrlEdit", "Return")
    studio.type("settingsView/backendKeyEdit", KEY)
    studio.key("settingsView/backendKeyEdit", "Return")
    studio.click("settingsView/testConnectionButton")
    studio.wait_until(lambda: "Connected" in studio.text("settingsView/connectionMessage"), 30,
                      "the connection test's answer")
    answer = studio.text("settingsView/connectionMessage")
    assert "omnivoice-desktop" in answer and "Models:" in answer and "Voices:" in answer, answer
    # The server answered the studio's own probe too: never "Ready: ck_tiny" now.
    studio.wait_until(lambda: studio.text("modelState") == f"Server: {host}", 30,
                      "the status bar to name the server")
    screenshot(studio, "backend")

    design_generate(studio, "Rendered on the server down the hall.")
    wait_takes(studio, 1)
    info = studio.text("takeDetail/takeInfo")
    assert f"remote {host}" in info, info
    with TakeLibrary(studio.data, read_only=True) as library:
        [take] = library.list()
    assert take.run.backend == server and take.run.device == "remote"
    assert take.settings.text == "Rendered on the server down the hall."
    screenshot(studio, "remote-take")
    assert studio.close() == 0

    studio = launch()  # the backend is a setting: it stays, and no local model loads
    studio.wait_until(lambda: studio.text("modelState") == f"Server: {host}", 30,
                      "the status bar saying renders go to the server")
    assert not studio.get("deviceLabel")["visible"]
    design_generate(studio, "Still on the server.", takes=3)  # sent at once, one render
    wait_takes(studio, 4)
    assert f"remote {host}" in studio.text("takeDetail/takeInfo")
    assert studio.text("modelState") == f"Server: {host}"  # the server rendered it
    with TakeLibrary(studio.data, read_only=True) as library:
        three = [t for t in library.list() if t.settings.text == "Still on the server."]
    assert len(three) == 3 and len({t.settings.seed for t in three}) == 3
    assert all(t.run.backend == server for t in three) and len({t.batch for t in three}) == 1
    _settings(studio)
    studio.choose("settingsView/backendCombo", "This computer")
    studio.wait_model_loaded()  # rendering here again: the model loads now
    design_generate(studio, "Back on this computer.")
    wait_takes(studio, 5)
    info = studio.text("takeDetail/takeInfo")
    assert "remote" not in info and "cpu" in info, info
    assert studio.text("modelState").startswith("Ready")
    assert studio.close() == 0
