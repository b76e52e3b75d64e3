"""What the Settings page says about its technical choices, in plain words: what a choice
changes for the person (speed, memory, whether the takes sound different), and why there
are two speech recognisers. The rows themselves are built in ``settings_view.py``.
"""

from __future__ import annotations

from html import escape

from studio.engine.accel.reasons import REASONS

PRECISION_HINT = ("fp32 sounds exactly as the model was made but is slowest; bf16 is faster and "
                  "uses half the memory, with tiny differences in the takes; int8 is fastest on "
                  "a CPU, with more differences. Auto picks the fastest as accurate as bf16.")
# int8 by name is further from fp32 than bf16 (docs/performance.md); only Auto's partial
# int8 was measured as accurate as bf16.
PRECISION_TIP = ("How the model's numbers are stored. fp32: the reference sound, most memory, "
                 "slowest. bf16: half the memory, faster on most GPUs and new CPUs, tiny "
                 "differences from fp32. int8 (CPU): fastest and smallest, furthest from fp32. "
                 "Auto: the fastest choice measured as accurate as bf16 on this kind of "
                 "computer (on some CPUs, int8 for part of the model)")
ACCEL_HINT = ("Faster rendering on an NVIDIA GPU. CUDA graphs give the very same takes; the "
              "others may differ in tiny ways. Off works on every computer.")
NEEDS_GPU = "Needs an NVIDIA GPU"
CACHE_NOTE = ("A voice prompt is a reference clip made ready for the model. Keeping it means "
              "the same voice starts rendering at once next time, without preparing the clip "
              "again.")
PROMPTS_HINT = "One prompt per reference clip or saved voice you render with."
ASR_CHECK_HINT = ("Writes down every take with the transcription model below and keeps how "
                  "far its words are from the text: accurate, but slower and a large download "
                  "the first time. Judging does not need it.")
ASR_MODEL_HINT = ("A Whisper model id or folder: it writes a reference clip's transcript when "
                  "none is typed, and every take's when Check takes is on.")


def needs_gpu(reason: str) -> bool:
    """Whether an option's reason is only that there is no CUDA GPU here."""
    details = reason.split(": ", 1)[-1].split("; ")
    return REASONS["no_cuda"] in details


def accel_availability(unavailable: list[tuple[str, str]]) -> str:
    """The rich text under Acceleration: the options that need a GPU named once, under
    one reason; any other reason per option. (``unavailable``: (label, reason) pairs;
    each option's whole reason stays in its tooltip.)"""
    if not unavailable:
        return ("<span style='color:#1e6b2a'>Every option is available on this "
                "machine.</span>")
    gpu = [label for label, reason in unavailable if needs_gpu(reason)]
    other = [(label, reason) for label, reason in unavailable if not needs_gpu(reason)]
    lines = []
    if gpu:
        lines.append(f"<span style='color:#7a5200'>{NEEDS_GPU}:</span> "
                     + escape(", ".join(gpu)) + ".")
    if other:
        # The reason is named after the component ("flashinfer: ..."); the label already
        # says which option, so show what follows the name.
        lines.append("<span style='color:#7a5200'>Not available on this machine</span>")
        lines += [f"<b>{escape(label)}</b>: {escape(reason.split(': ', 1)[-1])}"
                  for label, reason in other]
    return "<br>".join(lines)
