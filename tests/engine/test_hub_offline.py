"""Issue 25: with HF_HUB_OFFLINE set, a download said "check your connection"; it names
offline mode and how to turn it off."""

from __future__ import annotations

import pytest

from studio.engine.hub_download import download_repo
from studio.errors import UserError


def test_offline_mode_is_named_with_how_to_turn_it_off(monkeypatch, tmp_path):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(UserError) as raised:
        download_repo("k2-fsa/OmniVoice", tmp_path / "model")
    sentence = str(raised.value)
    assert "offline mode" in sentence and "HF_HUB_OFFLINE" in sentence
    assert "check your connection" not in sentence
