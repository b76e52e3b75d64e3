"""`synth --describe`: a voice in words, read by the Design view's parser, gives the
same take as the instruct it stands for; a bad description is one sentence, before
the model loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from studio.cli import main
from studio.engine.describe import map_description

REPO = Path(__file__).resolve().parents[1]
FAST = ["--device", "cpu", "--precision", "fp32", "--steps", "4", "--seed", "5"]
TEXT = "Hello there, this is a short test."

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def synth(checkpoint: Path, out: Path, *args: str) -> dict:
    code = main(["synth", *FAST, "--model", str(checkpoint), "--text", TEXT, "--out", str(out),
                 "--json", *args])
    assert code == 0
    return out


def test_a_description_renders_the_take_of_its_instruct(tiny_checkpoint, tmp_path, capfd):
    described = synth(tiny_checkpoint, tmp_path / "described.wav",
                      "--describe", "a young woman, low pitch, british accent")
    instructed = synth(tiny_checkpoint, tmp_path / "instructed.wav",
                       "--instruct", "female, young adult, low pitch, british accent")
    plain = synth(tiny_checkpoint, tmp_path / "plain.wav")
    a, b, c = (sf.read(p, dtype="float32")[0] for p in (described, instructed, plain))
    assert np.array_equal(a, b)
    assert a.shape != c.shape or not np.array_equal(a, c)  # the design reached the model


def run_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "studio", "synth", *FAST, *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("description", ["an old man, slightly raspy", "an old man and a woman"])
def test_a_bad_description_is_the_windows_sentence_before_any_model(tmp_path, description):
    out = tmp_path / "speech.wav"
    # A model folder that does not exist: the description must fail before it is looked at.
    run = run_cli(tmp_path, "--model", str(tmp_path / "no-model"), "--text", TEXT,
                  "--describe", description, "--out", str(out), "--json")
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip() == f"error: {map_description(description).problem}"
    assert json.loads(run.stdout)["error"] == map_description(description).problem
    assert not out.exists()


def test_describe_and_instruct_together_are_refused(tmp_path):
    run = run_cli(tmp_path, "--model", str(tmp_path / "no-model"), "--text", TEXT,
                  "--describe", "an old man", "--instruct", "male", "--out", str(tmp_path / "x.wav"))
    assert run.returncode == 2
    assert run.stderr.strip() == "error: Give --instruct or --describe, not both."
