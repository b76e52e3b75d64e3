"""`omnivoice-desktop synth` end to end on the tiny random checkpoint.

Most cases call ``studio.cli.main`` in-process (the model loads in a fraction of
a second); a few run the real command in a subprocess to prove that what the
user sees is one sentence, never a traceback. Every failure case also checks
that nothing was left at the output path and no temp file in its folder.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from studio.cli import main

REPO = Path(__file__).resolve().parents[1]
FAST = ["--device", "cpu", "--precision", "fp32", "--steps", "4"]
JSON_KEYS = {
    "seconds", "audio_seconds", "rtf", "device", "precision", "steps", "decode", "accel_requested",
    "accel_active", "fallback_reason", "prompt_source", "seed", "encodes", "transcriptions",
}
PROMPT_SOURCES = {"encoded", "memory", "disk", "file", "none"}
TEXT = "Hello there, this is a short test."


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


class Run:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]

    @property
    def warnings(self) -> list[str]:
        return [line for line in self.err_lines if line.startswith("warning: ")]

    def json(self) -> dict:
        lines = [line for line in self.out.splitlines() if line.strip()]
        assert len(lines) == 1, f"stdout is not one line: {self.out!r}"
        return json.loads(lines[0])


def _subprocess(args: list[str], env_extra: dict[str, str], tmp_path: Path) -> Run:
    env = dict(os.environ)
    env.update(env_extra)
    env["OMNIVOICE_DESKTOP_DATA_DIR"] = str(tmp_path / "data")
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "studio", "synth", *FAST, *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def outdir(tmp_path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


@pytest.fixture
def synth(tiny_checkpoint, capfd):
    """``synth(*args, model=...)`` runs ``main(["synth", ...])`` and returns a Run."""

    def run(*args, model: str | Path = tiny_checkpoint) -> Run:
        argv = ["synth", *FAST, "--model", str(model), *map(str, args)]
        capfd.readouterr()
        code = main(argv)
        captured = capfd.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def no_temp_files(folder: Path) -> None:
    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".") or p.suffix == ".tmp"]
    assert not leftovers, f"temp files left behind: {leftovers}"


def assert_user_error(run: Run, *paths: Path, says: tuple[str, ...] = ()) -> str:
    """Exit 2, one ``error:`` sentence on stderr, nothing at any output path."""
    assert run.code == 2, (run.code, run.err)
    assert "Traceback" not in run.err
    assert len(run.err_lines) == 1, f"stderr is not one line: {run.err!r}"
    message = run.err_lines[0]
    assert message.startswith("error: "), message
    for fragment in says:
        assert fragment in message, (fragment, message)
    for path in paths:
        assert not path.exists(), f"{path} exists after a failed render"
        if path.parent.is_dir():
            no_temp_files(path.parent)
    return message


def assert_rendered(run: Run, out: Path) -> np.ndarray:
    assert run.code == 0, run.err
    assert "Traceback" not in run.err
    audio, rate = sf.read(out, dtype="float32")
    assert rate == 24000
    assert audio.ndim == 1 and audio.size > 0
    no_temp_files(out.parent)
    return audio


def write_wav(path: Path, audio: np.ndarray, rate: int = 24000, subtype: str | None = None) -> Path:
    sf.write(path, audio, rate, subtype=subtype)
    return path


@pytest.fixture(scope="session")
def clip(tmp_path_factory, speech) -> Path:
    """A 3-second speech-like reference clip at 24 kHz."""
    return write_wav(tmp_path_factory.mktemp("ref") / "clip.wav", speech(3.0))


# ---------------------------------------------------------------------------
# Successful renders
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".wav", ".flac", ".ogg"])
def test_renders_each_format(synth, outdir, suffix):
    out = outdir / f"speech{suffix}"
    run = synth("--text", TEXT, "--out", out, "--seed", 1)
    audio = assert_rendered(run, out)
    if suffix != ".ogg":  # Vorbis is lossy and may overshoot full scale when decoded
        assert np.abs(audio).max() <= 1.0
    assert run.out == ""  # without --json, stdout stays clean
    assert any(line.startswith("Wrote ") for line in run.err_lines)


def test_the_top_level_model_option_also_picks_the_synth_model(tiny_checkpoint, capfd, outdir):
    out = outdir / "top.wav"
    capfd.readouterr()
    code = main(["--model", str(tiny_checkpoint), "synth", *FAST, "--text", "Hi there.", "--out", str(out)])
    captured = capfd.readouterr()
    assert_rendered(Run(code, captured.out, captured.err), out)


def test_json_line_and_tokens(synth, outdir):
    out, tokens_out = outdir / "speech.wav", outdir / "tokens.pt"
    run = synth("--text", TEXT, "--out", out, "--tokens-out", tokens_out, "--seed", 7, "--json")
    audio = assert_rendered(run, out)
    summary = run.json()
    assert JSON_KEYS <= summary.keys()
    assert summary["prompt_source"] in PROMPT_SOURCES
    assert summary["prompt_source"] == "none"
    assert summary["seed"] == 7
    assert summary["device"] == "cpu" and summary["precision"] == "fp32" and summary["steps"] == 4
    assert summary["accel_requested"] == "off" and summary["accel_active"] == "off"
    assert summary["fallback_reason"] is None
    assert summary["audio_seconds"] == pytest.approx(audio.size / 24000, abs=1e-3)
    assert summary["seconds"] >= 0 and summary["rtf"] >= 0

    tokens = torch.load(tokens_out, weights_only=True)
    assert isinstance(tokens, list) and len(tokens) == 1
    [chunk] = tokens
    assert chunk.dtype == torch.int64 and chunk.dim() == 2 and chunk.shape[0] == 8
    assert chunk.shape[1] > 0
    assert int(chunk.min()) >= 0 and int(chunk.max()) < 1024


def test_seed_reproducible_and_varied(synth, outdir):
    def render(name: str, seed: int) -> np.ndarray:
        out = outdir / name
        return assert_rendered(synth("--text", TEXT, "--out", out, "--seed", seed), out)

    first, again, other = render("a.wav", 1234), render("b.wav", 1234), render("c.wav", 99)
    assert np.array_equal(first, again)
    assert first.shape != other.shape or not np.array_equal(first, other)


def test_fresh_seed_is_reported(synth, outdir):
    out = outdir / "speech.wav"
    summary = synth("--text", TEXT, "--out", out, "--json").json()
    assert isinstance(summary["seed"], int) and summary["seed"] >= 0


def test_unavailable_accel_falls_back(synth, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--out", out, "--accel", "flashinfer", "--json")
    assert_rendered(run, out)
    summary = run.json()
    assert summary["accel_requested"] == "flashinfer"
    assert summary["accel_active"] == "off"
    # A named reason from studio.engine.accel.reasons (this machine has no CUDA GPU).
    reason = summary["fallback_reason"]
    assert reason.startswith("flashinfer: ") and reason.endswith(", rendered on the standard path")
    assert any(reason in line for line in run.warnings)


def test_text_file(synth, tmp_path, outdir):
    source = tmp_path / "speech.txt"
    source.write_text("Read from a file, in UTF-8: café.\n", encoding="utf-8")
    out = outdir / "speech.wav"
    assert_rendered(synth("--text-file", source, "--out", out), out)


def test_missing_text_file(synth, tmp_path, outdir):
    out = outdir / "speech.wav"
    run = synth("--text-file", tmp_path / "absent.txt", "--out", out)
    assert_user_error(run, out, says=("absent.txt", "does not exist"))


def test_text_file_not_utf8(synth, tmp_path, outdir):
    source = tmp_path / "latin1.txt"
    source.write_bytes("Un café, s'il vous plaît.".encode("latin-1"))
    out = outdir / "speech.wav"
    assert_user_error(synth("--text-file", source, "--out", out), out, says=("UTF-8",))


def test_overwrites_existing_output(synth, outdir):
    out = outdir / "speech.wav"
    out.write_bytes(b"old contents")
    assert_rendered(synth("--text", TEXT, "--out", out), out)


def test_unknown_language_warns_and_renders(synth, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--lang", "Klingon", "--out", out)
    assert_rendered(run, out)
    assert any("Klingon" in line for line in run.warnings)


def test_known_language_renders_quietly(synth, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--lang", "English", "--out", out)
    assert_rendered(run, out)
    assert run.warnings == []


def test_in_process_main_restores_logging(synth, outdir):
    from transformers.utils import logging as hf_logging

    before = list(logging.getLogger().handlers)
    library = hf_logging.get_logger()
    library_state = (list(library.handlers), library.propagate, hf_logging.is_progress_bar_enabled())
    show = warnings.showwarning
    synth("--text", TEXT, "--out", outdir / "a.wav")
    synth("--text", "", "--out", outdir / "b.wav")
    assert logging.getLogger().handlers == before
    assert (list(library.handlers), library.propagate,
            hf_logging.is_progress_bar_enabled()) == library_state
    assert warnings.showwarning is show


# ---------------------------------------------------------------------------
# Cloning
# ---------------------------------------------------------------------------


def test_clone_save_prompt_then_reuse(synth, clip, outdir):
    first, prompt = outdir / "first.wav", outdir / "voice.pt"
    run = synth("--text", TEXT, "--ref", clip, "--ref-text", "This is the reference clip.",
                "--save-prompt", prompt, "--out", first, "--json")
    assert_rendered(run, first)
    assert run.json()["prompt_source"] == "encoded"
    assert prompt.is_file()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydub warns at import when ffmpeg is absent
        from omnivoice import VoiceClonePrompt

    loaded = VoiceClonePrompt.load(str(prompt))
    assert loaded.ref_audio_tokens.dtype == torch.int64
    assert loaded.ref_audio_tokens.shape[0] == 8 and loaded.ref_audio_tokens.shape[1] > 0
    assert loaded.ref_text.startswith("This is the reference clip")
    assert loaded.ref_rms > 0

    second = outdir / "second.wav"
    run = synth("--text", TEXT, "--prompt", prompt, "--out", second, "--json")
    assert_rendered(run, second)
    assert run.json()["prompt_source"] == "file"


def test_stereo_44k_reference_is_accepted(synth, tmp_path, outdir, speech):
    mono = speech(3.0, 44100)
    stereo = write_wav(tmp_path / "stereo.wav", np.stack([mono, 0.5 * mono], axis=1), 44100)
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--ref", stereo, "--ref-text", "A stereo clip.", "--out", out)
    assert_rendered(run, out)


def test_long_reference_warns(synth, tmp_path, outdir, speech):
    long_clip = write_wav(tmp_path / "long.wav", speech(22.0))
    out = outdir / "speech.wav"
    run = synth("--text", "Hi.", "--ref", long_clip, "--ref-text", "A long clip.", "--out", out)
    assert_rendered(run, out)
    assert any("20 s" in line and "long" in line for line in run.warnings), run.err


def test_failed_render_does_not_save_prompt(synth, clip, outdir):
    # --speed 0 is refused by the engine, i.e. after the clip has been encoded.
    out, prompt = outdir / "speech.wav", outdir / "voice.pt"
    run = synth("--text", TEXT, "--ref", clip, "--ref-text", "The reference.",
                "--save-prompt", prompt, "--speed", "0", "--out", out)
    assert_user_error(run, out, prompt, says=("speed",))


# ---------------------------------------------------------------------------
# Bad input: one sentence, exit 2, nothing written
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   \n\t  "], ids=["empty", "whitespace"])
def test_empty_text(synth, outdir, text):
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", text, "--out", out), out, says=("empty",))


def test_text_too_long(synth, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", "a" * 20_001, "--out", out)
    assert_user_error(run, out, says=("20,000",))


def test_unsupported_output_extension(synth, outdir):
    out = outdir / "speech.mp4"
    assert_user_error(synth("--text", TEXT, "--out", out), out, says=(".wav",))


def test_output_folder_missing(synth, outdir):
    out = outdir / "missing" / "speech.wav"
    run = synth("--text", TEXT, "--out", out)
    assert_user_error(run, out, says=("does not exist",))


def test_missing_reference(synth, tmp_path, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--ref", tmp_path / "nope.wav", "--ref-text", "x", "--out", out)
    assert_user_error(run, out, says=("nope.wav", "does not exist"))


def _empty_file(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _headered_empty_wav(path: Path) -> Path:
    return write_wav(path, np.zeros(0, dtype=np.float32))


def _random_bytes(path: Path) -> Path:
    path.write_bytes(np.random.default_rng(3).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    return path


def _text_as_wav(path: Path) -> Path:
    path.write_text("This is not audio at all, just a note.\n" * 20, encoding="utf-8")
    return path


def _silent_wav(path: Path) -> Path:
    return write_wav(path, np.zeros(24000 * 3, dtype=np.float32))


def _nan_wav(path: Path) -> Path:
    audio = np.full(24000 * 2, 0.1, dtype=np.float32)
    audio[1000:1200] = np.nan
    return write_wav(path, audio, subtype="FLOAT")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_empty_file, "clip.wav"),
        (_headered_empty_wav, "no samples"),
        (_random_bytes, "damaged"),
        (_text_as_wav, "damaged"),
        (_silent_wav, "silent"),
        (_nan_wav, "NaN"),
    ],
    ids=["zero-bytes", "zero-frames", "random-bytes", "text-file", "all-silent", "nan"],
)
def test_bad_reference(synth, tmp_path, outdir, make, says):
    ref = make(tmp_path / "clip.wav")
    out, prompt = outdir / "speech.wav", outdir / "voice.pt"
    run = synth("--text", TEXT, "--ref", ref, "--ref-text", "Some words.",
                "--save-prompt", prompt, "--out", out)
    assert_user_error(run, out, prompt, says=(says,))


def test_unknown_instruct_item_suggests(synth, outdir):
    out = outdir / "speech.wav"
    message = assert_user_error(synth("--text", TEXT, "--instruct", "femal", "--out", out), out)
    assert "'femal'" in message and "'female'" in message


@pytest.mark.parametrize(
    ("instruct", "says"),
    [
        ("male, female", ("male", "female")),
        ("british accent, 四川话", ("british accent", "四川话")),
    ],
    ids=["gender-twice", "accent-and-dialect"],
)
def test_conflicting_instruct(synth, outdir, instruct, says):
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--instruct", instruct, "--out", out), out, says=says)


def test_instruct_typo_fails_before_model_load(synth, outdir, monkeypatch):
    from studio.engine.engine import Engine

    def refuse(*args, **kwargs):
        raise AssertionError("the model was loaded before the instruct was checked")

    monkeypatch.setattr(Engine, "load", refuse)
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--instruct", "femal", "--out", out), out,
                      says=("femal",))


@pytest.mark.parametrize(
    "bad", [("--instruct", "male, female"), ("--speed", "0"), ("--text-file", "absent.txt")],
    ids=["instruct", "speed-after-load", "before-anything"],
)
def test_failed_render_keeps_existing_output(synth, outdir, bad):
    out = outdir / "speech.wav"
    original = b"RIFF previous render, must survive"
    out.write_bytes(original)
    text = [] if bad[0] == "--text-file" else ["--text", TEXT]
    run = synth(*text, *bad, "--out", out)
    assert run.code == 2 and len(run.err_lines) == 1 and run.err_lines[0].startswith("error: ")
    assert out.read_bytes() == original
    no_temp_files(outdir)


def test_prompt_garbage(synth, tmp_path, outdir):
    prompt = _random_bytes(tmp_path / "voice.pt")
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--prompt", prompt, "--out", out), out,
                      says=("voice.pt", "cannot be loaded"))


def test_prompt_garbage_is_called_damaged(synth, tmp_path, outdir):
    prompt = _random_bytes(tmp_path / "voice.pt")
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--prompt", prompt, "--out", out), out,
                      says=("damaged",))


@pytest.mark.parametrize("kind", ["note", "wav", "folder"])
def test_prompt_wrong_file_kind(synth, tmp_path, outdir, clip, kind):
    prompt = tmp_path / "voice.pt"
    if kind == "note":
        prompt.write_text("hello world\n", encoding="utf-8")
    elif kind == "wav":
        shutil.copyfile(clip, prompt)  # the clip given to --prompt instead of --ref
    else:
        prompt.mkdir()
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--prompt", prompt, "--out", out), out,
                      says=("voice.pt",))


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--t-shift", "nan"), ("--t-shift", "-1"), ("--t-shift", "0"), ("--guidance", "nan"),
     ("--class-temperature", "inf"), ("--position-temperature", "-inf"),
     ("--layer-penalty", "nan"), ("--speed", "1e-9"), ("--duration", "1e9")],
)
def test_bad_numbers_are_one_sentence(synth, outdir, flag, value):
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, f"{flag}={value}", "--out", out), out)


@pytest.mark.parametrize(("flag", "value", "says"), [
    ("--t-shift", "1e39", "The t-shift must be from 0.001 to 10"),
    ("--layer-penalty", "1e308", "The layer penalty must be from 0 to 100"),
    ("--position-temperature", "1e-320", "The position temperature must be 0 (deterministic)"),
    ("--class-temperature", "1e300", "The class temperature must be 0 (deterministic)"),
    ("--guidance", "-3", "The guidance must be from 0 to 20"),
    ("--seed", "18446744073709551616", "The seed must be a whole number from 0 to"),
    ("--seed", "-1", "The seed must be a whole number from 0 to"),
    ("--steps", "1000000000", "The number of steps must be a whole number from 1 to 256"),
])
def test_numbers_past_what_the_model_can_use_are_refused_before_it_loads(
        synth, outdir, monkeypatch, flag, value, says):
    """Issue 16's reproductions: each ended in a traceback, an overflow or a 4 GB allocation."""
    from studio.engine.engine import Engine

    def never(*args, **kwargs):
        raise AssertionError("the model was loaded for a request that cannot run")

    monkeypatch.setattr(Engine, "load", never)
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, f"{flag}={value}", "--out", out), out, says=(says,))


