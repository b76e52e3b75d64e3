"""serve applies the data folder's pronunciations.json, as the studio and synth do: an
entry reaches the token ids of a served render, an edit applies to the next request
without a restart, and a broken file is the server's 500 sentence, not the client's."""

from __future__ import annotations

import json

import pytest

from studio.engine import engine as engine_module
from studio.engine.lexicon import GLOBAL_FILE


@pytest.fixture(scope="module")
def served(tiny_checkpoint, tmp_path_factory, one_torch_thread):
    """Our serve app in-process (starlette's TestClient) over a real Renderer whose data
    folder the test writes the dictionary into."""
    from starlette.testclient import TestClient

    from studio.serve.app import create_app
    from studio.serve.renderer import Renderer

    data = tmp_path_factory.mktemp("serve-lexicon")
    renderer = Renderer(str(tiny_checkpoint), device="cpu", precision="fp32", limit=4,
                        data_root=data)
    renderer.start()
    with TestClient(create_app(renderer, None, data), raise_server_exceptions=False) as client:
        yield client, data
    renderer.stop()


@pytest.fixture
def token_ids(monkeypatch):
    """The text token ids of every item the engine builds (on the renderer's thread)."""
    built = []
    original = engine_module.build_item

    def spy(tokenizer, text, *args, **kwargs):
        item = original(tokenizer, text, *args, **kwargs)
        built.append(item.cond_ids[0, : item.audio_start].tolist())
        return item

    monkeypatch.setattr(engine_module, "build_item", spy)
    return built


def _contains(haystack: list[int], needle: list[int]) -> bool:
    return any(haystack[i:i + len(needle)] == needle for i in range(len(haystack)))


def _speak(client):
    return client.post("/v1/audio/speech", json={"input": "Ask Kowalczyk now.", "steps": 2,
                                                 "seed": 1})


def test_an_entry_reaches_the_token_ids_and_an_edit_applies_next_request(served, token_ids,
                                                                         engine):
    client, data = served
    said = engine.tokenizer("Zorblax", add_special_tokens=False).input_ids
    kept = engine.tokenizer("Kowalczyk", add_special_tokens=False).input_ids
    dictionary = data / GLOBAL_FILE
    dictionary.write_text(json.dumps({"Kowalczyk": "Zorblax"}), encoding="utf-8")
    try:
        response = _speak(client)
        assert response.status_code == 200, response.text[:300]
        assert token_ids and all(_contains(ids, said) and not _contains(ids, kept)
                                 for ids in token_ids)
        token_ids.clear()
        dictionary.unlink()  # no restart: the next request reads the folder again
        assert _speak(client).status_code == 200
        assert token_ids and all(_contains(ids, kept) for ids in token_ids)
    finally:
        dictionary.unlink(missing_ok=True)


def test_a_broken_dictionary_is_the_servers_500_sentence(served):
    client, data = served
    dictionary = data / GLOBAL_FILE
    dictionary.write_text("{not json", encoding="utf-8")
    try:
        response = _speak(client)
    finally:
        dictionary.unlink()
    assert response.status_code == 500
    message = response.json()["error"]["message"]
    assert message == ("The server's pronunciation dictionary cannot be used; the details "
                       "are in its log file.")
    assert str(data) not in message  # the server's paths stay on the server
    assert _speak(client).status_code == 200
