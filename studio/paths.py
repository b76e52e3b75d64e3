"""Where the app keeps its data: the platform's user data folder, or
``OMNIVOICE_DESKTOP_DATA_DIR`` when set (tests always set it)."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "OmniVoice Desktop"


def data_dir() -> Path:
    override = os.environ.get("OMNIVOICE_DESKTOP_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False))


def log_file() -> Path:
    return data_dir() / "omnivoice-desktop.log"


def check_data_dir() -> Path:
    """The data folder, or one sentence when something that is not a folder holds its
    place (the library, the cache and the log could not be kept)."""
    folder = data_dir()
    if folder.exists() and not folder.is_dir():
        from studio.errors import UserError

        raise UserError(f"The data folder {folder} is a file, not a folder; move the file away, "
                        "or set OMNIVOICE_DESKTOP_DATA_DIR to a folder.")
    return folder