class _PlantsMarker:
    """Unpickling this would call open(marker, "w"), creating the marker file."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("writer", ["torch", "pickle"])
def test_prompt_carrying_code_is_refused(synth, tmp_path, outdir, writer):
    marker = tmp_path / "pwned"
    prompt = tmp_path / "voice.pt"
    payload = {"format_version": 1, "ref_text": "hi", "ref_rms": 0.1, "x": _PlantsMarker(marker)}
    if writer == "torch":
        torch.save(payload, prompt)
    else:
        prompt.write_bytes(pickle.dumps(payload))
    assert not marker.exists()
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--prompt", prompt, "--out", out), out,
                      says=("voice.pt",))
    assert not marker.exists(), "loading the prompt ran code from the file"


def test_prompt_with_wrong_codebooks(synth, tmp_path, outdir):
    prompt = tmp_path / "voice.pt"
    torch.save({"format_version": 1, "ref_audio_tokens": torch.zeros(4, 10, dtype=torch.long),
                "ref_text": "hi", "ref_rms": 0.1}, prompt)
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--prompt", prompt, "--out", out), out,
                      says=("codebooks",))


# ---------------------------------------------------------------------------
# Bad --model
# ---------------------------------------------------------------------------


@pytest.fixture
def checkpoint_copy(tiny_checkpoint, tmp_path) -> Path:
    copy = tmp_path / "copy" / "OmniVoice"
    shutil.copytree(tiny_checkpoint, copy)
    return copy


def test_model_folder_missing(synth, tmp_path, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--out", out, model=tmp_path / "no-model")
    assert_user_error(run, out, says=("no-model", "does not exist"))


def test_model_config_not_json(synth, checkpoint_copy, outdir):
    (checkpoint_copy / "config.json").write_text("{ this is not json", encoding="utf-8")
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--out", out, model=checkpoint_copy)
    assert_user_error(run, out, says=("config.json", "JSON"))


def test_model_weights_truncated(synth, checkpoint_copy, outdir):
    weights = checkpoint_copy / "model.safetensors"
    with weights.open("r+b") as handle:
        handle.truncate(weights.stat().st_size // 2)
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--out", out, model=checkpoint_copy)
    assert_user_error(run, out, says=("model.safetensors",))


def test_shared_checkpoint_untouched(tiny_checkpoint):
    # The copies above must never write through to the session fixture.
    assert json.loads((tiny_checkpoint / "config.json").read_text(encoding="utf-8"))
    from safetensors.torch import load_file

    assert load_file(tiny_checkpoint / "model.safetensors")


# ---------------------------------------------------------------------------
# The real command, in a subprocess
# ---------------------------------------------------------------------------


def _offline_env(tmp_path: Path) -> dict[str, str]:
    return {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "TRANSFORMERS_OFFLINE": "1"}


def test_subprocess_repo_not_downloaded(tmp_path, monkeypatch):
    env = _offline_env(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    out = tmp_path / "speech.wav"
    run = _subprocess(["--model", "nobody/not-downloaded", "--text", TEXT, "--out", str(out)],
                      env, tmp_path)
    assert_user_error(run, out, says=("nobody/not-downloaded", "not downloaded"))


def test_subprocess_auto_transcription_unavailable(tiny_checkpoint, clip, tmp_path):
    out = tmp_path / "speech.wav"
    run = _subprocess(["--model", str(tiny_checkpoint), "--text", TEXT, "--ref", str(clip),
                       "--out", str(out), "--json"], _offline_env(tmp_path), tmp_path)
    message = assert_user_error(run, out, says=("transcri",))
    assert json.loads(run.out) == {"error": message.removeprefix("error: ")}


def test_subprocess_render_json(tiny_checkpoint, tmp_path):
    out = tmp_path / "speech.ogg"
    run = _subprocess(["--model", str(tiny_checkpoint), "--text", TEXT, "--out", str(out),
                       "--seed", "5", "--json"], _offline_env(tmp_path), tmp_path)
    assert run.code == 0, run.err
    assert "Traceback" not in run.err and run.err_lines == []
    summary = run.json()
    assert JSON_KEYS <= summary.keys() and summary["seed"] == 5
    audio, rate = sf.read(out)
    assert rate == 24000 and audio.size > 0
    no_temp_files(tmp_path)


# ---------------------------------------------------------------------------
# Output paths (issue 16): checked before any work, never an input, all or nothing
# ---------------------------------------------------------------------------


def test_out_that_is_the_reference_is_refused_and_the_clip_kept(synth, clip, outdir):
    copy = outdir / "me.wav"
    copy.write_bytes(clip.read_bytes())
    run = synth("--text", TEXT, "--ref", copy, "--ref-text", "Words.", "--out", copy)
    assert_user_error(run, says=("is the reference clip",))
    assert copy.read_bytes() == clip.read_bytes()


def test_two_outputs_with_one_name_are_refused(synth, clip, outdir):
    side = outdir / "side.pt"
    run = synth("--text", TEXT, "--ref", clip, "--ref-text", "Words.", "--out", outdir / "a.wav",
                "--tokens-out", side, "--save-prompt", side)
    assert_user_error(run, outdir / "a.wav", side, says=("are both",))


@pytest.mark.parametrize("where", ["read-only folder", "a folder"])
def test_a_side_file_that_cannot_be_written_is_refused_before_the_render(synth, outdir, where,
                                                                        monkeypatch):
    side = outdir / "tokens.pt"
    if where == "a folder":
        side.mkdir()
        says = "is a folder"
    else:  # as the OS answers for a read-only folder (root would not be refused by chmod)
        import studio.atomic

        real = os.access
        monkeypatch.setattr(studio.atomic.os, "access",
                            lambda path, mode: False if Path(path) == outdir else real(path, mode))
        says = "is not writable"
    run = synth("--text", TEXT, "--out", outdir / "a.wav", "--tokens-out", side)
    assert_user_error(run, outdir / "a.wav", says=(says,))


def test_long_names_up_to_the_limit_are_written_and_longer_ones_refused(synth, outdir):
    longest = "n" * (255 - len(".wav")) + ".wav"
    assert_rendered(synth("--text", TEXT, "--out", outdir / longest), outdir / longest)
    too_long = "n" * 260 + ".wav"
    assert_user_error(synth("--text", TEXT, "--out", outdir / too_long),
                      says=("bytes long, more than this file system allows",))


@pytest.mark.parametrize(("args", "says"), [
    (["--text", "abc\udced\udca0\udc80def"], "The text holds bytes that are not valid text"),
    (["--text", "\u200b\u200d\ufeff \u2060"], "The text is empty"),
    (["--text", TEXT, "--ref-text", "abc\udcff"], "The transcript holds bytes that are not valid"),
    (["--text", TEXT, "--instruct", "female\udcff"], "The voice design holds bytes"),
])
def test_text_that_is_not_text_is_one_sentence(synth, clip, outdir, args, says):
    """Undecodable bytes from a shell arrive as lone surrogates; zero-width-only text is empty."""
    out = outdir / "speech.wav"
    if "--ref-text" in args:
        args = [*args, "--ref", str(clip)]
    assert_user_error(synth(*args, "--out", out), out, says=(says,))


def _prompt(path: Path, **changes) -> Path:
    data = {"format_version": 1, "ref_audio_tokens": torch.zeros(8, 20, dtype=torch.long),
            "ref_text": "Hello there.", "ref_rms": 0.1}
    data.update(changes)
    torch.save(data, path)
    return path


@pytest.mark.parametrize(("changes", "says"), [
    ({"ref_audio_tokens": torch.full((8, 20), 5000)}, "outside the codec's range"),
    ({"ref_audio_tokens": torch.full((8, 20), -1)}, "outside the codec's range"),
    ({"ref_audio_tokens": torch.ones(8, 20, dtype=torch.bool)}, "not whole numbers"),
    ({"ref_audio_tokens": torch.ones(8, 20, dtype=torch.complex64)}, "not whole numbers"),
    ({"ref_rms": float("nan")}, "invalid loudness value"),
    ({"ref_rms": -0.1}, "invalid loudness value"),
    ({"ref_rms": 0.0}, "invalid loudness value"),
    ({"ref_text": "x" * 1_000_000}, "more than the 10,000 allowed"),
    ({"ref_audio_tokens": torch.zeros(8, 60_000, dtype=torch.long)}, "more than the 1,500"),
])
def test_a_prompt_file_is_checked_whole_before_use(synth, tmp_path, outdir, changes, says):
    """Issue 16: these were internal errors, silent or polarity-flipped audio, or minutes long."""
    out = outdir / "speech.wav"
    run = synth("--text", TEXT, "--prompt", _prompt(tmp_path / "voice.pt", **changes), "--out", out)
    assert_user_error(run, out, says=(says,))


@pytest.mark.parametrize("argv", [
    ["synth", "--steps", "0", "--text", "a", "--out", "x.wav"],
    ["synth", "--steps", "many", "--text", "a", "--out", "x.wav"],
    ["synth", "--text", "a"],
    ["cache"],
    ["voices"],
    ["--no-such-option"],
])
def test_a_command_line_mistake_is_one_sentence_without_internal_names(capfd, argv):
    """Issue 16: argparse printed a usage block and names such as _positive_int."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert exited.value.code == 2 and len(lines) == 1, err
    assert lines[0].startswith("error: ") and lines[0].endswith("--help for the options.")
    assert "usage" not in err and "_positive_int" not in err and "_command" not in err


