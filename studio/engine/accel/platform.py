"""What the machine offers, behind one object the tests replace.

Every device, arch and package question the accelerators ask goes through a
``Platform``, so each fallback branch can be exercised on a CPU by handing in
an object that describes another machine.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from studio.engine.accel.reasons import Reason, reason
from studio.switches import parse_switch

# FlashInfer's attention kernels need Ampere (sm_80) or newer.
FLASHINFER_MIN_CAPABILITY = (8, 0)

# Lets torch.compile run on a GPU whose arch is not in torch.cuda.get_arch_list().
COMPILE_ANY_ARCH_ENV = "OMNIVOICE_COMPILE_ANY_ARCH"


def compile_any_arch(environ: Mapping[str, str] | None = None) -> bool:
    """The override switch (default off); a malformed value is one UserError sentence."""
    value = (os.environ if environ is None else environ).get(COMPILE_ANY_ARCH_ENV, "").strip()
    return parse_switch(value, COMPILE_ANY_ARCH_ENV) if value else False


class TorchPlatform:
    """The real machine: torch.cuda and the installed packages."""

    def __init__(self, torch: Any = None, find_spec: Callable[[str], Any] | None = None):
        self._torch = torch
        self._find_spec = find_spec or importlib.util.find_spec

    @property
    def torch(self) -> Any:
        if self._torch is None:
            import torch

            self._torch = torch
        return self._torch

    def has_package(self, name: str) -> bool:
        try:
            return self._find_spec(name) is not None
        except ValueError:  # imported already, without a spec (a module made at run time)
            return sys.modules.get(name) is not None
        except ImportError:
            return False

    def import_module(self, name: str):
        return importlib.import_module(name)

    def gpu(self) -> tuple[Reason | None, tuple[int, int] | None, list[str]]:
        """(why there is no usable GPU, its compute capability, the torch build's arch list)."""
        cuda = getattr(self.torch, "cuda", None)
        if cuda is None or not cuda.is_available():
            return reason("no_cuda"), None, []
        try:
            capability = tuple(cuda.get_device_capability())
            archs = list(cuda.get_arch_list())
        except (RuntimeError, AssertionError) as exc:  # a broken driver says so here
            return reason("cuda_unusable", error=type(exc).__name__), None, []
        return None, (int(capability[0]), int(capability[1])), archs

    def compile(self, fn: Callable) -> Callable:
        return self.torch.compile(fn, dynamic=True)

    def reset_compiler(self) -> None:
        """Drop all of torch.compile's cached code (it is cached per function, process-wide)."""
        dynamo = getattr(self.torch, "_dynamo", None)
        if dynamo is not None:
            dynamo.reset()

    def graph_pool(self) -> Any:
        """A memory-pool handle that several CUDA-graph captures can share."""
        return self.torch.cuda.graph_pool_handle()

    def capture_graph(self, fn: Callable[[], Any], pool: Any = None):
        """Warm ``fn`` up on a side stream, capture it into ``pool`` (a ``graph_pool()``
        handle; None: a private pool), return (replay, output)."""
        torch = self.torch
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=pool):
            out = fn()
        return graph.replay, out

    def model_problems(self, component: str, device, dtype) -> list[Reason]:
        return model_problems(component, device, dtype)

    def empty_cache(self) -> None:
        cuda = getattr(self.torch, "cuda", None)
        if cuda is not None and cuda.is_available():
            cuda.empty_cache()


def arch_supported(capability: tuple[int, int], archs: list[str]) -> bool:
    """Native code for the GPU, or PTX for an older arch of the same major the driver can JIT."""
    major, minor = capability
    if f"sm_{major}{minor}" in archs:
        return True
    return any(
        a.startswith("compute_") and a[8:].isdigit() and int(a[8:]) <= major * 10 + minor
        and int(a[8:]) // 10 == major
        for a in archs
    )


def arch_name(capability: tuple[int, int]) -> str:
    return f"sm_{capability[0]}{capability[1]}"


def machine_problems(component: str, platform, any_arch: bool = False) -> list[Reason]:
    """What stops ``component`` ("compile" or "flashinfer") on this machine, before any model."""
    problems: list[Reason] = []
    if component == "flashinfer" and not platform.has_package("flashinfer"):
        problems.append(reason("package_missing", package="package"))
    no_gpu, capability, archs = platform.gpu()
    if no_gpu is not None:
        problems.append(no_gpu)
    elif component == "flashinfer" and capability < FLASHINFER_MIN_CAPABILITY:
        problems.append(reason("arch_too_old", arch=arch_name(capability)))
    elif not any_arch and not arch_supported(capability, archs):
        problems.append(reason("arch_not_in_build", arch=arch_name(capability)))
    if component == "compile" and not platform.has_package("triton"):
        problems.append(reason("package_missing", package="triton"))
    return problems


def model_problems(component: str, device, dtype) -> list[Reason]:
    """What stops ``component`` for a model loaded on ``device`` in ``dtype``."""
    import torch

    problems: list[Reason] = []
    if torch.device(device).type != "cuda":
        problems.append(reason("non_cuda_device", device=torch.device(device).type))
    if component == "flashinfer" and dtype == torch.float32:
        problems.append(reason("fp32_weights"))
    return problems
