"""The OmniVoice network: a bidirectional Qwen3 backbone with audio embeddings and heads.

The backbone is transformers' own Qwen3Model, so our logits match the reference
bit for bit on the same inputs; what we add is the thin audio front and back.
Parameter names follow the official checkpoint (``llm.*``, ``audio_embeddings``,
``audio_heads``) so ``model.safetensors`` loads without renaming.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from transformers import Qwen3Config, Qwen3Model


@dataclass(frozen=True)
class AudioSpec:
    """The audio-token layout the checkpoint was trained with."""

    vocab_size: int  # per codebook, including the mask id
    mask_id: int
    codebooks: int


class OmniVoiceNet(nn.Module):
    def __init__(self, llm_config: Qwen3Config, audio: AudioSpec):
        super().__init__()
        self.audio = audio
        self.llm = Qwen3Model(llm_config)
        hidden = llm_config.hidden_size
        self.audio_embeddings = nn.Embedding(audio.codebooks * audio.vocab_size, hidden)
        self.audio_heads = nn.Linear(hidden, audio.codebooks * audio.vocab_size, bias=False)
        # Codebook k's ids live at rows [k * vocab, (k + 1) * vocab) of the shared table.
        self.register_buffer(
            "codebook_layer_offsets", torch.arange(audio.codebooks) * audio.vocab_size
        )

    def embed(self, input_ids: torch.Tensor, audio_mask: torch.Tensor) -> torch.Tensor:
        """(B, C, S) ids and a (B, S) audio mask -> (B, S, H) input embeddings.

        Text positions read codebook row 0 through the text table; audio positions
        sum the C codebook embeddings. Text ids are zeroed before the audio lookup
        so that out-of-range text ids never index the audio table.
        """
        text = self.llm.embed_tokens(input_ids[:, 0, :])
        shifted = input_ids * audio_mask.unsqueeze(1) + self.codebook_layer_offsets.view(1, -1, 1)
        audio = self.audio_embeddings(shifted).sum(dim=1)
        return torch.where(audio_mask.unsqueeze(-1), audio, text)

    def forward(
        self,
        input_ids: torch.Tensor,
        audio_mask: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits of shape (B, C, S, V) for every position."""
        hidden = self.llm(
            inputs_embeds=self.embed(input_ids, audio_mask),
            attention_mask=attention_mask,
            use_cache=False,
            return_dict=True,
        ).last_hidden_state
        batch, seq, _ = hidden.shape
        logits = self.audio_heads(hidden)
        return logits.view(batch, seq, self.audio.codebooks, self.audio.vocab_size).permute(0, 2, 1, 3)
