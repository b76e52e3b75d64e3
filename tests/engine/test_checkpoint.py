"""Checkpoint validation: every broken or missing piece is one sentence naming it."""

from __future__ import annotations

import json
import logging
import shutil

import pytest
import torch

from studio.engine.checkpoint import inspect_checkpoint, load_text_tokenizer, resolve_checkpoint
from studio.engine.engine import Engine
from studio.errors import UserError


@pytest.fixture
def copy(tiny_checkpoint, tmp_path):
    """A private copy of the tiny checkpoint that a test may break."""
    return shutil.copytree(tiny_checkpoint, tmp_path / "OmniVoice")


def edit_json(path, **changes):
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_a_good_checkpoint_reports_its_layout(tiny_checkpoint):
    info = inspect_checkpoint(tiny_checkpoint)
    assert (info.audio.codebooks, info.audio.vocab_size, info.audio.mask_id) == (8, 1025, 1024)
    assert (info.sample_rate, info.hop_length, info.frame_rate) == (24000, 960, 25)



def test_loading_the_tokenizer_prints_no_transformers_warning(tiny_checkpoint):
    # transformers' own handler holds the stderr of its first import, so listen on its logger.
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append
    logging.getLogger("transformers").addHandler(handler)
    try:
        tokenizer = load_text_tokenizer(inspect_checkpoint(tiny_checkpoint))
    finally:
        logging.getLogger("transformers").removeHandler(handler)
    assert tokenizer.convert_tokens_to_ids("<|denoise|>") != tokenizer.unk_token_id
    assert [r.getMessage() for r in records] == []  # e.g. "a model of type `omnivoice` ..."

BREAKAGES = {
    "no folder": (lambda root: shutil.rmtree(root), "does not exist"),
    "no config": (lambda root: (root / "config.json").unlink(), "config.json"),
    "config not json": (lambda root: (root / "config.json").write_text("{oops"), "not valid JSON"),
    "another model": (lambda root: edit_json(root / "config.json", model_type="llama"), "llama"),
    "codebooks": (lambda root: edit_json(root / "config.json", num_audio_codebook=4), "codebooks"),
    "no weights": (lambda root: (root / "model.safetensors").unlink(), "model.safetensors"),
    "no tokenizer": (lambda root: (root / "tokenizer.json").unlink(), "tokenizer"),
    "no codec": (lambda root: shutil.rmtree(root / "audio_tokenizer"), "audio_tokenizer"),
    "codec rate": (
        lambda root: edit_json(root / "audio_tokenizer" / "config.json", target_bandwidths=[0.5, 1]),
        "codebooks",
    ),
    # Issue 16: each of these was an internal error (or, for the layers, minutes of work).
    "codebooks as a word": (lambda root: edit_json(root / "config.json", num_audio_codebook="eight"),
                            "num_audio_codebook as 'eight'"),
    "no audio vocab": (lambda root: edit_json(root / "config.json", audio_vocab_size=None),
                       "audio_vocab_size as 'None'"),
    "hidden size as text": (lambda root: _edit_llm(root, hidden_size="1024"),
                            "llm_config hidden_size"),
    "100,000 layers": (lambda root: _edit_llm(root, num_hidden_layers=100_000),
                       "llm_config num_hidden_layers"),
    "a zero ratio": (lambda root: _edit_codec(root, downsampling_ratios=[0]), "downsampling ratios"),
    "no bandwidths": (lambda root: edit_json(root / "audio_tokenizer" / "config.json",
                                             target_bandwidths=[]), "target bandwidths"),
    "rate zero": (lambda root: edit_json(root / "audio_tokenizer" / "config.json", sample_rate=0),
                  "sample_rate as '0'"),
}


def _edit_llm(root, **changes):
    config = json.loads((root / "config.json").read_text())
    config["llm_config"].update(changes)
    (root / "config.json").write_text(json.dumps(config))


def _edit_codec(root, **changes):
    path = root / "audio_tokenizer" / "config.json"
    config = json.loads(path.read_text())
    config.setdefault("acoustic_model_config", {}).update(changes)
    path.write_text(json.dumps(config))


@pytest.mark.parametrize("name", BREAKAGES)
def test_broken_layouts_are_refused_before_loading(copy, name):
    breaks, words = BREAKAGES[name]
    breaks(copy)
    with pytest.raises(UserError, match=words) as error:
        inspect_checkpoint(copy)
    assert "\n" not in str(error.value)


def test_truncated_weights_are_named(copy):
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(UserError, match="model.safetensors is damaged"):
        Engine.load(copy, device="cpu", precision="fp32")


def test_truncated_codec_weights_are_named(copy):
    weights = copy / "audio_tokenizer" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(UserError, match="audio codec in .* is damaged or incomplete"):
        Engine.load(copy, device="cpu", precision="fp32")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_weights_holding_nan_or_infinity_are_refused(copy, bad):
    from safetensors.torch import load_file, save_file

    path = copy / "model.safetensors"
    state = load_file(path)
    name = next(k for k in state if k.endswith("norm.weight"))
    state[name][0] = bad
    save_file(state, path)
    with pytest.raises(UserError, match=f"invalid \\(NaN or infinite\\) values in {name}"):
        Engine.load(copy, device="cpu", precision="fp32")


def test_weights_of_another_shape_are_named(copy):
    config = json.loads((copy / "config.json").read_text())
    config["llm_config"]["intermediate_size"] = 96
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(UserError, match="wrong shape"):
        Engine.load(copy, device="cpu", precision="fp32")


def test_codec_weights_missing_a_tensor_are_refused(copy):
    from safetensors.torch import load_file, save_file

    path = copy / "audio_tokenizer" / "model.safetensors"
    state = load_file(path)
    state.pop(next(k for k in state if "codebook.embed" in k))
    save_file(state, path)
    with pytest.raises(UserError, match="audio codec"):
        Engine.load(copy, device="cpu", precision="fp32")


def test_a_repo_that_is_not_downloaded_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(UserError, match="omnivoice-desktop download k2-fsa/OmniVoice"):
        resolve_checkpoint("k2-fsa/OmniVoice")


def test_weights_are_read_without_a_map_and_cast_as_read(tmp_path):
    from safetensors.torch import load_file, save_file

    from studio.engine.checkpoint import _read_weights

    state = {"a": torch.randn(3, 5), "b": torch.arange(4), "c": torch.randn(2).to(torch.float16),
             "flag": torch.tensor([True, False]), "empty": torch.zeros(0, 7)}
    save_file(state, str(tmp_path / "w.safetensors"))
    read = _read_weights(tmp_path / "w.safetensors", "fix", torch.bfloat16)
    want = load_file(str(tmp_path / "w.safetensors"))
    assert set(read) == set(want)
    for key, tensor in want.items():
        expected = tensor.to(torch.bfloat16) if tensor.is_floating_point() else tensor
        assert read[key].dtype == expected.dtype and torch.equal(read[key], expected), key
    assert torch.equal(_read_weights(tmp_path / "w.safetensors", "fix")["a"], state["a"])
