"""`script render --best-of N`: every line rendered N times, judged, the best one mixed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import soundfile as sf

DIALOGUE = "Alice: Good morning, Bob.\nBob: Morning, Alice.\n\nAlice: Coffee?\n"
FAST = ["--steps", "2", "--device", "cpu", "--precision", "fp32"]

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def files(tmp_path, speech):
    sf.write(tmp_path / "bob.wav", speech(3.0), 24000)
    (tmp_path / "talk.txt").write_text(DIALOGUE, encoding="utf-8")
    (tmp_path / "voices.json").write_text(json.dumps({
        "Alice": {"instruct": "female", "seed": 3},
        "Bob": {"ref": "bob.wav", "ref_text": "A clip of Bob."}}), encoding="utf-8")
    return tmp_path


def _best(take_list):
    return max(range(len(take_list)), key=lambda k: take_list[k]["combined"])


def test_a_project_keeps_every_take_judged_and_mixes_the_best(cli, files, tiny_checkpoint):
    from studio.library.takes import TakeLibrary
    from studio.scripts.project import Project

    project_file = files / "talk.ovproj"
    assert cli("script", "import", files / "talk.txt", "--voices", files / "voices.json",
               "--out", project_file)[0] == 0
    code, stdout, stderr = cli("script", "render", project_file, "--out", files / "mix.wav",
                               "--best-of", 3, "--seed", 10, *FAST, "--model",
                               tiny_checkpoint, "--json")
    assert code == 0, stderr
    summary = json.loads(stdout[-1])
    assert summary["best_of"] == 3 and summary["takes_saved"] == 9
    judged = summary["judged_lines"]
    assert [(j["line"], j["speaker"]) for j in judged] == [(1, "Alice"), (2, "Bob"),
                                                           (3, "Alice")]
    # Alice's locked seed 3 and Bob's line-2 seed 10+1, each then +1, +2 (as synth --takes).
    assert [[t["seed"] for t in j["takes"]] for j in judged] == [[3, 4, 5], [11, 12, 13],
                                                                 [3, 4, 5]]
    for line in judged:
        takes = line["takes"]
        assert line["pick"] == _best(takes) and takes[line["pick"]]["rank"] == 1
        assert sorted(t["rank"] for t in takes) == [1, 2, 3]
        for take in takes:
            assert [j["judge"] for j in take["judgements"]] == ["voice", "words", "sound"]
            # No Whisper here: the words judge names the CPU's recogniser to download.
            assert take["judgements"][1]["explanation"].endswith(
                "or run omnivoice-desktop download openai/whisper-base.")
        against = takes[0]["judgements"][0]["details"]["against"]
        # Bob clones a clip: his takes are compared with it; Alice's with each other.
        assert against == ("the reference clip" if line["speaker"] == "Bob"
                           else "the other takes")
    assert summary["seeds"] == [line["takes"][line["pick"]]["seed"] for line in judged]
    with Project.open(project_file) as project, TakeLibrary(read_only=True) as library:
        lines = project.lines()
        filed = library.list(project=str(project_file.absolute()))
        assert len(filed) == 9
        for line, found in zip(lines, judged):
            picked = found["takes"][found["pick"]]
            chosen = library.get(line.take)
            assert chosen.settings.seed == picked["seed"]
            assert chosen.judgements["combined"] == picked["combined"]
            batch = [t for t in filed if t.batch == chosen.batch]
            assert sorted(t.settings.seed for t in batch) == sorted(
                t["seed"] for t in found["takes"])
            assert all(t.judgements is not None for t in batch)
            audio, rate = library.read_audio(line.take)
            assert abs(audio.size / rate - picked["audio_seconds"]) < 0.01


@pytest.mark.parametrize("value", ["0", "17"])
def test_a_best_of_out_of_range_is_one_sentence_before_the_model_loads(cli, files, value):
    code, _, stderr = cli("script", "render", files / "talk.txt", "--voices",
                          files / "voices.json", "--out", files / "m.wav", "--best-of", value,
                          "--model", "not/loaded")
    assert code == 2 and len(stderr) == 1, stderr
    assert stderr[0] == f"error: --best-of must be a whole number from 1 to 16; got {value}."
    assert not (files / "m.wav").exists()


def test_best_of_one_renders_as_before(cli, files, tiny_checkpoint):
    common = ["--voices", files / "voices.json", *FAST, "--model", tiny_checkpoint,
              "--seed", 4]
    assert cli("script", "render", files / "talk.txt", "--out", files / "a.wav", *common)[0] == 0
    code, stdout, _ = cli("script", "render", files / "talk.txt", "--out", files / "b.wav",
                          "--best-of", 1, *common, "--json")
    assert code == 0 and "judged_lines" not in json.loads(stdout[-1])
    assert (files / "a.wav").read_bytes() == (files / "b.wav").read_bytes()


def test_the_launched_command_judges_a_script(files, tiny_checkpoint):
    import studio

    tested = str(Path(studio.__file__).resolve().parents[1])  # this checkout's studio
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tested, os.environ.get("PYTHONPATH", "")]))
    exe = Path(sys.executable).with_name("omnivoice-desktop")
    run = subprocess.run(
        [str(exe), "script", "render", str(files / "talk.txt"), "--voices",
         str(files / "voices.json"), "--out", str(files / "mix.flac"), "--best-of", "2",
         *FAST, "--model", str(tiny_checkpoint), "--json"],
        capture_output=True, text=True, timeout=600, env=env, cwd=files)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["best_of"] == 2 and len(summary["judged_lines"]) == 3
    for line in summary["judged_lines"]:
        assert len(line["takes"]) == 2 and line["pick"] == _best(line["takes"])
        assert all(t["judgements"][2]["score"] is not None for t in line["takes"])
    assert sf.info(files / "mix.flac").duration == pytest.approx(summary["seconds"], abs=0.01)
