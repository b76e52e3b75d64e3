"""Hostile input, generated: every entry point either works or says one sentence.

Property-based tests (Hypothesis) over the command line's numbers and text, prompt
files built from random tensors and dicts, audio files with random bytes, and
``.ovoice`` bundles with random members. The property everywhere: success, or a
``UserError`` (exit 2 and one line on stderr for the command line), with nothing new
left on disk; never another exception, never exit 1, never a traceback.

The budget is fixed and derandomised (the same examples on every run, seconds in
all), so CI is repeatable; ``FUZZ_EXAMPLES=500 pytest tests/test_fuzz.py`` runs a
longer search, whose findings become regular tests in test_cli.py and the library's.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from studio.cli import main
from studio.errors import UserError

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

pytestmark = pytest.mark.usefixtures("one_torch_thread")

# Any code point, lone surrogates included (what a shell makes of undecodable bytes).
ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=40)
ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 5e-324, 1e-320, 1e308, -1e308, 1e39])
ANY_INT = st.integers(min_value=-(2**70), max_value=2**70)


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")} if folder.exists() else set()


def _one_sentence_or_success(code: int, err: str, out: Path) -> None:
    lines = [line for line in err.splitlines() if line.strip()
             and not line.startswith("warning: ")]
    assert "Traceback" not in err, err
    if code == 0:
        audio, rate = sf.read(out, dtype="float32")
        assert rate > 0 and audio.size > 0 and np.isfinite(audio).all()
        return
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert not out.exists()


@FUZZ
@given(option=st.sampled_from(["--guidance", "--t-shift", "--layer-penalty",
                               "--position-temperature", "--class-temperature", "--speed",
                               "--duration"]),
       value=ANY_FLOAT)
def test_any_number_renders_or_is_one_sentence(tiny_checkpoint, tmp_path, capfd, option, value):
    out = tmp_path / "fuzz.wav"
    out.unlink(missing_ok=True)
    capfd.readouterr()
    code = main(["synth", "--model", str(tiny_checkpoint), "--device", "cpu", "--precision",
                 "fp32", "--steps", "2", "--text", "Short.", f"{option}={value!r}",
                 "--out", str(out), "--quiet"])
    _one_sentence_or_success(code, capfd.readouterr().err, out)


@FUZZ
@given(steps=ANY_INT, seed=ANY_INT)
def test_any_whole_number_renders_or_is_one_sentence(tiny_checkpoint, tmp_path, capfd, steps,
                                                      seed):
    out = tmp_path / "fuzz.wav"
    out.unlink(missing_ok=True)
    if 3 < steps <= 256:
        steps = 3  # the property is about the bounds, not about long renders
    capfd.readouterr()
    try:
        code = main(["synth", "--model", str(tiny_checkpoint), "--device", "cpu", "--precision",
                     "fp32", f"--steps={steps}", f"--seed={seed}", "--text", "Short.",
                     "--out", str(out), "--quiet"])
    except SystemExit as exited:  # argparse's refusal, one sentence too
        code = exited.code
    _one_sentence_or_success(code, capfd.readouterr().err, out)


@FUZZ
@given(text=ANY_TEXT, instruct=st.none() | ANY_TEXT)
def test_any_text_renders_or_is_one_sentence(tiny_checkpoint, tmp_path, capfd, text, instruct):
    out = tmp_path / "fuzz.wav"
    out.unlink(missing_ok=True)
    argv = ["synth", "--model", str(tiny_checkpoint), "--device", "cpu", "--precision", "fp32",
            "--steps", "2", "--text", text, "--out", str(out), "--quiet"]
    if instruct is not None:
        argv += ["--instruct", instruct]
    capfd.readouterr()
    try:
        code = main(argv)
    except SystemExit as exited:  # a text argparse reads as an option ("-x")
        code = exited.code
    _one_sentence_or_success(code, capfd.readouterr().err, out)


# -- prompt files ----------------------------------------------------------------------
TOKEN_DTYPES = st.sampled_from([torch.int64, torch.int32, torch.int16, torch.uint8, torch.bool,
                                torch.float32, torch.float16, torch.complex64])


@st.composite
def tensors(draw):
    dtype = draw(TOKEN_DTYPES)
    shape = draw(st.lists(st.integers(0, 9), min_size=0, max_size=3))
    data = torch.from_numpy(np.asarray(draw(st.lists(
        st.integers(-3000, 3000), min_size=math.prod(shape), max_size=math.prod(shape))),
        dtype=np.int64).reshape(shape))
    return data.to(dtype)


VALUES = st.recursive(st.none() | st.booleans() | ANY_INT | ANY_FLOAT | ANY_TEXT | tensors(),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(ANY_TEXT, inner, max_size=3), max_leaves=6)


@FUZZ
@given(fields=st.fixed_dictionaries({}, optional={
    "format_version": st.integers(0, 2) | VALUES, "ref_audio_tokens": tensors() | VALUES,
    "ref_text": ANY_TEXT | VALUES, "ref_rms": ANY_FLOAT | VALUES}))
def test_any_prompt_dict_loads_or_is_one_sentence(fields):
    from studio.engine.prompt import VoicePrompt

    try:
        prompt = VoicePrompt.from_dict(fields, "The fuzzed prompt", codebooks=None,
                                       codebook_size=1024)
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).endswith(".")
        return
    assert prompt.tokens.dtype == torch.long and 0 < prompt.rms <= 1
    assert int(prompt.tokens.min()) >= 0 and int(prompt.tokens.max()) < 1024


# -- audio files -----------------------------------------------------------------------
@FUZZ
@given(head=st.sampled_from([b"", b"RIFF", b"fLaC", b"OggS", b"ID3"]), body=st.binary(max_size=600),
       real=st.booleans())
def test_any_reference_file_is_audio_or_one_sentence(tmp_path, head, body, real):
    from studio.engine import audio as audio_ops

    path = tmp_path / "ref.wav"
    if real:  # a real header, then random bytes: truncated and corrupt files
        buffer = io.BytesIO()
        sf.write(buffer, np.zeros(400, np.float32), 24000, format="WAV")
        data = buffer.getvalue()[:44] + body
    else:
        data = head + body
    path.write_bytes(data)
    try:
        wave = audio_ops.load_reference(path, 24000)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert np.isfinite(wave).all()


# -- voice files -------------------------------------------------------------------------
@FUZZ
@given(manifest=st.none() | st.dictionaries(ANY_TEXT, VALUES, max_size=4)
       | st.builds(dict, name=ANY_TEXT, created=ANY_TEXT, version=st.integers(0, 2),
                   format=st.just("omnivoice-desktop-voice")),
       members=st.dictionaries(st.sampled_from(["clip.wav", "prompt.pt", "../evil", "x/y",
                                                "manifest.json"]),
                               st.binary(max_size=200), max_size=3))
def test_any_voice_file_imports_or_is_one_sentence(tmp_path, manifest, members):
    from studio.library.bundle import import_voice
    from studio.library.voices import VoiceLibrary

    bundle = tmp_path / "fuzz.ovoice"
    with zipfile.ZipFile(bundle, "w") as archive:
        if manifest is not None:
            archive.writestr("manifest.json", json.dumps(manifest, default=str))
        for name, data in members.items():
            if name != "manifest.json" or manifest is None:
                archive.writestr(name, data)
    root = tmp_path / "library"
    with VoiceLibrary(root) as library:
        before = _files(root)
        try:
            import_voice(library, bundle)
        except UserError as exc:
            assert "\n" not in str(exc)
            assert _files(root) == before
            return
        raise AssertionError("random bytes imported as a voice")


# -- scripts, voice maps and pause tags ----------------------------------------------------
SCRIPT_PIECES = st.sampled_from([
    "Alice: ", "Bob:", "\n", "\n\n", "# ", "## Chapter\n", ": ", "-->", " --> ", "00:00:01,000",
    "00:00:02.500", "99:99:99,999", "1\n", "WEBVTT\n", "NOTE x\n", "<i>", "</i>", "[pause 1s]",
    "[pause", "]", "[pause 90s]", "\r\n", "\t", "é", "日本", "\u200b", "00:00:01 --> ",
    "277:46:40,000", "00:00:01,000 -> 00:00:02,000", "STYLE\n", "\n\n\n"])
SCRIPT_TEXT = st.lists(SCRIPT_PIECES | ANY_TEXT, max_size=12).map("".join)


@FUZZ
@given(text=SCRIPT_TEXT, suffix=st.sampled_from([".txt", ".md", ".srt", ".vtt"]))
def test_any_script_reads_or_is_one_sentence(tmp_path, text, suffix):
    from studio.scripts.parse import read_script

    path = tmp_path / f"script{suffix}"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        script = read_script(path)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert script.lines and all(line.text.strip() for line in script.lines)
    assert all(line.pause_after >= 0 and (line.duration is None or line.duration > 0)
               for line in script.lines)


def _stamp(ms: int, comma: bool) -> str:
    hours, ms = divmod(ms, 3_600_000)
    return f"{hours:02d}:{ms // 60_000:02d}:{ms // 1000 % 60:02d}{',' if comma else '.'}" \
           f"{ms % 1000:03d}"


CUE_MS = st.integers(min_value=0, max_value=10**10) | st.integers(min_value=0, max_value=10**5)


@FUZZ
@given(cues=st.lists(st.tuples(CUE_MS, CUE_MS, st.sampled_from(["Alice: Hi.", "Words.", "",
                                                                 "<i>x</i>", "1"]),
                               st.sampled_from([" --> ", " -> ", "-->", " --> x", " "])),
                     max_size=6), vtt=st.booleans())
def test_any_subtitle_timings_read_or_are_one_sentence(cues, vtt):
    from studio.scripts.parse import MAX_TIMELINE_S, parse_subtitles

    text = ("WEBVTT\n\n" if vtt else "") + "\n\n".join(
        f"{n}\n{_stamp(a, not vtt)}{arrow}{_stamp(b, not vtt)}\n{words}"
        for n, (a, b, words, arrow) in enumerate(cues, 1))
    try:
        script = parse_subtitles(text)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert all(line.duration and 0 < line.duration <= 1800 for line in script.lines)
    assert script.lead + sum(line.duration + line.pause_after
                             for line in script.lines) <= MAX_TIMELINE_S


@FUZZ
@given(text=SCRIPT_TEXT)
def test_any_pause_tags_split_or_are_one_sentence(text):
    from studio.engine.text import MAX_PAUSE_S, split_pauses

    try:
        parts = split_pauses(text)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert parts and all(0 <= pause <= MAX_PAUSE_S for _part, pause in parts)
    # No tag is left in the words ("[pauseAlice" is a word, not a tag).
    assert not any(re.search(r"\[\s*pause\b", part, re.IGNORECASE) for part, _ in parts)


@FUZZ
@given(data=VALUES, speakers=st.lists(st.sampled_from(["Alice", "Bob", "Narrator"]),
                                      min_size=1, max_size=3, unique=True))
def test_any_voice_map_is_read_or_is_one_sentence(tmp_path, data, speakers):
    from studio.cli.script import read_voice_map

    path = tmp_path / "voices.json"
    try:
        path.write_text(json.dumps(data, default=str), encoding="utf-8", errors="surrogatepass")
    except (TypeError, ValueError):
        return  # not JSON-serialisable: no such file can exist
    try:
        specs = read_voice_map(path, speakers)
    except UserError as exc:
        assert "\n" not in str(exc)
        return
    assert set(specs) == set(speakers)


# -- project files: any value in any column, any damage to the file ---------------------
SQL_VALUES = (st.none() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | ANY_FLOAT
              | ANY_TEXT | st.binary(max_size=12)
              | st.sampled_from([0, 1, -1, 2**63 - 1, 1e300, "", "voice", "clip", "0.5"]))
PROJECT_COLUMNS = [("lines", c) for c in ("position", "speaker", "text", "pause_after",
                                           "language", "speed", "steps", "seed", "duration",
                                           "chapter", "take", "rendered")] + [
    ("speakers", c) for c in ("name", "kind", "voice", "instruct", "seed", "clip", "ref_text",
                              "language", "colour")] + [
    ("dictionary", c) for c in ("word", "say", "language", "exact_case")] + [
    ("settings", "value"), ("line_takes", "take")]


def _small_project(path: Path) -> None:
    from studio.engine.lexicon import Entry, Lexicon
    from studio.scripts.project import Project

    with Project.create(path) as project:
        alice = project.add_speaker("Alice", "design", instruct="female", seed=1)
        bob = project.add_speaker("Bob", "voice", voice="Bob")
        first = project.add_line(alice, "Hello.", speed=1.2, steps=8, seed=4)
        project.add_line(bob, "Hi.", duration=1.5, chapter="One")
        project.choose_take(first, "take-1")
        project.set_dictionary(Lexicon([Entry("GIF", "jif", "en", True)]))
        project.set_setting("lead", "0.25")


def _project_reads_or_is_one_sentence(path: Path) -> None:
    from studio.scripts.project import Project

    try:
        with Project.open(path) as project:
            project.to_script()
            project.dictionary()
            for line in project.lines():
                project.status(line)
                project.takes_of(line.id)
            if project.lines():  # an edit, too: saved, or one sentence
                project.set_line(project.lines()[0].id, text="Changed.")
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc).endswith("."), exc


@FUZZ
@given(changes=st.lists(st.tuples(st.sampled_from(PROJECT_COLUMNS), SQL_VALUES), min_size=1,
                        max_size=3))
def test_any_value_in_a_project_column_reads_or_is_one_sentence(tmp_path, changes):
    import sqlite3
    import tempfile

    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "show.ovproj"
    _small_project(path)
    db = sqlite3.connect(path)
    try:
        with db:
            for (table, column), value in changes:
                db.execute(f"UPDATE {table} SET {column} = ?", (value,))
    except sqlite3.IntegrityError:
        return  # NOT NULL or UNIQUE: SQLite itself keeps such a value out of the file
    finally:
        db.close()
    _project_reads_or_is_one_sentence(path)


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(min_value=0, max_value=40_000),
                                st.binary(min_size=1, max_size=8)), min_size=1, max_size=6),
       cut=st.none() | st.integers(min_value=0, max_value=40_000))
def test_any_damaged_project_file_opens_or_is_one_sentence(tmp_path, edits, cut):
    import tempfile

    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    path = folder / "show.ovproj"
    _small_project(path)
    data = bytearray(path.read_bytes())
    for at, patch in edits:
        at %= len(data)
        data[at:at + len(patch)] = patch
    path.write_bytes(bytes(data[:cut]) if cut is not None else bytes(data))
    _project_reads_or_is_one_sentence(path)


# -- serve: any request body ---------------------------------------------------------

JSON_VALUES = st.recursive(st.none() | st.booleans() | ANY_INT | ANY_FLOAT | ANY_TEXT,
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(ANY_TEXT, inner, max_size=3), max_leaves=6)
# Values each key can take when it is right (weighted 3:1 over any value), so that
# bodies pass every check often enough to render as well as to be refused.
PLAUSIBLE = {
    "model": ["omnivoice", "tts-1"], "voice": ["auto", "female, low pitch", "Narrator", "alloy"],
    "response_format": ["wav", "pcm", "flac", "mp3", "opus"], "speed": [0.5, 1, 1.5, 4.5],
    "stream": [True, False], "seed": [0, 7, 2**31], "steps": [1, 2, 4],
    "guidance": [0, 2.0, 30], "position_temperature": [0, 5.0], "class_temperature": [0, 0.5],
    "language": ["en", "English", "zz", "zz\nX-Injected: 1", "zz\r\u4e2d\x85"],
    "instructions": ["male", "whisper"],
    "ref_audio": ["data:audio/wav;base64,UklGRg==", "not base64"], "ref_text": ["Hello."],
    "clean": ["trim", ["noise", "trim"], "all", ["echo"], []],
    "extra_params": [{"num_inference_steps": 2, "guidance_scale": 1.5}],
}
SPEECH_BODIES = st.fixed_dictionaries(
    {"input": st.sampled_from(["Hello there.", "Good morning, my friend."]) | ANY_TEXT},
    optional={key: st.sampled_from(values) | st.sampled_from(values) | st.sampled_from(values)
              | JSON_VALUES for key, values in PLAUSIBLE.items()})


@pytest.fixture(scope="module")
def speech_app(tiny_checkpoint, tmp_path_factory):
    """Our serve app in-process (starlette's TestClient) over a real Renderer on the tiny
    checkpoint, so a body that passes every check really renders."""
    from starlette.testclient import TestClient

    from studio.serve.app import create_app
    from studio.serve.renderer import Renderer

    data = tmp_path_factory.mktemp("serve-fuzz")
    renderer = Renderer(str(tiny_checkpoint), device="cpu", precision="fp32", limit=4,
                        data_root=data)
    renderer.start()
    with TestClient(create_app(renderer, None, data), raise_server_exceptions=False) as client:
        yield client
    renderer.stop()


@FUZZ
@given(body=SPEECH_BODIES | JSON_VALUES, raw=st.none() | st.binary(max_size=60))
def test_any_speech_body_is_audio_or_a_4xx_sentence(speech_app, body, raw):
    content = raw if raw is not None else json.dumps(body, allow_nan=True).encode("utf-8",
                                                                                 "surrogatepass")
    response = speech_app.post("/v1/audio/speech", content=content,
                               headers={"content-type": "application/json"})
    event(f"status {response.status_code}")
    assert response.status_code < 500, response.text[:300]
    for _name, value in response.headers.raw:  # nothing of the body can break a header
        assert all(0x20 <= byte <= 0x7E for byte in value), value
    if response.status_code == 200:
        assert response.headers["content-type"].startswith("audio/") and response.content
        return
    _a_private_sentence(response.json()["error"]["message"])
    assert speech_app.get("/health").json()["status"] == "ok"


def _a_private_sentence(message: str) -> None:
    """One line, a full stop, no traceback, and none of the server's folders."""
    import tempfile

    assert message.endswith(".") and "\n" not in message and "Traceback" not in message
    for folder in (Path.home(), Path(tempfile.gettempdir()), Path.cwd()):
        assert str(folder) not in message, message


# -- serve: any ref_audio ------------------------------------------------------------


def _crafted_wav(rate: int, channels: int, bits: int, frames: int, body: bytes) -> bytes:
    """A PCM WAV whose header says whatever it is told, followed by ``body``."""
    import struct

    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", 1, channels, rate, (rate * block) % 2**32, block % 2**16,
                      bits)
    return (b"RIFF" + struct.pack("<I", (36 + len(body)) % 2**32) + b"WAVE" + b"fmt "
            + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", (frames * block) % 2**32)
            + body)


