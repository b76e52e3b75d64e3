"""The library: saved voices and takes (SQLite + files in the data folder) and their export.

No Qt here. ``db`` owns the SQLite file and its migrations, ``voices`` the saved
voices, ``bundle`` the portable ``.ovoice`` file, ``fields`` the rules and limits,
``takes`` the take library, ``suspect`` the take badges, ``export`` take export.

The names below are imported on first use: ``bundle`` and ``voices`` need torch,
and the GUI thread reads takes without paying for it (torch loads on the worker).
"""

from __future__ import annotations

import importlib
from types import MappingProxyType

_WHERE = MappingProxyType({
    "Database": "studio.library.db",
    "Voice": "studio.library.voices",
    "VoiceLibrary": "studio.library.voices",
    "VoiceNotFound": "studio.library.voices",
    "export_voice": "studio.library.bundle",
    "import_voice": "studio.library.bundle",
    "read_bundle": "studio.library.bundle",
    "Take": "studio.library.takes",
    "TakeLibrary": "studio.library.takes",
    "TakeNotFound": "studio.library.takes",
})

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'studio.library' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
