"""Settings → Backend: the remote fields are written through Settings and usable only
when a speech server is chosen; Test connection asks the server off the GUI thread
and lists its models and voices, or says in one sentence why it cannot; the window
hands the worker the backend and the status bar says where renders run."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakeProbe, make_settings

from studio.service.remote_renderer import BackendConfig
from studio.service.requests import ModelInfo
from studio.settings import Settings
from studio.views.main_window import MainWindow
from studio.views.settings_view import SettingsView

OUT = Path(__file__).resolve().parents[2] / "out" / "views"


@pytest.fixture
def settings(tmp_path) -> Settings:
    return make_settings(tmp_path / "settings.ini")


@pytest.fixture
def view(qtbot, settings) -> SettingsView:
    view = SettingsView(settings, probe=lambda: CPU_ONLY, audio_status=PLAYABLE)
    qtbot.addWidget(view)
    return view


class _Listing(BaseHTTPRequestHandler):
    """A server that lists models and voices the way ours does (the journey and
    tests/serve talk to real servers; this one only answers the probe)."""

    def do_GET(self):
        if self.headers.get("Authorization") != "Bearer sesame":
            return self._send(401, {"error": {"message": "Invalid API key."}})
        bodies = {"/v1/models": {"data": [{"id": "k2-fsa/OmniVoice",
                                           "owned_by": "omnivoice-desktop"}]},
                  "/health": {"status": "ok"},
                  "/v1/voices": {"voices": [{"name": "Narrator"}, {"name": "Ada"}]}}
        self._send(200, bodies.get(self.path, {}))

    def _send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def listing():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Listing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _type(edit, text):
    edit.setText(text)
    edit.editingFinished.emit()


def test_the_remote_fields_are_usable_only_for_a_server(view, settings):
    fields = (view.backendUrlEdit, view.backendKeyEdit, view.dialectCombo, view.testButton)
    assert view.backendCombo.currentData() == "local"
    assert not any(f.isEnabled() for f in fields)
    view.backendCombo.setCurrentIndex(view.backendCombo.findData("remote"))
    assert settings.value("backend/kind") == "remote"
    assert all(f.isEnabled() for f in fields)
    _type(view.backendUrlEdit, "  http://gpu-box:8000 ")
    _type(view.backendKeyEdit, "sesame")
    view.dialectCombo.setCurrentIndex(view.dialectCombo.findData("vllm-omni"))
    assert settings.value("backend/url") == "http://gpu-box:8000"
    assert settings.value("backend/api_key") == "sesame"
    assert settings.value("backend/dialect") == "vllm-omni"
    assert view.backendKeyEdit.echoMode() != view.backendKeyEdit.EchoMode.Normal


def test_test_connection_lists_the_servers_models_and_voices(qtbot, view, listing):
    view.backendCombo.setCurrentIndex(view.backendCombo.findData("remote"))
    _type(view.backendUrlEdit, listing)
    _type(view.backendKeyEdit, "sesame")
    view.testButton.click()
    assert not view.testButton.isEnabled()  # until the answer comes
    qtbot.waitUntil(lambda: view.testButton.isEnabled(), timeout=10_000)
    text = view.connectionMessage.text()
    assert not view.connectionMessage.is_error()
    assert "omnivoice-desktop" in text and "k2-fsa/OmniVoice" in text
    assert "Narrator" in text and "Ada" in text
    OUT.mkdir(parents=True, exist_ok=True)
    view.resize(900, 1000)
    view.grab().save(str(OUT / "settings-backend.png"))


def test_test_connection_says_why_it_cannot_in_one_sentence(qtbot, view, listing):
    view.backendCombo.setCurrentIndex(view.backendCombo.findData("remote"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    cases = [(closed, "", "cannot be reached"), (listing, "wrong", "refused the API key"),
             ("gpu-box:8000", "", "must start with http"), ("", "", "address first")]
    for url, key, said in cases:
        _type(view.backendUrlEdit, url)
        _type(view.backendKeyEdit, key)
        view.testButton.click()
        qtbot.waitUntil(lambda: view.testButton.isEnabled(), timeout=20_000)
        assert view.connectionMessage.is_error(), url
        assert said in view.connectionMessage.text() and "\n" not in view.connectionMessage.text()


def test_a_failed_test_is_cleared_on_switching_back_to_this_computer(qtbot, view):
    """Review 6: "Type the server's address first…" stayed under This computer."""
    view.backendCombo.setCurrentIndex(view.backendCombo.findData("remote"))
    _type(view.backendUrlEdit, "")
    view.testButton.click()
    qtbot.waitUntil(lambda: view.testButton.isEnabled(), timeout=10_000)
    assert "address first" in view.connectionMessage.text()
    view.backendCombo.setCurrentIndex(view.backendCombo.findData("local"))
    assert view.connectionMessage.text() == "" and view.connectionMessage.isHidden()
    assert not view.testButton.isEnabled()


def test_the_window_hands_the_worker_its_backend(qtbot, settings):
    controller, probe = FakeController(), FakeProbe()
    window = MainWindow(settings, controller, audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY,
                        server_probe=probe)
    qtbot.addWidget(window)
    model = window.statusBarWidget.modelLabel
    generate = window.designView.form.generateButton
    assert ("set_backend", None) in controller.calls
    controller.worker.model_loaded.emit(ModelInfo("/m/ck_tiny", "cpu", "fp32", 24000))
    assert model.text() == "Ready: ck_tiny" and generate.isEnabled()
    settings.set_value("backend/url", "http://gpu-box:8000")
    settings.set_value("backend/api_key", "sesame")
    settings.set_value("backend/kind", "remote")
    assert controller.calls[-1] == ("set_backend",
                                    BackendConfig("http://gpu-box:8000", "sesame", None))
    # Renders go to the server: never "Ready: ck_tiny", whatever is loaded here, and
    # Generate waits until the server answers.
    assert probe.started[-1] == ("http://gpu-box:8000", "sesame", None)
    assert model.text() == "Connecting: gpu-box:8000" and not generate.isEnabled()
    down = "The speech server at http://gpu-box:8000 cannot be reached; check that it runs."
    probe.failed.emit(down)
    assert model.text() == "Failed" and model.toolTip() == down
    assert not generate.isEnabled() and "asked again" in generate.toolTip()
    assert window.modelSetup.retry.isActive()  # asked again in a while
    probe.succeeded.emit("Connected to omnivoice-desktop at http://gpu-box:8000.")
    assert model.text() == "Server: gpu-box:8000" and generate.isEnabled()
    window.cloneView.form.show_message(down)
    window.scriptView.on_failed(down)
    window.statusBarWidget.show_error(down)
    settings.set_value("backend/kind", "local")
    assert controller.calls[-1] == ("set_backend", None)
    assert model.text() == "Ready: ck_tiny"  # the local model, as it was
    # The server's error stays nowhere once renders run on this computer.
    assert not window.cloneView.form.message_text()
    assert not window.scriptView.notice.text()
    assert not window.statusBarWidget.is_error()
    probe.failed.emit(down)  # a late answer about the server no longer used
    assert model.text() == "Ready: ck_tiny"
