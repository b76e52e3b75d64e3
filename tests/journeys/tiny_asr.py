"""A tiny random Whisper checkpoint in the layout transformers' ASR pipeline loads:
config, weights, generation config, feature extractor, and a byte-level tokenizer with
Whisper's special tokens. Its "transcripts" are a few letters, the same for the same
clip, so a test can compare what the studio shows with what the pipeline gives here.
"""

from __future__ import annotations

import json
from pathlib import Path

SPECIALS = ("<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|translate|>", "<|transcribe|>",
            "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>")


def _byte_symbols() -> list[str]:
    """GPT-2's byte-to-symbol table: printable bytes stand for themselves, the rest are
    moved above 255, so every byte has a visible one-character symbol."""
    printable = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    symbols, moved = [], 0
    for byte in range(256):
        if byte in printable:
            symbols.append(chr(byte))
        else:
            symbols.append(chr(256 + moved))
            moved += 1
    return symbols


def build_tiny_whisper(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import (
        GenerationConfig,
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperTokenizer,
    )

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {symbol: i for i, symbol in enumerate(_byte_symbols())}
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    end = SPECIALS[0]
    tokenizer = WhisperTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"),
                                 unk_token=end, bos_token=end, eos_token=end, pad_token=end)
    tokenizer.add_special_tokens({"additional_special_tokens": list(SPECIALS[1:])})
    tokenizer.save_pretrained(folder)
    ids = {s: tokenizer.convert_tokens_to_ids(s) for s in SPECIALS}
    config = WhisperConfig(
        vocab_size=len(tokenizer), num_mel_bins=80, d_model=64, encoder_layers=1,
        decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=128, decoder_ffn_dim=128, max_source_positions=1500,
        max_target_positions=64, decoder_start_token_id=ids["<|startoftranscript|>"],
        eos_token_id=ids[end], pad_token_id=ids[end], bos_token_id=ids[end])
    torch.manual_seed(seed)
    model = WhisperForConditionalGeneration(config)
    # Letters only, a few of them: a transcript a text box shows as text.
    letters = {i for symbol, i in vocab.items() if symbol.isascii() and symbol.isalpha()}
    model.generation_config = GenerationConfig(
        decoder_start_token_id=ids["<|startoftranscript|>"], eos_token_id=ids[end],
        pad_token_id=ids[end], no_timestamps_token_id=ids["<|notimestamps|>"], max_new_tokens=8,
        is_multilingual=False, begin_suppress_tokens=[ids[end]],
        suppress_tokens=sorted(set(vocab.values()) - letters))
    model.save_pretrained(folder)
    WhisperFeatureExtractor(feature_size=80).save_pretrained(folder)
    return folder
