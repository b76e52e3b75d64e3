"""vLLM-Omni 0.30's own speech request model, read from its installed wheel.

CI installs the wheel with ``--no-deps`` (its dependency list is vLLM's: torch,
diffusers, onnxruntime and more), so the package itself cannot be imported:
``vllm_omni/__init__.py`` imports vLLM. Its request model,
``vllm_omni/entrypoints/openai/protocol/audio.py``, needs only pydantic and numpy,
so it is loaded on its own from the file the wheel installed. No shim: nothing of
vLLM is stubbed. A missing or different wheel fails the tests that use it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from types import ModuleType

VERSION = "0.30.0"
PROTOCOL = "vllm_omni/entrypoints/openai/protocol/audio.py"


def speech_protocol() -> ModuleType:
    """The module holding ``OpenAICreateSpeechRequest``, as vLLM-Omni ships it."""
    try:
        wheel = importlib.metadata.distribution("vllm-omni")
    except importlib.metadata.PackageNotFoundError:
        raise AssertionError(f"vllm-omni is not installed; install it with pip install "
                             f"--no-deps vllm-omni=={VERSION} (the README's test command "
                             "does).") from None
    assert wheel.version == VERSION, f"vllm-omni {wheel.version} installed, {VERSION} expected"
    path = wheel.locate_file(PROTOCOL)
    spec = importlib.util.spec_from_file_location("vllm_omni_protocol_audio", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
