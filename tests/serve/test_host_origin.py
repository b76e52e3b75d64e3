"""Only this machine's names reach the server, and no other web page does: a foreign
``Host`` (DNS rebinding) gets 421 and a cross-origin request (a page's ``text/plain``
POST needs no preflight) gets 403, each one JSON sentence, on every route, /health
included; ``--allow-host`` and ``--allow-origin`` widen the lists."""

from __future__ import annotations

import socket
import subprocess

import httpx
import pytest

from studio.errors import UserError
from studio.serve.network import NetPolicy
from tests.serve.servers import (
    API_KEY,
    COMMAND,
    DESIGN,
    STEPS,
    TEXT,
    assert_one_sentence,
    env_for,
    free_port,
    serve_process,
)

BODY = f'{{"input": "{TEXT}", "steps": {STEPS}, "voice": "{DESIGN}"}}'
PAGE = "https://app.example.com"


@pytest.fixture(scope="module")
def open_server(tiny_checkpoint, tmp_path_factory):
    """No key (the case a page's request hurts most), one extra name and one page."""
    with serve_process(tiny_checkpoint, tmp_path_factory.mktemp("open-serve"),
                       "--allow-host", "tts.example.com", "--allow-origin", PAGE) as server:
        yield server


def _port(server) -> str:
    return server.url.rsplit(":", 1)[1]


@pytest.mark.parametrize("route", ["/health", "/v1/models", "/v1/voices"])
@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:{port}",
                                  "localhost.attacker.example", "127.0.0.1.nip.io:{port}"])
def test_a_foreign_host_is_421_on_every_route(our_server, route, host):
    host = host.format(port=_port(our_server))
    response = httpx.get(our_server.url + route, headers={
        "Host": host, "Authorization": f"Bearer {API_KEY}"})
    assert "--allow-host" in assert_one_sentence(response, 421)


def test_a_rebound_name_cannot_render(open_server):
    """The rebinding attack: the attacker's name now resolves to 127.0.0.1, and its
    page posts to itself (same origin, so the browser sends it)."""
    host = f"attacker.example:{_port(open_server)}"
    response = httpx.post(open_server.url + "/v1/audio/speech", content=BODY, headers={
        "Host": host, "Origin": f"http://{host}", "Content-Type": "text/plain"}, timeout=60)
    assert_one_sentence(response, 421)
    assert "x-seed" not in response.headers


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1",
                                    "https://app.example.com.evil.example"])
def test_a_cross_origin_text_plain_post_is_403_and_renders_nothing(open_server, origin):
    response = httpx.post(open_server.url + "/v1/audio/speech", content=BODY, headers={
        "Origin": origin, "Content-Type": "text/plain"}, timeout=60)
    assert "--allow-origin" in assert_one_sentence(response, 403)
    assert "x-seed" not in response.headers
    assert "access-control-allow-origin" not in response.headers


def test_a_cross_origin_preflight_is_refused(open_server):
    response = httpx.options(open_server.url + "/v1/audio/speech", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert_one_sentence(response, 403)


@pytest.mark.parametrize("host", ["localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}",
                                  "LOCALHOST", "tts.example.com", "TTS.Example.com.:443",
                                  "10.1.2.3"])
def test_this_machines_names_and_the_allowed_ones_are_served(open_server, host):
    response = httpx.get(open_server.url + "/health",
                         headers={"Host": host.format(port=_port(open_server))})
    assert response.status_code == 200, response.text


def test_an_allowed_page_renders_and_can_read_the_answer(open_server):
    preflight = httpx.options(open_server.url + "/v1/audio/speech", headers={
        "Origin": PAGE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os",
        "Access-Control-Request-Private-Network": "true"})
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == PAGE
    assert preflight.headers["access-control-allow-private-network"] == "true"
    response = httpx.post(open_server.url + "/v1/audio/speech", content=BODY, headers={
        "Origin": PAGE, "Content-Type": "text/plain"}, timeout=60)
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == PAGE
    exposed = response.headers["access-control-expose-headers"].lower()
    assert {"x-seed", "x-omnivoice-cleanup", "x-omnivoice-score", "x-omnivoice-judgement"} <= {
        name.strip() for name in exposed.split(",")}


def test_no_origin_and_the_same_origin_are_served(open_server):
    assert httpx.get(open_server.url + "/health").status_code == 200
    same = httpx.get(open_server.url + "/health", headers={"Origin": open_server.url})
    assert same.status_code == 200


def test_a_request_without_host_is_served():
    """HTTP/1.0 health probes (HAProxy's default) send no Host; no browser does that."""
    assert NetPolicy.for_bind("127.0.0.1").host_allowed(None)


def test_listening_beyond_loopback_serves_the_machines_name_too():
    name = socket.gethostname().lower()
    assert NetPolicy.for_bind("0.0.0.0").host_allowed(name)
    assert NetPolicy.for_bind("0.0.0.0").host_allowed(f"{name.split('.')[0]}.local:8000")
    assert not NetPolicy.for_bind("127.0.0.1").host_allowed(f"{name}-not.example")
    assert NetPolicy.for_bind("tts.lan").host_allowed("tts.lan:8000")
    assert NetPolicy.for_bind("127.0.0.1", ["*"]).host_allowed("anything.example")
    assert NetPolicy.for_bind("127.0.0.1", (), ["*"]).origin_allowed("http://x.example", None)


@pytest.mark.parametrize("option, value", [
    ("--allow-origin", "https://app.example.com/path"), ("--allow-origin", "app.example.com"),
    ("--allow-origin", "ftp://app.example.com"), ("--allow-host", "http://tts.example.com"),
    ("--allow-host", "tts.example.com/x"), ("--allow-host", ""), ("--allow-host", "*.example")])
def test_a_malformed_allow_value_is_one_sentence(option, value):
    with pytest.raises(UserError, match=option):
        if option == "--allow-host":
            NetPolicy.for_bind("127.0.0.1", [value])
        else:
            NetPolicy.for_bind("127.0.0.1", (), [value])


def test_a_malformed_allow_value_stops_serve_before_it_listens(tmp_path):
    done = subprocess.run([COMMAND, "serve", "--port", str(free_port()), "--allow-origin",
                           "https://app.example.com/path"],
                          env=env_for(tmp_path / "data"), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --allow-origin takes a web origin"), done.stderr
