"""Special files named as inputs (issue 26, group 5): a FIFO, /dev/zero, a folder or a
file too large for its kind, given to every command that reads a path as text or JSON,
is one sentence and exit 2 at once -- never read until memory runs out, never a wait.

The commands run as child processes with a memory cap and a timeout, so a regression
fails the test instead of taking the machine with it."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from studio.errors import UserError
from studio.safe_read import MAX_JSON_DEPTH, json_depth, read_bytes, read_json, read_text

CAP = 2 * 1024**3  # address space a child may take; reading /dev/zero would pass it in seconds


def _capped():
    resource.setrlimit(resource.RLIMIT_DATA, (CAP, CAP))


def _run(tmp_path, *args):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-m", "studio", *map(str, args)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60,
                          preexec_fn=_capped)
    return done.returncode, [line for line in done.stderr.splitlines() if line.strip()]


def _special(tmp_path, kind: str, name: str):
    """A path called ``name`` that is ``kind``; each has the suffix its command wants."""
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:  # sparse: 64 MB of nothing costs no disk
        with open(path, "wb") as handle:
            handle.truncate(64 * 1024**2)
    return path


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "talk.txt").write_text("Alice: Hello.\n", encoding="utf-8")
    (tmp_path / "voices.json").write_text(json.dumps({"Alice": {"instruct": "female"}}),
                                          encoding="utf-8")
    return tmp_path


# Every command and option that reads a user's path as text or JSON: (name, arguments).
ENTRIES = {
    "script render FILE": ("bad.txt", ["script", "render", "bad.txt", "--voices",
                                       "voices.json", "--out", "m.wav", "--model", "x/y"]),
    "script import FILE": ("bad.txt", ["script", "import", "bad.txt", "--out", "p.ovproj"]),
    "script render --voices": ("bad.json", ["script", "render", "talk.txt", "--voices",
                                            "bad.json", "--out", "m.wav", "--model", "x/y"]),
    "script import --voices": ("bad.json", ["script", "import", "talk.txt", "--voices",
                                            "bad.json", "--out", "p.ovproj"]),
    "script render --dictionary": ("bad.json", ["script", "render", "talk.txt", "--voices",
                                                "voices.json", "--dictionary", "bad.json",
                                                "--out", "m.wav", "--model", "x/y"]),
    "synth --dictionary": ("bad.json", ["synth", "--text", "Hi.", "--dictionary", "bad.json",
                                        "--out", "m.wav", "--model", "x/y"]),
    "synth --text-file": ("bad.txt", ["synth", "--text-file", "bad.txt", "--out", "m.wav",
                                      "--model", "x/y"]),
    "script render PROJECT": ("bad.ovproj", ["script", "render", "bad.ovproj", "--out",
                                             "m.wav", "--model", "x/y"]),
}
# A project has no size that is too large at 64 MB; its zeros are not a SQLite file.
SAYS = {("script render PROJECT", "large"): "not a SQLite file"}


@pytest.mark.parametrize("kind, says", [("fifo", "is a pipe"), ("zero", "is a device"),
                                        ("folder", "folder"), ("large", "larger than")])
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_special_file_as_input_is_one_sentence_at_once(inputs, entry, kind, says):
    name, args = ENTRIES[entry]
    says = SAYS.get((entry, kind), says)
    _special(inputs, kind, name)
    code, stderr = _run(inputs, *args)
    assert code == 2 and len(stderr) == 1, (code, stderr)
    assert says in stderr[0] and "bad." in stderr[0], stderr
    assert not (inputs / "m.wav").exists() and not (inputs / "p.ovproj").exists()


def test_the_helper_reads_a_regular_file_and_refuses_one_past_its_bound(tmp_path):
    path = tmp_path / "map.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": [1, 2]}')  # a byte-order mark is dropped
    assert read_json(path, 100, "voice map") == {"a": [1, 2]}
    assert read_bytes(path, 16, "voice map") == path.read_bytes()
    with pytest.raises(UserError, match="larger than"):
        read_bytes(path, 15, "voice map")
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(UserError, match="not UTF-8"):
        read_text(path, 100, "script")
    with pytest.raises(UserError, match="does not exist"):
        read_text(tmp_path / "missing.txt", 100, "script")


def test_json_nested_100000_deep_is_one_sentence(tmp_path):
    path = tmp_path / "voices.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(UserError, match="nests"):
        read_json(path, 1024**2, "voice map")
    path.write_text(json.dumps({"A": [[[[]]]]}), encoding="utf-8")
    assert json_depth(read_json(path, 1024, "voice map")) == 5
    path.write_text("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), encoding="utf-8")
    with pytest.raises(UserError, match="nests"):
        read_json(path, 1024, "voice map")


def test_a_voice_map_nested_100000_deep_is_one_sentence_from_the_command(inputs):
    (inputs / "deep.json").write_text("{\"Alice\": " + "[" * 100_000 + "]" * 100_000 + "}",
                                      encoding="utf-8")
    code, stderr = _run(inputs, "script", "render", "talk.txt", "--voices", "deep.json",
                        "--out", "m.wav", "--model", "x/y")
    assert code == 2 and len(stderr) == 1 and "nests" in stderr[0], stderr
