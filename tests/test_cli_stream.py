"""`synth --stream` and `--out -`: audio written chunk by chunk, to a file or a pipe, as
the installed command runs it (a separate process; a reader on the other end)."""

from __future__ import annotations

import json
import os
import pty
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

PARAGRAPH = ("The storm rolled in over the hills just after noon. Farmers hurried to bring "
             "their animals inside before the rain. By evening the river had risen past the "
             "old stone bridge. Nobody in the village could remember a flood like it.")
COMMAND = str(Path(sys.executable).with_name("omnivoice-desktop"))


@pytest.fixture
def synth(tiny_checkpoint, tmp_path):
    """``synth(*args, stdout=PIPE)`` runs the installed command -> CompletedProcess (bytes)."""
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    env.pop("PYTHONWARNINGS", None)

    def run(*args, stdout=subprocess.PIPE):
        return subprocess.run(
            [COMMAND, "synth", "--model", str(tiny_checkpoint), "--text", PARAGRAPH, "--steps",
             "4", "--seed", "7", "--quiet", *map(str, args)],
            stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=180)

    return run


def samples_of(path: Path) -> np.ndarray:
    return sf.read(path, dtype="int16")[0]


def test_a_piped_wav_stream_reads_back_as_the_whole_render(synth, tmp_path):
    plain = tmp_path / "plain.wav"
    assert synth("--out", plain).returncode == 0
    run = synth("--stream", "--out", "-", "--json")
    assert run.returncode == 0, run.stderr.decode()
    data = run.stdout
    riff, size, wave = struct.unpack("<4sI4s", data[:12])
    assert (riff, wave, size) == (b"RIFF", b"WAVE", 0xFFFFFFFF)  # length unknown when it starts
    channels, rate, bits = struct.unpack("<HI", data[22:28]) + struct.unpack("<H", data[34:36])
    assert (channels, rate, bits) == (1, 24000, 16)
    assert data[36:40] == b"data" and struct.unpack("<I", data[40:44])[0] == 0xFFFFFFFF
    streamed = np.frombuffer(data[44:], "<i2")
    assert np.array_equal(streamed, samples_of(plain))
    summary = json.loads(run.stderr.decode().strip().splitlines()[-1])  # stdout is the audio
    assert summary["stream"] is True and summary["chunks"] >= 3
    assert 0 < summary["first_audio_seconds"] <= summary["load_seconds"] + summary["seconds"]


def test_raw_pcm_is_the_renders_samples_without_a_header(synth, tmp_path):
    plain = tmp_path / "plain.wav"
    assert synth("--out", plain).returncode == 0
    run = synth("--stream", "--out", "-", "--format", "pcm")
    assert run.returncode == 0, run.stderr.decode()
    assert np.array_equal(np.frombuffer(run.stdout, "<i2"), samples_of(plain))


def test_streaming_to_a_file_writes_the_same_file(synth, tmp_path):
    plain, streamed = tmp_path / "plain.flac", tmp_path / "streamed.flac"
    assert synth("--out", plain).returncode == 0
    run = synth("--stream", "--out", streamed, "--json")
    assert run.returncode == 0, run.stderr.decode()
    assert np.array_equal(samples_of(streamed), samples_of(plain))
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "plain.flac", "streamed.flac"]  # no temp file left beside them
    assert json.loads(run.stdout)["first_audio_seconds"] > 0


def test_a_reader_that_stops_early_ends_the_render_in_one_sentence(synth):
    reader = subprocess.Popen(["head", "-c", "100"], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL)
    run = synth("--stream", "--out", "-", stdout=reader.stdin)
    reader.stdin.close()
    reader.wait(timeout=30)
    lines = run.stderr.decode().strip().splitlines()
    assert run.returncode == 2
    assert lines == ["error: The program reading the audio from standard output stopped "
                     "reading; the render stopped."]


def test_audio_is_never_written_to_a_terminal(synth):
    leader, follower = pty.openpty()
    try:
        run = synth("--out", "-", stdout=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert run.returncode == 2
    assert "standard output, which is a terminal here" in run.stderr.decode()


@pytest.mark.parametrize("args, says", [
    (["--format", "pcm", "--out", "x.wav"], "--format is for --out -"),
    (["--stream", "--chunking", "reference", "--out", "-"], "--stream needs quick-start"),
])
def test_contradicting_stream_options_are_one_sentence(synth, tmp_path, args, says):
    args = [str(tmp_path / a) if a.endswith(".wav") else a for a in args]
    run = synth(*args)
    err = run.stderr.decode().strip().splitlines()
    assert run.returncode == 2 and len(err) == 1 and says in err[0]
    assert run.stdout == b""
    assert not list(tmp_path.glob("*.wav"))