def _crafted_flac(rate: int, channels: int, total: int, seconds: float) -> bytes:
    """A real FLAC of silence whose STREAMINFO then claims another rate, channel count
    and length (20, 3 and 36 bits)."""
    buf = io.BytesIO()
    sf.write(buf, np.zeros((int(seconds * 8000), 2), np.float32), 8000, format="FLAC",
             subtype="PCM_16")
    data = bytearray(buf.getvalue())
    bps = (int.from_bytes(data[18:26], "big") >> 36) & 0x1F
    packed = (rate % 2**20) << 44 | (channels % 8) << 41 | bps << 36 | total % 2**36
    data[18:26] = packed.to_bytes(8, "big")
    return bytes(data)


def _clip(rate: int, seconds: float, channels: int) -> bytes:
    """A real noise clip at any rate libsndfile accepts."""
    buf = io.BytesIO()
    wave = np.random.default_rng(rate).uniform(-0.5, 0.5, (max(1, int(seconds * rate)),
                                                            channels))
    sf.write(buf, wave.astype(np.float32), rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()


CLIPS = (
    st.binary(max_size=200)
    | st.builds(_crafted_wav, rate=st.integers(0, 2**32 - 1) | st.sampled_from(
        [1, 7_999, 8_000, 24_001, 192_000, 192_001]),
        channels=st.integers(0, 2**16 - 1) | st.integers(1, 9),
        bits=st.sampled_from([0, 7, 8, 16, 24, 32, 64]), frames=st.integers(0, 2**32 - 1),
        body=st.binary(max_size=400))
    | st.builds(_crafted_flac, rate=st.integers(0, 2**20 - 1) | st.sampled_from(
        [1, 8_000, 24_001]), channels=st.integers(0, 7), total=st.integers(0, 2**36 - 1),
        seconds=st.sampled_from([0.1, 70.0]))
    | st.builds(_clip, rate=st.integers(8_000, 96_000) | st.sampled_from([24_001, 47_999]),
                seconds=st.sampled_from([0.05, 1.0, 3.0]), channels=st.integers(1, 3))
)


@FUZZ
@given(clip=CLIPS, bare=st.booleans())
def test_any_ref_audio_is_audio_or_a_4xx_sentence(speech_app, clip, bare):
    encoded = base64.b64encode(clip).decode()
    response = speech_app.post("/v1/audio/speech", json={
        "input": "Hello there.", "steps": 2, "ref_text": "Hello.",
        "ref_audio": encoded if bare else f"data:audio/wav;base64,{encoded}"})
    event(f"status {response.status_code}")
    assert response.status_code in (200, 400, 413, 422, 429), response.text[:300]
    if response.status_code == 200:
        assert response.headers["content-type"].startswith("audio/") and response.content
    else:
        _a_private_sentence(response.json()["error"]["message"])
    assert speech_app.get("/health").json()["status"] == "ok"
