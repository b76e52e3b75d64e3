"""`omnivoice-desktop script render` on the tiny random checkpoint."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf

DIALOGUE = "Alice: Good morning, Bob.\nBob: Morning, Alice.\n\nAlice: [pause 300ms] Coffee?\n"


@pytest.fixture
def files(tmp_path, speech):
    sf.write(tmp_path / "bob.wav", speech(3.0), 24000)
    (tmp_path / "talk.txt").write_text(DIALOGUE, encoding="utf-8")
    (tmp_path / "voices.json").write_text(json.dumps({
        "Alice": {"instruct": "female", "seed": 3},
        "Bob": {"ref": "bob.wav", "ref_text": "A clip of Bob."}}), encoding="utf-8")
    return tmp_path


def test_a_script_renders_to_a_mix_stems_and_subtitles(cli, files, tiny_checkpoint):
    out = files / "mix.flac"
    code, stdout, stderr = cli("script", "render", files / "talk.txt", "--voices",
                               files / "voices.json", "--out", out, "--stems", files / "stems",
                               "--srt", files / "talk.srt", "--steps", "3", "--device", "cpu",
                               "--model", tiny_checkpoint, "--json")
    assert code == 0, stderr
    summary = json.loads(stdout[-1])
    assert summary["lines"] == 3 and summary["speakers"] == ["Alice", "Bob"]
    mix, rate = sf.read(out, dtype="float32")
    assert rate == 24000 and mix.size / rate == pytest.approx(summary["seconds"], abs=1e-3)
    stems = [sf.read(files / "stems" / f"{name}.flac", dtype="float32")[0]
             for name in ("Alice", "Bob")]
    assert all(stem.size == mix.size for stem in stems)
    assert float(np.abs(sum(stems) - mix).max()) < 2e-4  # 16-bit files: one step each
    srt = (files / "talk.srt").read_text(encoding="utf-8")
    assert "Alice: Good morning, Bob." in srt and srt.count(" --> ") == 3


@pytest.mark.parametrize("voices, says", [
    ({"Alice": {"instruct": "female"}}, "no voice for Bob"),
    ({"Alice": {"instruct": "female"}, "Bob": {"voice": "x", "instruct": "male"}},
     "exactly one of"),
    ({"Alice": {"instruct": "female"}, "Bob": {"ref": "missing.wav", "ref_text": "x"}},
     "does not exist"),
    ({"Alice": {"instruct": "female"}, "Bob": {"instruct": "male", "colour": "red"}},
     "unknown key 'colour'"),
    ({"Alice": {"instruct": "female", "seed": -1}, "Bob": {"instruct": "male"}},
     "whole number"),
])
def test_a_bad_voice_map_is_one_sentence_before_the_model_loads(cli, files, voices, says):
    (files / "voices.json").write_text(json.dumps(voices), encoding="utf-8")
    out = files / "mix.wav"
    code, stdout, stderr = cli("script", "render", files / "talk.txt", "--voices",
                               files / "voices.json", "--out", out, "--model", "not/loaded")
    assert code == 2 and len(stderr) == 1 and says in stderr[0], stderr
    assert not out.exists()


def test_a_map_that_is_not_json_and_a_bad_output_are_one_sentence(cli, files):
    (files / "broken.json").write_text("{not json", encoding="utf-8")
    code, _, stderr = cli("script", "render", files / "talk.txt", "--voices",
                          files / "broken.json", "--out", files / "m.wav", "--model", "x/y")
    assert code == 2 and "is not valid JSON" in stderr[0]
    code, _, stderr = cli("script", "render", files / "talk.txt", "--voices",
                          files / "voices.json", "--out", files / "m.mp4", "--model", "x/y")
    assert code == 2 and "must end in" in stderr[0]


def test_the_mix_can_be_mp3(cli, files, tiny_checkpoint):
    out = files / "mix.mp3"
    code, _, stderr = cli("script", "render", files / "talk.txt", "--voices",
                          files / "voices.json", "--out", out, "--steps", "2", "--device",
                          "cpu", "--model", tiny_checkpoint)
    assert code == 0, stderr
    assert sf.info(out).format == "MP3" and sf.info(out).duration > 1


def test_a_script_imported_as_a_project_renders_like_the_script(cli, files, tiny_checkpoint):
    project = files / "talk.ovproj"
    code, stdout, stderr = cli("script", "import", files / "talk.txt", "--voices",
                               files / "voices.json", "--out", project, "--json")
    assert code == 0, stderr
    assert json.loads(stdout[-1])["speakers"] == ["Alice", "Bob"]
    common = ["--steps", "3", "--device", "cpu", "--model", tiny_checkpoint, "--seed", "5"]
    assert cli("script", "render", project, "--out", files / "a.wav", *common)[0] == 0
    assert cli("script", "render", files / "talk.txt", "--voices", files / "voices.json",
               "--out", files / "b.wav", *common)[0] == 0
    a, b = sf.read(files / "a.wav")[0], sf.read(files / "b.wav")[0]
    np.testing.assert_array_equal(a, b)


def test_a_script_without_voices_or_a_project_without_lines_is_one_sentence(cli, files):
    code, _, stderr = cli("script", "render", files / "talk.txt", "--out", files / "m.wav")
    assert code == 2 and "--voices is needed" in stderr[0]
    from studio.scripts.project import Project

    Project.create(files / "empty.ovproj").close()
    code, _, stderr = cli("script", "render", files / "empty.ovproj", "--out", files / "m.wav")
    assert code == 2 and "has no lines" in stderr[0]


def test_a_project_renders_only_its_new_and_changed_lines_the_next_time(cli, files,
                                                                        tiny_checkpoint):
    from studio.library.takes import TakeLibrary
    from studio.scripts.project import Project

    project_file = files / "talk.ovproj"
    assert cli("script", "import", files / "talk.txt", "--voices", files / "voices.json",
               "--out", project_file)[0] == 0
    common = ["--steps", "2", "--device", "cpu", "--model", tiny_checkpoint, "--json"]

    def render(out):
        code, stdout, stderr = cli("script", "render", project_file, "--out", files / out,
                                   *common)
        assert code == 0, stderr
        return json.loads(stdout[-1])

    first = render("one.wav")
    assert (first["rendered_lines"], first["reused_lines"], first["takes_saved"]) == (3, 0, 3)
    with Project.open(project_file) as project:
        assert [project.status(line) for line in project.lines()] == ["done"] * 3
        second_line = project.lines()[1]
        project.set_line(second_line.id, text="Morning, Alice, and good day.")
    again = render("two.wav")
    assert (again["rendered_lines"], again["reused_lines"]) == (1, 2)
    with Project.open(project_file) as project, TakeLibrary(read_only=True) as takes:
        lines = project.lines()
        assert [project.status(line) for line in lines] == ["done"] * 3
        assert takes.get(lines[1].take).settings.text == "Morning, Alice, and good day."
        # Filed under the project, as the Script view's takes are (issue 25, finding 14).
        filed = takes.get(lines[1].take).settings
        assert (filed.project, filed.project_line) == (str(project_file.absolute()), 2)
        assert {t.id for t in takes.list(project=str(project_file.absolute()))} >= \
            {line.take for line in lines}
    one, two = sf.read(files / "one.wav")[0], sf.read(files / "two.wav")[0]
    assert one.shape != two.shape or not np.array_equal(one, two)