def test_contradictions_and_odd_inputs_are_one_sentence(synth, outdir):
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--ref-text", "Words.", "--out", out), out,
                      says=("--ref-text is the transcript of a reference clip",))
    assert_user_error(synth("--text", TEXT, "--ref", "/dev/zero", "--ref-text", "x", "--out", out),
                      out, says=("is not a regular file",))
    run = synth("--text", TEXT, "--instruct", "female, " * 2000, "--out", out)
    message = assert_user_error(run, out, says=("at most 1,000",))
    assert len(message) < 200  # the line was 16 KB


def test_a_reference_over_a_minute_with_a_transcript_is_refused(synth, tmp_path, outdir, speech):
    """Issue 16: a 10-minute clip with its transcript ran for minutes after its warning;
    without a transcript it is cut at a pause (tested elsewhere)."""
    long_clip = write_wav(tmp_path / "talk.wav", speech(61.0))
    out = outdir / "speech.wav"
    assert_user_error(synth("--text", TEXT, "--ref", long_clip, "--ref-text", "A long talk.",
                            "--out", out), out, says=("more than the 60 s a prompt can use",))


def test_an_error_quoting_a_line_break_stays_one_line(synth, outdir):
    """Found by tests/test_fuzz.py: an instruct of '0\\r0' split the error over two lines."""
    out = outdir / "speech.wav"
    message = assert_user_error(synth("--text", TEXT, "--instruct", "0\r0", "--out", out), out)
    assert "'0\\r0'" in message


