"""One request, three front ends, the same take: the window (Design view, locked seed),
``omnivoice-desktop synth`` and ``serve``'s speech route, each started as its own
process on the tiny checkpoint, render "male" at seed 1234 with the Draft preset's 12
steps. They share one use-case layer, so their samples must agree; a front end that
builds its request its own way (another default, a dropped option) fails here.

The window keeps takes as 24-bit FLAC while the CLI and the server write 16-bit WAV, so
the window's take is compared after rounding to 16 bits: the same float samples round
to the same integers except where a value sits on a rounding boundary (at most one step,
rarely). The CLI's and the server's files are compared bit for bit.
"""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess

import httpx
import numpy as np
import soundfile as sf
from studio_process import design_generate, wait_takes

from tests.serve.servers import COMMAND, env_for, serving

TEXT = "Three front ends, one voice, the same take."
INSTRUCT = "male"
SEED = 1234
STEPS = 12  # the Draft preset
ONE_THREAD = {"OMP_NUM_THREADS": "1"}  # as serve runs in its fixture: same arithmetic everywhere


def _int16(path) -> np.ndarray:
    samples, rate = sf.read(path, dtype="int16", always_2d=True)
    assert rate == 24000, rate
    return samples[:, 0]


def _window_take(launch, tmp_path) -> tuple[np.ndarray, dict]:
    studio = launch(env=ONE_THREAD)
    studio.wait_model_loaded()
    studio.click_row("sidebar", 1)
    studio.click("designForm/advancedSection/sectionToggle")
    if not studio.get("designForm/seedLock")["checked"]:
        studio.click("designForm/seedLock")
    studio.type("designForm/seedSpin", str(SEED))
    studio.key("designForm/seedSpin", "Tab")
    design_generate(studio, TEXT, gender="Male", preset="Draft")
    assert studio.text("designAttributes/instructPreview") == INSTRUCT
    wait_takes(studio, 1)
    with sqlite3.connect(studio.data / "library.sqlite") as db:
        take_id, settings = db.execute("SELECT id, settings FROM takes").fetchone()
    assert studio.close() == 0
    audio, rate = sf.read(studio.data / "takes" / f"{take_id}.flac", dtype="float32")
    sixteen = io.BytesIO()  # written as the CLI and serve write theirs (libsndfile, 16-bit)
    sf.write(sixteen, audio, rate, format="WAV", subtype="PCM_16")
    sixteen.seek(0)
    return _int16(sixteen), json.loads(settings)


def _cli_take(tiny_checkpoint, tmp_path) -> np.ndarray:
    out = tmp_path / "cli.wav"
    done = subprocess.run(
        [COMMAND, "synth", "--model", str(tiny_checkpoint), "--text", TEXT, "--instruct",
         INSTRUCT, "--seed", str(SEED), "--steps", str(STEPS), "--out", str(out), "--quiet"],
        env={**env_for(tmp_path / "cli-data"), **ONE_THREAD}, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr
    return _int16(out)


def _served_take(tiny_checkpoint, tmp_path) -> np.ndarray:
    root = tmp_path / "serve"
    root.mkdir()
    # The fixture's serve runs fp32; this one keeps the default (auto), as the others do.
    with serving(tiny_checkpoint, root, root / "data", "--precision", "auto") as server:
        answer = httpx.post(f"{server.url}/v1/audio/speech", timeout=300, json={
            "input": TEXT, "instructions": INSTRUCT, "seed": SEED, "steps": STEPS,
            "response_format": "wav"})
    assert answer.status_code == 200, answer.text[:300]
    path = root / "served.wav"
    path.write_bytes(answer.content)
    return _int16(path)


def test_the_window_the_cli_and_serve_render_the_same_take(launch, tiny_checkpoint, tmp_path):
    window, settings = _window_take(launch, tmp_path)
    assert settings["seed"] == SEED and settings["options"]["decode"]["num_step"] == STEPS
    cli = _cli_take(tiny_checkpoint, tmp_path)
    served = _served_take(tiny_checkpoint, tmp_path)

    assert len(cli) > 2400, "a real take, not a blip"
    assert np.array_equal(cli, served), (
        f"the CLI and serve differ: {len(cli)} vs {len(served)} samples")
    assert len(window) == len(cli), f"the window's take has {len(window)} samples, the CLI's {len(cli)}"
    steps = np.abs(window.astype(np.int32) - cli.astype(np.int32))
    assert steps.max() <= 1 and (steps == 0).mean() > 0.99, (
        f"the window's take differs from the CLI's by up to {steps.max()} steps "
        f"in {(steps != 0).mean():.1%} of samples")
