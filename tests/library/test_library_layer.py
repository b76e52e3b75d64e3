"""The library is a model layer: no Qt, and its data lives in the data folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from studio.library import VoiceLibrary
from studio.library.db import DB_FILE
from studio.paths import data_dir

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_library_loads_no_qt():
    code = "import sys, studio.library; print(sorted(m for m in sys.modules if 'PySide' in m or 'Qt' in m))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_default_root_is_the_data_folder():
    with VoiceLibrary() as library:
        assert library.root == data_dir()
        assert (data_dir() / DB_FILE).is_file() and (data_dir() / "voices").is_dir()
