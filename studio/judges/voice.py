"""Voice match: GE2E speaker embeddings and their cosine similarity.

The weights are Resemblyzer's ``pretrained.pt`` (a 3-layer LSTM over 40 mel bands and a
linear projection); the network around them is our own, from the GE2E paper's recipe:
16 kHz, 25 ms / 10 ms frames, 1.6 s (160-frame) windows, the last hidden state projected,
ReLU, L2-normalised; speech normalised to -30 dBFS first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from studio.engine.audio import resample
from studio.judges.assets import ge2e_weights
from studio.judges.scores import BAD, Judgement, verdict_for

RATE = 16000
HOP = 160  # 10 ms
WINDOW_FRAMES = 160  # 1.6 s per partial embedding
TARGET_DBFS = -30.0
TRIM_FRACTION = 0.03  # 10 ms frames quieter than 3 % of the loudest RMS are end padding

# Thresholds set on this module with espeak voices: one voice with itself 0.93-0.96,
# a male and a female voice 0.65-0.68.
MATCH_OK = 0.80
MATCH_WARN = 0.70
# Windows (1.6 s every 0.5 s) against the reference: a switch needs this many in a row
# under SWITCH_BELOW; one low window is a breath or a plosive, not another speaker.
SWITCH_BELOW = 0.65
SWITCH_RUN = 2
SWITCH_STEP_S = 0.5


def trim_ends(wave16: np.ndarray) -> np.ndarray:
    """Drop near-silent 10 ms frames at both ends (they carry no speaker)."""
    count = wave16.size // HOP
    if count < 2:
        return wave16
    rms = np.sqrt(np.mean(wave16[: count * HOP].reshape(count, HOP) ** 2, axis=1))
    loud = np.flatnonzero(rms > rms.max() * TRIM_FRACTION)
    if loud.size == 0:
        return wave16
    return wave16[loud[0] * HOP:(loud[-1] + 1) * HOP]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / max(1e-9, float(np.linalg.norm(a) * np.linalg.norm(b))))


class SpeakerEncoder:
    """Holds the GE2E network; call it with one torch thread context owned by the caller."""

    def __init__(self):
        import torch
        import torchaudio

        state = torch.load(ge2e_weights(), map_location="cpu", weights_only=True)["model_state"]
        self._torch = torch
        self._lstm = torch.nn.LSTM(40, 256, 3, batch_first=True)
        self._linear = torch.nn.Linear(256, 256)
        self._lstm.load_state_dict({k[5:]: v for k, v in state.items() if k.startswith("lstm.")})
        self._linear.load_state_dict(
            {k[7:]: v for k, v in state.items() if k.startswith("linear.")})
        self._lstm.eval()
        self._linear.eval()
        self._mel = torchaudio.transforms.MelSpectrogram(
            RATE, n_fft=400, hop_length=HOP, n_mels=40, norm="slaney", mel_scale="slaney",
            pad_mode="constant")

    def prepare(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        """Mono 16 kHz, ends trimmed."""
        return trim_ends(resample(np.asarray(audio, np.float32).reshape(-1), sample_rate, RATE))

    def windows(self, wave16: np.ndarray, step_s: float = 0.8) -> tuple[np.ndarray, list[float]]:
        """Unit embeddings of 1.6 s windows every step_s seconds, and their start times."""
        torch = self._torch
        rms = float(np.sqrt(np.mean(wave16 ** 2))) if wave16.size else 0.0
        wave16 = wave16 * (10 ** (TARGET_DBFS / 20) / max(1e-6, rms))
        with torch.inference_mode():
            mel = self._mel(torch.from_numpy(np.ascontiguousarray(wave16, np.float32))).T
            step = max(1, round(step_s * RATE / HOP))
            starts = list(range(0, max(1, len(mel) - WINDOW_FRAMES + 1), step))
            batch = torch.stack([torch.nn.functional.pad(
                mel[s:s + WINDOW_FRAMES], (0, 0, 0, max(0, s + WINDOW_FRAMES - len(mel))))
                for s in starts])
            _, (hidden, _) = self._lstm(batch)
            emb = torch.nn.functional.normalize(torch.relu(self._linear(hidden[-1])), dim=1)
        return emb.numpy(), [s * HOP / RATE for s in starts]

    def embed(self, audio: np.ndarray, sample_rate: int) -> np.ndarray:
        """One unit embedding for a whole clip (the mean of its windows)."""
        emb, _ = self.windows(self.prepare(audio, sample_rate))
        mean = emb.mean(axis=0)
        return mean / max(1e-9, float(np.linalg.norm(mean)))


@dataclass(frozen=True)
class Switch:
    at_s: float  # start of the first low window, in the trimmed take
    similarities: tuple[float, ...]


def find_switch(encoder: SpeakerEncoder, audio: np.ndarray, sample_rate: int,
                reference: np.ndarray | None = None) -> Switch | None:
    """The first run of SWITCH_RUN+ windows unlike the reference embedding (or, without
    one, unlike the take's own first half); None when the voice holds."""
    emb, starts = encoder.windows(encoder.prepare(audio, sample_rate), step_s=SWITCH_STEP_S)
    if len(starts) < SWITCH_RUN + 1:
        return None
    if reference is None:
        reference = emb[: max(1, len(emb) // 2)].mean(axis=0)
    sims = [cosine(e, reference) for e in emb]
    run = 0
    for i, sim in enumerate(sims):
        run = run + 1 if sim < SWITCH_BELOW else 0
        if run >= SWITCH_RUN:
            return Switch(starts[i - run + 1], tuple(round(s, 3) for s in sims))
    return None


def judge_voice(similarity: float, against: str, switch: Switch | None = None) -> Judgement:
    """against: what the take was compared with ("the reference clip", "its sibling takes")."""
    verdict = verdict_for(similarity, MATCH_OK, MATCH_WARN)
    line = f"Voice similarity {similarity:.2f} to {against}"
    details = {"similarity": round(similarity, 3), "against": against}
    if switch is not None:
        verdict = BAD
        line += f"; the voice changes at about {switch.at_s:.1f} s"
        details["switch_at_s"] = switch.at_s
        details["window_similarities"] = list(switch.similarities)
    return Judgement("voice", max(0.0, min(1.0, similarity)), verdict, line + ".", details)
