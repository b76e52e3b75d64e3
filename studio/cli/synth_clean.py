"""`synth --ref CLIP --clean noise,trim,loudness`: the reference cleaned before it is encoded,
the same way (and into the same cleaned-clip files) as the Clone view's cleanup boxes.

The cleaning is studio.service.cleanup's; this module only reads the option, runs it
before the model loads and shapes the ``--json`` part (what each step did).
"""

from __future__ import annotations

import sys

from studio.errors import UserError


def add_arguments(synth) -> None:
    synth.add_argument("--clean", default=None, metavar="STEPS",
                       help="clean the reference clip first: any of noise,trim,loudness "
                            "(comma-separated) or all; default: none, as in the Clone view")


def steps(args) -> tuple[str, ...]:
    """The steps asked for, checked before anything loads."""
    from studio.judges.cleanup import DEFAULT_STEPS, parse_steps

    if args.clean is None:
        return DEFAULT_STEPS if args.ref is not None else ()
    chosen = parse_steps(args.clean)
    if chosen and args.ref is None:
        raise UserError("--clean cleans a reference clip; give the clip with --ref, or leave "
                        "--clean out.")
    return chosen


def apply(args, chosen: tuple[str, ...], quiet: bool) -> dict | None:
    """Clean ``args.ref`` and put the cleaned clip in its place; the ``--json`` part."""
    if not chosen:
        return None
    from studio.judges.cleanup import Cleaner, speaker_encoder_or_none
    from studio.service.cleanup import cleaned_clip

    made = cleaned_clip(args.ref, chosen, Cleaner(speakers=speaker_encoder_or_none()))
    for warning in made.report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not quiet:
        print(f"cleanup: {made.report.summary()}", file=sys.stderr)
    args.ref = made.path
    return {"clip": str(made.path), "reused": made.reused, **made.report.to_dict()}