def test_an_output_link_is_written_through_and_a_device_refused(synth, outdir):
    """Issue 16: --out a link to /dev/full was replaced by a regular file, with exit 0."""
    real = outdir / "real.wav"
    link = outdir / "link.wav"
    link.symlink_to(real)
    assert_rendered(synth("--text", TEXT, "--out", link), real)
    assert link.is_symlink() and link.resolve() == real

    device = outdir / "full.wav"
    device.symlink_to("/dev/full")
    assert_user_error(synth("--text", TEXT, "--out", device), says=("is not a regular file",))
    assert device.is_symlink()


def test_a_pause_tag_adds_its_silence_to_the_file(synth, outdir):
    short, long = outdir / "short.wav", outdir / "long.wav"
    base = ["--instruct", "female", "--seed", "5", "--position-temperature", "0"]
    assert synth("--text", "Hello there. [pause 300ms] Goodbye now.", "--out", short,
                 *base).code == 0
    assert synth("--text", "Hello there. [pause 1.3s] Goodbye now.", "--out", long,
                 *base).code == 0
    assert sf.info(long).frames - sf.info(short).frames == 24000  # one more second, exactly


def test_a_malformed_pause_tag_is_refused_before_the_model_loads(synth, outdir):
    out = outdir / "speech.wav"
    run = synth("--text", "Wait [pause a while] here.", "--out", out, model="not/loaded")
    assert_user_error(run, out, says=("pause tag", "[pause 500ms]"))


