"""Which Whisper the words judge hears with: the studio's model on a CUDA GPU, base on
a CPU (turbo alone costs about a tenth of a Standard render there), the environment's when
set; never a download, and the sentence names what to download."""

from __future__ import annotations

import pytest

from studio.engine import asr
from studio.service import judging
from studio.service.judging import (
    CPU_RECOGNISER,
    RECOGNISER_ENV,
    judges_for,
    recogniser_model,
)


def test_the_model_follows_the_device_and_the_environment(monkeypatch):
    monkeypatch.delenv(RECOGNISER_ENV, raising=False)
    assert recogniser_model("cpu") == CPU_RECOGNISER == "openai/whisper-base"
    assert recogniser_model("cpu", "openai/whisper-large-v3-turbo") == CPU_RECOGNISER
    assert recogniser_model("cuda:0") == asr.DEFAULT_ASR_MODEL
    assert recogniser_model("cuda", "my/whisper") == "my/whisper"
    monkeypatch.setenv(RECOGNISER_ENV, " openai/whisper-small ")
    assert recogniser_model("cpu") == recogniser_model("cuda") == "openai/whisper-small"


@pytest.mark.parametrize(("device", "model"), [("cpu", "openai/whisper-base"),
                                               ("cuda", "openai/whisper-large-v3-turbo")])
def test_a_missing_recogniser_names_the_download(monkeypatch, device, model):
    monkeypatch.delenv(RECOGNISER_ENV, raising=False)
    asked = []
    monkeypatch.setattr(asr, "asr_source", lambda m: asked.append(m))  # nothing on disk
    judges = judges_for(device)
    assert asked == [model] and judges.recognise is None
    [words] = [j for j in judges.judge_takes([([0.0] * 24000, 24000)], "Hello there.")[0]
               .judgements if j.judge == "words"]
    assert words.verdict == "not judged"
    assert words.explanation == (
        f"Words not judged: the speech recogniser {model} ({asr.asr_size(model)}) is not on "
        f"this computer; download it in Settings → Judging, or run "
        f"omnivoice-desktop download {model}.")


def test_a_recogniser_on_disk_is_used_on_the_engines_device(monkeypatch):
    monkeypatch.setenv(RECOGNISER_ENV, "/models/whisper-base")
    made = []

    class Fake:
        def __init__(self, model, device):
            made.append((model, device))

        def words(self, audio, rate, language):
            return [("Hello", 0.1, 0.4)]

    monkeypatch.setattr(asr, "asr_source", lambda m: m)
    monkeypatch.setattr(asr, "Transcriber", Fake)
    judges = judges_for("cpu")
    [result] = judges.judge_takes([([0.0] * 24000, 24000)], "Hello there.", "en")
    assert made == [("/models/whisper-base", "cpu")]
    assert result.get("words").details["dropped"] == 1
    assert judging.recogniser_missing("x/y").endswith("omnivoice-desktop download x/y.")
