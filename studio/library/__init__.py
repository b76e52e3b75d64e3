"""The library: saved voices (SQLite + files in the data folder) and their export.

No Qt here. ``db`` owns the SQLite file and its migrations, ``voices`` the saved
voices, ``bundle`` the portable ``.ovoice`` file, ``fields`` the rules and limits.
"""

from studio.library.bundle import export_voice, import_voice, read_bundle
from studio.library.db import Database
from studio.library.voices import Voice, VoiceLibrary, VoiceNotFound

__all__ = [
    "Database",
    "Voice",
    "VoiceLibrary",
    "VoiceNotFound",
    "export_voice",
    "import_voice",
    "read_bundle",
]