def test_a_pronunciation_dictionary_changes_what_is_read(synth, outdir, tmp_path, monkeypatch):
    monkeypatch.setenv("OMNIVOICE_DESKTOP_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "pronunciations.json").write_text('{"Siobhan": "Shiv-awn"}')
    words = tmp_path / "words.json"
    words.write_text('[{"word": "GIF", "say": "jif", "case": true}]')
    out = outdir / "speech.wav"
    run = synth("--text", "Siobhan sent a GIF, not a gif.", "--dictionary", words, "--out", out,
                "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["read_text"] == "Shiv-awn sent a jif, not a gif."
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    assert_user_error(synth("--text", "Hi.", "--dictionary", bad, "--out", outdir / "x.wav",
                            model="not/loaded"), outdir / "x.wav", says=("Entry 1",))


def test_a_disk_that_refuses_the_audio_is_one_sentence_and_leaves_nothing(tiny_checkpoint,
                                                                           tmp_path):
    """A file-size limit makes every write past 20 KB fail (EFBIG), as a full disk does
    (ENOSPC): libsndfile writes by name and reports it, no callback tracebacks."""
    import resource

    out = tmp_path / "speech.wav"
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    env.pop("PYTHONWARNINGS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "studio", "synth", *FAST, "--model", str(tiny_checkpoint),
         "--text", "A sentence long enough to need more than twenty kilobytes.",
         "--out", str(out), "--quiet"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000)))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert lines == [f"error: Cannot save {out}: the disk is full or the file cannot be "
                     "written; free some space or choose another folder."]
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == []
