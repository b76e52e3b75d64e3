"""Turning one request into the conditional token sequence the network reads.

Layout, every column repeated over the C codebook rows:
``[style tokens][<|text_start|> ref text + text <|text_end|>][reference audio][target masks]``
where the style tokens are ``<|denoise|>`` (only with a reference),
``<|lang_start|>lang<|lang_end|>`` and ``<|instruct_start|>instruct<|instruct_end|>``
(the literal word ``None`` when unset, as the model was trained).
"""

from __future__ import annotations

import torch

from studio.engine.decode import DecodeItem
from studio.engine.text import combine_text, tokenize_text


def style_prefix(language: str | None, instruct: str | None, denoise: bool) -> str:
    return (
        ("<|denoise|>" if denoise else "")
        + f"<|lang_start|>{language or 'None'}<|lang_end|>"
        + f"<|instruct_start|>{instruct or 'None'}<|instruct_end|>"
    )


def build_item(
    tokenizer,
    text: str,
    target_len: int,
    codebooks: int,
    mask_id: int,
    ref_text: str | None = None,
    ref_tokens: torch.Tensor | None = None,
    language: str | None = None,
    instruct: str | None = None,
    denoise: bool = True,
    generator: torch.Generator | None = None,
) -> DecodeItem:
    has_ref = ref_tokens is not None
    style = tokenizer(style_prefix(language, instruct, denoise and has_ref)).input_ids
    words = tokenize_text(f"<|text_start|>{combine_text(text, ref_text)}<|text_end|>", tokenizer)
    text_ids = torch.tensor(list(style) + list(words), dtype=torch.long)
    parts = [text_ids.unsqueeze(0).expand(codebooks, -1)]
    if has_ref:
        parts.append(ref_tokens.to("cpu", torch.long))
    parts.append(torch.full((codebooks, target_len), mask_id, dtype=torch.long))
    return DecodeItem(
        cond_ids=torch.cat(parts, dim=1),
        audio_start=text_ids.numel(),
        target_len=target_len,
        generator=generator,
    )
