"""Where the speech is: Silero VAD's ONNX model (the silero-vad wheel's file) run by our own
onnxruntime loop, without the package's Python code or torch.

The model reads 16 kHz audio 512 samples (32 ms) at a time, each chunk preceded by the last
64 samples of the one before, and carries a recurrent state from chunk to chunk; it answers
the probability that the chunk holds speech.
"""

from __future__ import annotations

import numpy as np

from studio.engine.audio import resample
from studio.judges.assets import silero_vad_model
from studio.judges.onnx import one_thread_session

RATE = 16000
CHUNK = 512
CONTEXT = 64
THRESHOLD = 0.5  # Silero's own default


class SpeechDetector:
    """One onnxruntime session on one thread (it must not fight torch for cores)."""

    def __init__(self):
        self._session = one_thread_session(silero_vad_model())

    def probabilities(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        """Speech probability of each 32 ms chunk of the clip (mono float32 in)."""
        x = resample(np.asarray(audio, np.float32).reshape(-1), sample_rate, RATE)
        count = -(-x.size // CHUNK)
        x = np.concatenate([np.zeros(CONTEXT, np.float32), x,
                            np.zeros(count * CHUNK - x.size, np.float32)])
        state = np.zeros((2, 1, 128), np.float32)
        rate = np.array(RATE, np.int64)
        out = np.zeros(count, np.float32)
        for i in range(count):
            window = x[i * CHUNK:(i + 1) * CHUNK + CONTEXT][None, :]
            prob, state = self._session.run(None, {"input": window, "state": state, "sr": rate})
            out[i] = float(prob.reshape(-1)[0])
        return out

    def speech_span(self, audio: np.ndarray, sample_rate: int) -> tuple[int, int] | None:
        """(first, last) sample of the speech in the clip at its own rate; None: no speech."""
        speech = np.flatnonzero(self.probabilities(audio, sample_rate) >= THRESHOLD)
        if speech.size == 0:
            return None
        scale = sample_rate / RATE
        size = np.asarray(audio).reshape(-1).size
        return (int(speech[0] * CHUNK * scale),
                min(size, int((speech[-1] + 1) * CHUNK * scale)))
