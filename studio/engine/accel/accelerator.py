"""Accelerator: the one fallback contract for torch.compile and FlashInfer.

prepare(engine): check the machine and the model (each refusal is a named
reason), then apply the runner; if applying fails, whatever it had patched is
undone before the reason is reported. run(render): render on the accelerated
path; on any failure there (a kernel error, CUDA out of memory, ...) classify it,
unapply, render once more on the standard path and latch that mode off for the
life of this Accelerator. The render is never lost, and the report always says
what was requested, what ran and why they differ.

One Accelerator lives as long as its owner (the worker thread, or one CLI run),
so a latched mode stays off until the studio restarts. It must be used on one
thread: the one that owns the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from studio.engine.accel.platform import (
    TorchPlatform,
    compile_any_arch,
    machine_problems,
)
from studio.engine.accel.reasons import Reason, classify, fallback_text

log = logging.getLogger(__name__)

MODES = ("off", "compile", "flashinfer", "flashinfer-graph")

T = TypeVar("T")


def component(mode: str) -> str:
    """The name a mode's reasons start with."""
    return "compile" if mode == "compile" else "flashinfer"


@dataclass(frozen=True)
class AccelReport:
    requested: str
    active: str
    reason: str | None  # why active differs from requested
    codes: tuple[str, ...] = ()  # the reason codes, for tests and logs


def _passthrough() -> tuple[type[BaseException], ...]:
    """Exceptions that are the user's doing, not the accelerator's: never a fallback."""
    from studio.engine.decode import Cancelled
    from studio.engine.errors import UserError

    return (Cancelled, UserError)


class Accelerator:
    def __init__(self, requested: str = "off", platform=None,
                 on_stage: Callable[[str], None] | None = None,
                 environ: Mapping[str, str] | None = None):
        self.platform = platform if platform is not None else TorchPlatform()
        self.on_stage = on_stage
        self._environ = environ
        self._latched: dict[str, list[Reason]] = {}
        self._runner = None
        self._engine = None
        self.requested = "off"
        self.request(requested)
        self.report = AccelReport(self.requested, "off", None)

    # ------------------------------------------------------------------ setup

    def request(self, mode: str) -> None:
        """Change the requested mode; takes effect at the next prepare()."""
        if mode not in MODES:
            raise ValueError(f"unknown acceleration mode {mode!r}; use one of {', '.join(MODES)}")
        self.requested = mode

    @property
    def runner(self):
        return self._runner

    def latched(self, mode: str) -> bool:
        return mode in self._latched

    def prepare(self, engine) -> AccelReport:
        """Apply the requested mode to ``engine`` (undoing any earlier one) and report."""
        self.release()
        self._engine = engine
        mode = self.requested
        if mode == "off":
            return self._set("off", [])
        if mode in self._latched:
            return self._set("off", self._latched[mode])
        problems = self._problems(mode, engine)
        if problems:
            return self._set("off", problems)
        runner = None
        try:
            runner = self._make_runner(mode, engine)
            runner.apply()
        except Exception as exc:
            if runner is not None:
                runner.unapply()
            reason = classify(exc, during="apply")
            log.warning("%s could not be applied", mode, exc_info=True)
            self._latched[mode] = [reason]
            self.platform.empty_cache()
            return self._set("off", [reason])
        self._runner = runner
        engine.layers = runner
        return self._set(mode, [])

    def _problems(self, mode: str, engine) -> list[Reason]:
        name = component(mode)
        any_arch = name == "compile" and compile_any_arch(self._environ)
        problems = machine_problems(name, self.platform, any_arch=any_arch)
        for problem in self.platform.model_problems(name, engine.device, engine.dtype):
            # On a machine without CUDA "no CUDA GPU" already says it.
            if problem.code == "non_cuda_device" and any(p.code in ("no_cuda", "cuda_unusable")
                                                        for p in problems):
                continue
            problems.append(problem)
        return problems

    def _make_runner(self, mode: str, engine):
        if mode == "compile":
            from studio.engine.accel.compile import CompileRunner

            return CompileRunner(engine.net, self.platform, on_stage=self.on_stage)
        from studio.engine.accel.flashinfer_runner import FlashInferRunner, load_flashinfer

        return FlashInferRunner(engine.net, load_flashinfer(self.platform), self.platform,
                                graph=mode == "flashinfer-graph")

    def release(self) -> None:
        """Undo the applied mode, if any (before a reload, a mode change or shutdown)."""
        runner, self._runner = self._runner, None
        if self._engine is not None and getattr(self._engine, "layers", None) is runner:
            self._engine.layers = None
        if runner is not None:
            runner.unapply()

    # ----------------------------------------------------------------- render

    def run(self, render: Callable[[], T]) -> T:
        """``render()`` accelerated; on failure, once more on the standard path."""
        if self._runner is None:
            return render()
        try:
            return render()
        except _passthrough():
            raise
        except Exception as exc:
            mode = self.requested
            reason = classify(exc, during="run")
            log.warning("%s failed during a render; rendering on the standard path", mode,
                        exc_info=True)
            self._latched[mode] = [reason]
            self.release()
            self.platform.empty_cache()
            self._set("off", [reason])
        return render()

    def _set(self, active: str, reasons: list[Reason]) -> AccelReport:
        text = fallback_text(component(self.requested), reasons) if reasons else None
        self.report = AccelReport(self.requested, active, text, tuple(r.code for r in reasons))
        return self.report
