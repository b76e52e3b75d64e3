"""Every named reason an acceleration path is not used, declared once.

A reason is a code and the fields of its sentence. The status bar, the Settings
view, the log and the CLI's ``--json`` line all show the same text:
``"<component>: <detail>, rendered on the standard path"`` after a render, or
``"<component>: <detail>"`` when the probe greys out an option before one.
What each reason means and what to do about it is in docs/performance.md.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

# code -> detail template. The component ("flashinfer", "compile") is prefixed.
REASONS: dict[str, str] = {
    "package_missing": "{package} not installed",
    "torch_missing": "torch is not installed",
    "no_cuda": "no CUDA GPU",
    "cuda_unusable": "CUDA GPU not usable ({error})",
    "non_cuda_device": "the model runs on {device}, not on a CUDA GPU",
    "arch_too_old": "GPU {arch} is older than sm_80",
    "arch_not_in_build": "GPU {arch} not in this torch build",
    "fp32_weights": "the model is loaded in fp32 and the kernels need bf16 or fp16",
    "apply_failed": "setup failed ({error})",
    "kernel_failed": "kernel failed at run time ({error})",
    "out_of_memory": "CUDA out of memory",
    "graph_capture_failed": "CUDA graph capture failed ({error})",
}

FALLBACK_TAIL = "rendered on the standard path"


@dataclass(frozen=True)
class Reason:
    """One named reason: a code from REASONS and the values of its fields."""

    code: str
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def detail(self) -> str:
        return REASONS[self.code].format(**dict(self.fields))

    def text(self, component: str) -> str:
        """The sentence shown after a render fell back."""
        return f"{component}: {self.detail}, {FALLBACK_TAIL}"


def reason(code: str, **fields: object) -> Reason:
    if code not in REASONS:
        raise KeyError(f"unknown fallback reason {code!r}")
    return Reason(code, tuple((k, str(v)) for k, v in sorted(fields.items())))


def unavailable(component: str, reasons: list[Reason]) -> str:
    """The probe's wording: every problem of one component, without the tail."""
    return f"{component}: {'; '.join(r.detail for r in reasons)}"


def fallback_text(component: str, reasons: list[Reason]) -> str:
    """The fallback sentence for one or more reasons of one component."""
    return f"{unavailable(component, reasons)}, {FALLBACK_TAIL}"


def _error_name(exc: BaseException) -> str:
    return type(exc).__name__


def is_out_of_memory(exc: BaseException) -> bool:
    import torch

    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    # Some kernels (and older torch builds) report it as a plain RuntimeError.
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def classify(exc: BaseException, during: str = "run") -> Reason:
    """The reason for an exception from an accelerated path.

    ``during`` is "apply" (while patching the model), "capture" (while capturing a
    CUDA graph) or "run" (while rendering).
    """
    if is_out_of_memory(exc):
        return reason("out_of_memory")
    if isinstance(exc, ImportError):
        return reason("package_missing", package=(exc.name or "package"))
    code = {"apply": "apply_failed", "capture": "graph_capture_failed"}.get(during, "kernel_failed")
    return reason(code, error=_error_name(exc))


def let_go(exc: BaseException) -> str:
    """The traceback of ``exc`` as text, then every finished frame in it cleared.

    A failed render's frames hold its activations (on a GPU, maybe gigabytes);
    text in the log and cleared frames mean nothing keeps them alive, not a
    logging handler that keeps records, nor a caller that keeps the exception.
    """
    text = "".join(traceback.format_exception(exc)).rstrip()
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__
    return text
