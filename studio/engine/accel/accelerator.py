"""Accelerator: the one fallback contract for CUDA graphs, torch.compile and FlashInfer.

prepare(engine): check the machine and the model (each refusal is a named
reason), then apply the runner; if applying fails, whatever it had patched is
undone before the reason is reported. run(render): render on the accelerated
path; on any failure there (a kernel error, CUDA out of memory, ...) classify it,
unapply, render once more on the standard path and latch that mode off for the
life of this Accelerator. A runner that fell back inside a render on its own
(the graph runner finishes eagerly when a capture fails) says so in its
``failure``; that is latched and reported the same way. The render is never
lost, and the report always says what was requested, what ran and why they differ.

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
from studio.engine.accel.reasons import Reason, classify, fallback_text, let_go
from studio.engine.options import ACCEL_MODES

log = logging.getLogger(__name__)

T = TypeVar("T")


def component(mode: str) -> str:
    """The name a mode's reasons start with."""
    return mode if mode in ("compile", "graph") else "flashinfer"


@dataclass(frozen=True)
class AccelReport:
    requested: str
    active: str
    reason: str | None  # why active differs from requested
    codes: tuple[str, ...] = ()  # the reason codes, for tests and logs


def _passthrough() -> tuple[type[BaseException], ...]:
    """Exceptions that are the user's doing, not the accelerator's: never a fallback."""
    from studio.engine.decode import Cancelled
    from studio.errors import UserError

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
        self._mode = "off"  # the mode the runner was applied for
        self._asked = "off"  # the mode prepare() tried: the requested one, or auto's choice
        self.auto_choice: str | None = None  # why auto chose what it did (logs, Settings)
        self.requested = "off"
        self.request(requested)
        self.report = AccelReport(self.requested, "off", None)

    # ------------------------------------------------------------------ setup

    def request(self, mode: str) -> None:
        """Change the requested mode; takes effect at the next prepare()."""
        if mode not in ACCEL_MODES:
            raise ValueError(f"unknown acceleration mode {mode!r}; use one of {', '.join(ACCEL_MODES)}")
        self.requested = mode

    @property
    def runner(self):
        return self._runner

    def latched(self, mode: str) -> bool:
        return mode in self._latched

    def prepare(self, engine) -> AccelReport:
        """Apply the requested mode to ``engine`` (undoing any earlier one) and report.

        A malformed override in the environment is reported as the reason (mode
        off) rather than raised, so ``report`` always says what runs.
        """
        from studio.errors import UserError

        self.release()
        self._engine = engine
        mode = self._asked = self.requested
        if mode == "auto":
            mode = self._asked = self._auto(engine)
        if mode == "off":
            return self._set("off", [])
        if mode in self._latched:
            return self._set("off", self._latched[mode])
        try:
            problems = self._problems(mode, engine)
        except UserError as exc:  # a malformed override in the environment
            self.report = AccelReport(mode, "off", str(exc))
            return self.report
        if problems:
            return self._set("off", problems)
        runner = None
        during = "apply"
        try:
            runner = self._make_runner(mode, engine)
            runner.apply()
            # The first run, now, as a loading stage: compile's is its compilation (so a
            # failure is a setup failure); FlashInfer's runs its kernels, compiled at
            # first use on a machine (minutes), so a failure there is a kernel failure.
            during = "apply" if mode == "compile" else "run"
            runner.warm_up()
        except Exception as exc:
            reason = classify(exc, during=during)
            log.warning("%s could not be applied:\n%s", mode, let_go(exc))
        else:
            self._runner = runner
            self._mode = mode
            engine.layers = runner
            return self._set(mode, [])
        # Out of the except block: the failed warm-up's frames are gone.
        if runner is not None:
            self._unapply(runner)
        runner = None
        self._latch(mode, reason)
        self.platform.empty_cache()
        return self._set("off", [reason])

    def _auto(self, engine) -> str:
        """The mode auto means on this machine for this model (studio.engine.accel.evidence)."""
        from studio.engine.accel.evidence import choose
        from studio.errors import UserError

        def usable(mode: str) -> bool:
            try:
                return mode not in self._latched and not self._problems(mode, engine)
            except UserError:
                return False

        mode, self.auto_choice = choose(usable)
        log.info("auto acceleration: %s (%s)", mode, self.auto_choice)
        return mode

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
        if mode == "graph":
            from studio.engine.accel.padded_graph import PaddedGraphRunner

            return PaddedGraphRunner(engine.net, self.platform, on_stage=self.on_stage)
        if mode == "compile":
            from studio.engine.accel.compile import CompileRunner

            return CompileRunner(engine.net, self.platform, on_stage=self.on_stage)
        from studio.engine.accel.flashinfer_runner import FlashInferRunner, load_flashinfer

        return FlashInferRunner(engine.net, load_flashinfer(self.platform), self.platform,
                                graph=mode == "flashinfer-graph", on_stage=self.on_stage)

    def release(self) -> None:
        """Undo the applied mode, if any (before a reload, a mode change or shutdown).

        Never raises: if the runner cannot undo itself, that is logged and the
        runner is dropped anyway (its patched parameters still compute correctly).
        """
        runner, self._runner = self._runner, None
        if self._engine is not None and getattr(self._engine, "layers", None) is runner:
            self._engine.layers = None
        self._engine = None  # holding it would keep a dropped model alive through a reload
        if runner is not None:
            self._unapply(runner)

    @staticmethod
    def _unapply(runner) -> None:
        try:
            runner.unapply()
        except Exception as exc:
            log.error("undoing the accelerator failed; its patched weights stay in use:\n%s",
                      let_go(exc))

    def _latch(self, mode: str, reason: Reason) -> None:
        """Switch ``mode`` off for the life of this Accelerator."""
        self._latched[mode] = [reason]
        if mode == "compile":
            # Compiled code is cached per function, process-wide: none of it runs again.
            try:
                self.platform.reset_compiler()
            except Exception as exc:
                log.error("resetting torch.compile failed:\n%s", let_go(exc))

    # ----------------------------------------------------------------- render

    def run(self, render: Callable[[], T]) -> T:
        """``render()`` accelerated; on failure, once more on the standard path."""
        if self._runner is None:
            return render()
        try:
            result = render()
        except _passthrough():
            raise
        except Exception as exc:
            reason = classify(exc, during="run")
            log.warning("%s failed during a render; rendering on the standard path:\n%s",
                        self._mode, let_go(exc))
        else:
            failure = getattr(self._runner, "failure", None)
            if failure is not None:  # it finished the render on the standard path itself
                mode = self._mode
                self.release()
                self._latch(mode, failure)
                self._set("off", [failure])
            return result
        # Out of the except block, so the failed render's traceback (and the
        # activations its frames hold) is gone before memory is released.
        mode = self._mode
        self.release()
        self._latch(mode, reason)
        self.platform.empty_cache()
        self._set("off", [reason])
        return render()

    def _set(self, active: str, reasons: list[Reason]) -> AccelReport:
        text = fallback_text(component(self._asked), reasons) if reasons else None
        self.report = AccelReport(self.requested, active, text, tuple(r.code for r in reasons))
        return self.report
