"""What ``auto`` acceleration picks on CUDA, by recorded evidence.

The evidence is what benchmarks/gpu_check.py measures on a GPU, distilled per
mode: its speed-up over the reference's eager render at batch 1 (one take, the
studio's common case), whether its tokens equal the reference bf16 render's at
every batch measured ("exact"), and whether its agreement with the fp32 truth is
no lower than the reference bf16's own on every checkpoint measured ("as
accurate as bf16"; gpu_check's quality section). ``auto`` is the fastest mode
that is exact or as accurate, among those this machine can run; the standard
path ("off") when none is, and always while nothing has been measured.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

# gpu_check's mode -> the acceleration mode it measures (packed is a decode layout, not one).
CHECK_MODES: Mapping[str, str] = {"padded": "off", "padded-graph": "graph",
                                  "flashinfer": "flashinfer", "flashinfer-graph": "flashinfer-graph"}
NO_EVIDENCE = "no GPU measurements are recorded yet (benchmarks/gpu_check.sh)"


@dataclass(frozen=True)
class Measured:
    mode: str  # an acceleration mode (studio.engine.options.ACCEL_MODES)
    speedup: float  # x the reference's eager render, batch 1
    exact: bool  # tokens equal to the reference bf16 render's, every batch
    as_accurate: bool  # agreement with fp32 truth >= the reference bf16's, every checkpoint


# The measurements auto decides by: distill(<gpu_check JSON>) of the latest GPU run,
# with the file it came from. None yet: auto is "off" (the standard padded path).
RECORDED: tuple[Measured, ...] = ()
RECORDED_FROM: str | None = None


def distill(results: Mapping) -> tuple[Measured, ...]:
    """The evidence in a gpu_check JSON: one entry per acceleration mode that ran as itself."""
    rows = [r for r in results.get("rows", ()) if r.get("mode") in CHECK_MODES]
    quality = results.get("quality") or {}
    out = []
    for check_mode, mode in CHECK_MODES.items():
        mine = [r for r in rows if r["mode"] == check_mode]
        ran = [r for r in mine if r.get("median_s") is not None
               and r.get("accel_active", mode) == mode]
        batch1 = [r for r in ran if r.get("batch") == 1 and r.get("speedup") is not None]
        if not batch1 or len(ran) != len(mine):
            continue  # not measured, or it fell back somewhere: no evidence for it
        exact = all(r.get("agreement") == 1.0 for r in ran)
        out.append(Measured(mode, float(batch1[0]["speedup"]), exact,
                            _as_accurate(quality, check_mode)))
    return tuple(out)


def _as_accurate(quality: Mapping, check_mode: str) -> bool:
    """Agreement with fp32 no lower than the reference bf16's, on every checkpoint measured
    (gpu_check's ``quality.checkpoints``: name -> mode -> bench_int8.compare summary)."""
    if not quality.get("bar_is_reference"):
        return False  # the bar was not the reference's bf16 tokens on that machine
    verdicts = []
    for per_mode in (quality.get("checkpoints") or {}).values():
        bar, mine = per_mode.get("reference") or {}, per_mode.get(check_mode) or {}
        if (bar.get("mean_token_agreement") is None or mine.get("mean_token_agreement") is None
                or mine.get("accel_active", CHECK_MODES[check_mode]) != CHECK_MODES[check_mode]):
            return False  # not measured, or it fell back
        verdicts.append(mine["mean_token_agreement"] >= bar["mean_token_agreement"])
    return bool(verdicts) and all(verdicts)


def ranked(measured: Iterable[Measured]) -> list[Measured]:
    """The modes auto may use, fastest first: exact, or as accurate as bf16."""
    return sorted((m for m in measured if m.exact or m.as_accurate), key=lambda m: -m.speedup)


def choose(usable: Callable[[str], bool],
           measured: Iterable[Measured] | None = None) -> tuple[str, str]:
    """(the mode auto runs, why): the fastest acceptable mode that ``usable`` allows here."""
    measured = RECORDED if measured is None else tuple(measured)
    if not measured:
        return "off", NO_EVIDENCE
    for m in ranked(measured):
        if m.mode == "off" or usable(m.mode):
            kind = "token-exact" if m.exact else "as accurate as bf16 against fp32"
            return m.mode, f"{m.mode}: fastest measured ({m.speedup:.2f}x the reference) and {kind}"
    return "off", "no measured mode that is exact or as accurate as bf16 can run here"
