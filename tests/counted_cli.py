"""The real command line in a fresh interpreter, with its work counted.

The driver replaces the Whisper pipeline with a counting fake (there is no network
here) and counts the engine's encodes, so a test checks work that was really done,
not only what the JSON line claims.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEARD = "This is what the fake ASR heard"

DRIVER = r"""
import json, sys

import studio.engine.asr as asr
import studio.engine.engine as engine

calls = {"asr": 0, "encodes": 0}


def fake_load(self):
    def pipe(inputs):
        calls["asr"] += 1
        return {"text": " HEARD "}

    return pipe


original = engine.Engine.create_prompt


def counting_create_prompt(self, *args, **kwargs):
    calls["encodes"] += 1
    return original(self, *args, **kwargs)


asr.Transcriber._load = fake_load
engine.Engine.create_prompt = counting_create_prompt

from studio.cli import main

code = main(sys.argv[1:])
print(json.dumps({"driver": calls, "code": code}))
""".replace("HEARD", HEARD)


def counted_run(args: list[str], data: Path, tmp_path: Path) -> tuple[dict, dict]:
    env = dict(os.environ)
    env.update({"OMNIVOICE_DESKTOP_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"),
                "OMP_NUM_THREADS": "1"})
    env.pop("OMNIVOICE_PROMPT_DISK_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", DRIVER, *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 2, proc.stdout
    summary, driver = lines
    assert driver["code"] == 0, proc.stderr
    return summary, driver["driver"]
