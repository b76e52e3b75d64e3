"""Takes in a real TakeLibrary (a temp folder) for the takes panel and A/B tests."""

from __future__ import annotations

import numpy as np

from studio.library.take_record import TakeRun, TakeSettings
from studio.library.takes import TakeLibrary

RATE = 24000
RUN = TakeRun(model_source="tiny", device="cpu", precision="fp32", accel_requested="off",
              accel_active="off", fallback_reason=None, engine_version="test", seconds=0.5,
              rtf=0.25)


def settings(text="Hello there.", seed=1, mode="design", instruct=None, reference=None,
             ref_text=None, steps=16, speed=None, duration=None) -> TakeSettings:
    return TakeSettings(
        text=text, language="en", instruct=instruct, mode=mode, voice_id=None,
        reference_path=reference, reference_sha256="ab" * 32 if reference else None,
        ref_text=ref_text, preprocess=True, speed=speed, duration=duration, seed=seed,
        options={"decode": {"num_step": steps, "guidance_scale": 2.5, "t_shift": 0.2},
                 "denoise": False, "postprocess": True},
    )


def voice(seconds=1.0, amplitude=0.2, freq=180.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def add(library: TakeLibrary, text="Hello there.", seed=1, batch="b1", audio=None, **kw):
    suspects = kw.pop("suspects", ())
    return library.add(settings(text, seed, **kw), RUN,
                       voice() if audio is None else audio, RATE, batch=batch,
                       suspects=suspects)


def judgement(text: str, heard: str | None = None, similarity: float = 0.92,
              quality: float = 3.8, audio=None) -> dict:
    """A take's stored judgement as the worker stores it (TakeJudgement.to_dict()), made
    by the real judges' scoring from fixed measurements: ``heard`` the recogniser's words
    (one every 0.4 s; None: heard as asked), ``similarity`` the voice match to the
    reference, ``quality`` the DNSMOS overall score."""
    from studio.judges.scores import combined
    from studio.judges.sound import Mos, judge_sound
    from studio.judges.voice import judge_voice
    from studio.judges.words import HeardWord, judge_words
    from studio.service.judging import TakeJudgement

    said = (heard if heard is not None else text).split()
    words = judge_words(text, [HeardWord(w, 0.4 * i, 0.4 * i + 0.3) for i, w in enumerate(said)])
    sound = judge_sound(voice() if audio is None else audio, RATE,
                        lambda _audio, _rate: Mos(ovrl=quality, sig=quality + 0.2, bak=4.0))
    found = (judge_voice(similarity, "the reference clip"), words, sound)
    return TakeJudgement(found, combined(list(found))).to_dict()


def add_judged(library: TakeLibrary, text="Hello there.", seed=1, batch="b1", **judged):
    """A take with its judgement stored, as the worker leaves it after a render."""
    take = add(library, text, seed, batch)
    return library.set_judgements(take.id, judgement(text, **judged))
