"""The random checkpoint builder writes a folder the reference package loads and runs.

The reference (PyPI ``omnivoice`` 0.2.1, installed with ``--no-deps``) is the
judge of the layout: it must load the folder with no missing or unexpected
weights and render speech, design a voice and encode a clone prompt.
These tests fail, rather than skip, when the reference is not installed.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from studio.engine.random_checkpoint import (
    OMNIVOICE_SPECIAL_TOKENS,
    SIZES,
    build_random_checkpoint,
)

GREEDY = {"num_step": 4, "position_temperature": 0.0, "class_temperature": 0.0}


@pytest.fixture(scope="module")
def reference():
    try:
        return importlib.import_module("omnivoice")
    except ImportError as error:  # pragma: no cover - the environment is broken
        pytest.fail(
            "the reference package is missing: pip install --no-deps omnivoice==0.2.1 pydub"
            f" ({error})"
        )


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return build_random_checkpoint(tmp_path_factory.mktemp("tiny") / "OmniVoice")


@pytest.fixture(scope="module")
def model(reference, checkpoint):
    return reference.OmniVoice.from_pretrained(
        str(checkpoint), dtype=torch.float32, device_map="cpu"
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tone(seconds: float, sample_rate: int = 24000) -> torch.Tensor:
    t = torch.arange(int(seconds * sample_rate), dtype=torch.float64) / sample_rate
    wave = 0.3 * torch.sin(2 * torch.pi * 220 * t) * (1 + 0.5 * torch.sin(2 * torch.pi * 3 * t))
    return wave.float()


def test_layout(checkpoint):
    names = {p.relative_to(checkpoint).as_posix() for p in checkpoint.rglob("*") if p.is_file()}
    assert names == {
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "audio_tokenizer/config.json",
        "audio_tokenizer/model.safetensors",
        "audio_tokenizer/preprocessor_config.json",
    }


def test_main_config(checkpoint, reference):
    raw = json.loads((checkpoint / "config.json").read_text("utf-8"))
    assert raw["model_type"] == "omnivoice"
    assert raw["architectures"] == ["OmniVoice"]
    assert raw["llm_config"]["model_type"] == "qwen3"

    config = reference.OmniVoiceConfig.from_pretrained(str(checkpoint))
    assert config.audio_vocab_size == 1025
    assert config.audio_mask_id == 1024
    assert config.num_audio_codebook == 8
    assert list(config.audio_codebook_weights) == [8, 8, 6, 6, 4, 4, 2, 2]
    llm = config.llm_config
    assert (llm.hidden_size, llm.num_hidden_layers) == (64, 2)
    assert (llm.num_attention_heads, llm.num_key_value_heads, llm.head_dim) == (4, 2, 16)
    assert llm.intermediate_size == 128
    # The reference pads with the mask id 1024 through the text embedding.
    assert llm.vocab_size > 1024
    assert llm.vocab_size % 64 == 0


def test_codec_config(checkpoint):
    from transformers import AutoFeatureExtractor, HiggsAudioV2TokenizerConfig

    codec = HiggsAudioV2TokenizerConfig.from_pretrained(str(checkpoint / "audio_tokenizer"))
    assert codec.sample_rate == 24000
    assert codec.hop_length == 960
    assert codec.frame_rate == 25
    assert codec.num_quantizers == 8
    assert codec.codebook_size == 1024
    features = AutoFeatureExtractor.from_pretrained(str(checkpoint / "audio_tokenizer"))
    assert features.sampling_rate == 24000


def test_weights_match_the_reference_model(checkpoint, reference):
    from safetensors import safe_open

    config = reference.OmniVoiceConfig.from_pretrained(str(checkpoint))
    with torch.device("meta"):
        expected = {k: tuple(v.shape) for k, v in reference.OmniVoice(config).state_dict().items()}
    with safe_open(str(checkpoint / "model.safetensors"), "pt") as weights:
        names = weights.keys()  # safe_open is not iterable itself
        actual = {k: tuple(weights.get_slice(k).get_shape()) for k in names}
        offsets = weights.get_tensor("codebook_layer_offsets")
    assert actual == expected
    assert actual["audio_embeddings.weight"] == (8 * 1025, 64)
    assert actual["audio_heads.weight"] == (8 * 1025, 64)
    assert offsets.tolist() == [i * 1025 for i in range(8)]


def test_reference_loads_every_weight(checkpoint, reference):
    from transformers import HiggsAudioV2TokenizerModel

    # The reference's own from_pretrained drops the loading report; ask its base class.
    _, info = super(reference.OmniVoice, reference.OmniVoice).from_pretrained(
        str(checkpoint), dtype=torch.float32, output_loading_info=True
    )
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert not info["mismatched_keys"]
    _, info = HiggsAudioV2TokenizerModel.from_pretrained(
        str(checkpoint / "audio_tokenizer"), output_loading_info=True
    )
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert not info["mismatched_keys"]


def test_text_tokenizer(model):
    tokenizer = model.text_tokenizer
    assert type(tokenizer).__name__ == "Qwen2Tokenizer"
    assert 1024 < len(tokenizer) <= model.config.llm_config.vocab_size
    ids = tokenizer.convert_tokens_to_ids(list(OMNIVOICE_SPECIAL_TOKENS))
    assert len(set(ids)) == 7 and tokenizer.unk_token_id not in ids
    style = "<|denoise|><|lang_start|>None<|lang_end|><|instruct_start|>female<|instruct_end|>"
    tokens = tokenizer.convert_ids_to_tokens(tokenizer(style).input_ids)
    assert tokens[:2] == ["<|denoise|>", "<|lang_start|>"]
    assert tokens[-1] == "<|instruct_end|>"
    for text in ("Hello world.", "你好，世界！", "Привет, мир! ¿Qué tal?"):
        assert tokenizer.decode(tokenizer(text).input_ids) == text


def test_reference_generates(model):
    assert model.sampling_rate == 24000
    assert model.audio_tokenizer.config.frame_rate == 25
    (audio,) = model.generate(text="Hello world.", **GREEDY)
    assert audio.ndim == 1 and audio.size > 0
    assert np.isfinite(audio).all()
    assert np.abs(audio).max() > 0


def test_reference_designs_a_voice(model):
    (audio,) = model.generate(text="Hello world.", instruct="female, low pitch", **GREEDY)
    assert audio.ndim == 1 and audio.size > 0
    assert np.isfinite(audio).all()


def test_reference_encodes_a_clone_prompt(model):
    wave = _tone(2.5)
    prompt = model.create_voice_clone_prompt((wave, 24000), ref_text="Hi there.")
    tokens = prompt.ref_audio_tokens
    assert tokens.shape == (8, wave.shape[-1] // 960)
    assert tokens.dtype == torch.int64
    assert 0 <= int(tokens.min()) and int(tokens.max()) < 1024
    assert len(torch.unique(tokens[0])) > 1  # a random codebook, not a collapsed one
    (audio,) = model.generate(text="Hello world.", voice_clone_prompt=prompt, **GREEDY)
    assert audio.size > 0 and np.isfinite(audio).all()


def test_codec_round_trip_lengths(model):
    codec = model.audio_tokenizer
    with torch.inference_mode():
        codes = codec.encode(_tone(1.0).view(1, 1, -1)).audio_codes
        assert codes.shape == (1, 8, 25)
        audio = codec.decode(codes).audio_values
    assert audio.shape == (1, 1, 25 * 960)
    assert torch.isfinite(audio).all()


def test_build_is_deterministic_and_fast(tmp_path, checkpoint):
    rng_before = torch.random.get_rng_state()
    started = time.perf_counter()
    again = build_random_checkpoint(tmp_path / "again")
    elapsed = time.perf_counter() - started
    assert torch.equal(rng_before, torch.random.get_rng_state()), "touched the global RNG"
    for name in ("model.safetensors", "audio_tokenizer/model.safetensors", "tokenizer.json"):
        assert _sha256(again / name) == _sha256(checkpoint / name), name
    assert elapsed < 5.0, f"tiny build took {elapsed:.1f} s"

    other = build_random_checkpoint(tmp_path / "other", seed=1)
    assert _sha256(other / "model.safetensors") != _sha256(checkpoint / "model.safetensors")
    assert _sha256(other / "tokenizer.json") == _sha256(checkpoint / "tokenizer.json")


def test_dtype_parameter(tmp_path):
    folder = build_random_checkpoint(tmp_path / "bf16", dtype=torch.bfloat16)
    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), "pt") as weights:
        assert weights.get_tensor("audio_heads.weight").dtype == torch.bfloat16
        assert weights.get_tensor("codebook_layer_offsets").dtype == torch.int64
    assert json.loads((folder / "config.json").read_text("utf-8"))["dtype"] == "bfloat16"


@pytest.mark.parametrize(
    "kwargs",
    [{"size": "huge"}, {"seed": -1}, {"seed": 1.5}, {"dtype": torch.int64}],
)
def test_rejects_bad_arguments(tmp_path, kwargs):
    with pytest.raises(ValueError):
        build_random_checkpoint(tmp_path / "bad", **kwargs)
    assert not (tmp_path / "bad").exists()


def test_sizes():
    assert SIZES == ("tiny", "full")
