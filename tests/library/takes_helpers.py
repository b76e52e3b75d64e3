"""Helpers for the take library tests: snapshots and audio built without a model."""

from __future__ import annotations

import numpy as np

from studio.library.take_record import TakeRun, TakeSettings
from studio.library.takes import TakeLibrary

RATE = 24000


def make_settings(text: str = "Hello there.", seed: int = 1, voice_id: str | None = None,
                  reference: str | None = None, sha: str | None = None) -> TakeSettings:
    return TakeSettings(
        text=text, language="English", instruct=None, mode="clone" if reference else "design",
        voice_id=voice_id, reference_path=reference, reference_sha256=sha, ref_text=None,
        preprocess=True, speed=None, duration=None, seed=seed,
        options={"decode": {"num_step": 8, "guidance_scale": 2.0}, "denoise": True},
    )


RUN = TakeRun(model_source="tiny", device="cpu", precision="fp32", accel_requested="off",
              accel_active="off", fallback_reason=None, engine_version="0.1.0", seconds=0.5, rtf=0.25)


def tone(seconds: float = 1.0, amplitude: float = 0.2, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    wave = np.sin(2 * np.pi * (180 + 20 * seed) * t) + 0.2 * rng.standard_normal(t.size)
    return (amplitude * wave).astype(np.float32)


def add(lib: TakeLibrary, text: str = "Hello there.", seed: int = 1, batch: str = "b1", **kw):
    settings = make_settings(text, seed, **{k: kw.pop(k) for k in list(kw) if k in
                                            ("voice_id", "reference", "sha")})
    return lib.add(settings, RUN, kw.pop("audio", tone(seed=seed)), RATE, batch=batch, **kw)
