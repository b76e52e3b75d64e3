"""The server's paths never reach a client (issue 26, group 14): hide_paths, the one
place every refusal passes through (app.error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.serve.redact import hide_paths


@pytest.fixture
def home(monkeypatch):
    """A home folder outside every other private folder (temp, working, Python's)."""
    folder = Path("/srv/people/ana")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: folder))
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", "/srv/data")
    return folder


def test_a_path_in_the_data_folder_is_named_as_such(home, monkeypatch):
    data = home / ".local" / "share" / "OmniVoice Desktop"  # a space inside, as platformdirs has
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(data))
    sentence = f"The voice prompt file {data}/voices/ab12/prompt.pt does not exist."
    assert hide_paths(sentence) == ("The voice prompt file a file in the server's data folder "
                                    "does not exist.")
    assert hide_paths(f"The data folder {data} is a file, not a folder.") == (
        "The data folder the server's data folder is a file, not a folder.")


def test_the_data_root_given_to_the_app_counts_too(tmp_path):
    root = tmp_path / "elsewhere"
    assert hide_paths(f"'{root}/library.sqlite' is damaged.", root) == (
        "'a file in the server's data folder' is damaged.")


def test_other_private_folders_become_a_file_on_the_server(home):
    assert hide_paths(f"Cannot read {home}/clips/x.wav; choose another.") == (
        "Cannot read a file on the server; choose another.")


def test_a_longer_name_that_only_starts_like_a_folder_is_not_cut(home):
    sibling = f"{home}bel/x.wav"  # /home/anabel is not inside /home/ana
    assert sibling in hide_paths(f"Cannot read {sibling}.")


def test_url_paths_and_plain_sentences_are_left_alone():
    sentence = "There is nothing at /v1/nothing; the speech endpoint is POST /v1/audio/speech."
    assert hide_paths(sentence) == sentence
