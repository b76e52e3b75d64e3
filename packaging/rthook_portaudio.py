# PyInstaller runtime hook. sounddevice looks PortAudio up with
# ctypes.util.find_library("portaudio"), which on Linux asks ldconfig and never
# looks inside the bundle; point that one name at the bundled copy. Windows and
# macOS wheels carry their own PortAudio in _sounddevice_data and need no help.
import ctypes.util
import os
import sys

_bundled = os.path.join(getattr(sys, "_MEIPASS", ""), "libportaudio.so.2")
if sys.platform.startswith("linux") and os.path.exists(_bundled):
    _system_find_library = ctypes.util.find_library

    def _find_library(name, _system=_system_find_library):
        return _bundled if name == "portaudio" else _system(name)

    ctypes.util.find_library = _find_library
