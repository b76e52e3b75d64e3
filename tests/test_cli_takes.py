"""`synth --takes N --pick best`: N seeds rendered, judged, the best written, all in --json."""

from __future__ import annotations

import json

import pytest
import soundfile as sf

from studio.cli import main

FAST = ["--device", "cpu", "--precision", "fp32", "--steps", "4"]

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _synth(tiny_checkpoint, capfd, *args):
    capfd.readouterr()
    code = main(["synth", *FAST, "--model", str(tiny_checkpoint), *map(str, args)])
    out = capfd.readouterr()
    return code, out.out, out.err


def test_takes_renders_judges_and_writes_the_best(tiny_checkpoint, capfd, tmp_path):
    out = tmp_path / "best.wav"
    code, stdout, stderr = _synth(tiny_checkpoint, capfd, "--text", "Hello there.",
                                  "--takes", 3, "--pick", "best", "--seed", 5,
                                  "--out", out, "--json")
    assert code == 0, stderr
    summary = json.loads(stdout)
    takes = summary["takes"]
    assert [t["seed"] for t in takes] == [5, 6, 7]
    best = max(range(3), key=lambda i: takes[i]["combined"])
    assert summary["pick"] == best and takes[best]["rank"] == 1
    assert sorted(t["rank"] for t in takes) == [1, 2, 3]
    assert summary["seed"] == takes[best]["seed"]
    for take in takes:  # every judge answered: a score or the reason it did not
        assert [j["judge"] for j in take["judgements"]] == ["voice", "words", "sound"]
        words = take["judgements"][1]
        assert words["verdict"] == "not judged" and "not on this computer" in words["explanation"]
        assert take["judgements"][0]["details"]["against"] == "the other takes"
    audio, rate = sf.read(out, dtype="float32")
    assert abs(audio.size / rate - takes[best]["audio_seconds"]) < 0.01


@pytest.mark.parametrize(("args", "says"), [
    (["--takes", 0], "--takes must be a whole number from 1 to 16"),
    (["--takes", 2, "--stream"], "--stream writes a take while it renders"),
    (["--takes", 2, "--backend", "http://127.0.0.1:9"], "leave out --backend or --takes"),
])
def test_takes_refusals_are_one_sentence(tiny_checkpoint, capfd, tmp_path, args, says):
    out = tmp_path / "x.wav"
    code, _, stderr = _synth(tiny_checkpoint, capfd, "--text", "Hi.", *args, "--out", out)
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and says in lines[0], stderr
    assert not out.exists()


def test_takes_hear_the_language_id_and_score_the_words(tiny_checkpoint, capfd, tmp_path,
                                                         monkeypatch):
    from studio.judges.words import HeardWord
    from studio.service import judging

    asked = []

    def fake(model, device):  # a recogniser that hears "Hello" only: "there" was dropped
        return lambda audio, rate, language: asked.append(language) or [HeardWord("Hello")]

    monkeypatch.setattr(judging, "whisper_recogniser", fake)
    code, stdout, stderr = _synth(tiny_checkpoint, capfd, "--text", "Hello there.", "--lang",
                                  "English", "--takes", 2, "--out", tmp_path / "b.wav", "--json")
    assert code == 0, stderr
    assert asked == ["en", "en"]
    words = json.loads(stdout)["takes"][0]["judgements"][1]
    assert words["details"]["dropped"] == 1 and words["score"] == 0.5


def test_takes_of_a_saved_voice_are_judged_against_its_clip(tiny_checkpoint, capfd, tmp_path,
                                                           speech):
    """The worker and synth judge through one call (service.judging.judge_request); a
    saved voice's takes are compared with the voice's own clip, as a clone's with --ref."""
    clip = tmp_path / "narrator.wav"
    sf.write(clip, speech(2.0), 24000)
    capfd.readouterr()
    assert main(["voices", "save", "Narrator", "--ref", str(clip), "--ref-text",
                 "Some words here.", "--model", str(tiny_checkpoint), "--device", "cpu",
                 "--precision", "fp32"]) == 0, capfd.readouterr().err
    code, stdout, stderr = _synth(tiny_checkpoint, capfd, "--text", "Hello there.",
                                  "--voice", "Narrator", "--takes", 2,
                                  "--out", tmp_path / "v.wav", "--json")
    assert code == 0, stderr
    for take in json.loads(stdout)["takes"]:
        assert take["judgements"][0]["details"]["against"] == "the reference clip"
