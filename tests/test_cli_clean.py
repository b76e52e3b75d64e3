"""`synth --ref CLIP --clean STEPS`: the reference cleaned first (the Clone view's cleanup,
the same files), what each step did in --json, a second run reusing the prompt."""

from __future__ import annotations

import json

import pytest

from studio.cli import main
from studio.sound.files import read_audio
from tests.padded_clip import PADDED_CLIP_TEXT as TEXT

FAST = ["--device", "cpu", "--precision", "fp32", "--steps", "2"]

pytestmark = pytest.mark.usefixtures("one_torch_thread")




def _synth(tiny_checkpoint, capfd, *args):
    capfd.readouterr()
    code = main(["synth", *FAST, "--model", str(tiny_checkpoint), *map(str, args)])
    out = capfd.readouterr()
    return code, out.out, out.err


def test_clean_trims_the_reference_and_a_second_run_hits_the_cache(
        tiny_checkpoint, capfd, tmp_path, padded_clip):
    args = ["--text", "Hi.", "--ref", padded_clip, "--ref-text", TEXT, "--clean", "trim,loudness",
            "--seed", 1, "--out", tmp_path / "a.wav", "--json"]
    code, stdout, stderr = _synth(tiny_checkpoint, capfd, *args)
    assert code == 0, stderr
    summary = json.loads(stdout)
    cleanup = summary["cleanup"]
    assert cleanup["steps"] == ["trim", "loudness"] and not cleanup["reused"]
    rate = cleanup["sample_rate"]
    assert 0.8 < cleanup["trimmed_start"] / rate < 1.1  # most of the padded second went
    assert summary["prompt_source"] == "encoded"
    cleaned, _ = read_audio(cleanup["clip"])
    assert cleaned.shape[-1] < read_audio(padded_clip)[0].shape[-1] - rate

    code, stdout, stderr = _synth(tiny_checkpoint, capfd, *args)
    again = json.loads(stdout)
    assert code == 0 and again["cleanup"]["reused"] and again["prompt_source"] == "disk"
    assert again["cleanup"]["clip"] == cleanup["clip"]


@pytest.mark.parametrize(("args", "says"), [
    (["--clean", "noise,echo", "--ref", "CLIP"], "Unknown cleanup step 'echo'"),
    (["--clean", "trim"], "--clean cleans a reference clip"),
])
def test_clean_refusals_are_one_sentence(tiny_checkpoint, capfd, tmp_path, padded_clip,
                                         args, says):
    args = [padded_clip if a == "CLIP" else a for a in args]
    out = tmp_path / "x.wav"
    code, _, stderr = _synth(tiny_checkpoint, capfd, "--text", "Hi.", *args, "--out", out)
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and says in lines[0], stderr
    assert not out.exists()
