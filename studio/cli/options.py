"""The options more than one subcommand has, each declared once here, its choices read
from the engine's one table (studio.engine.options), as Settings and `serve` read them.

Help texts differ where a subcommand means something narrower (``voices save --model``
names the checkpoint that encodes the clip), so a caller may pass its own.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.engine.options import (
    ACCEL_MODES,
    CHUNKINGS,
    DECODE_MODES,
    DEFAULT_REPO,
    DEVICE_CHOICES,
    PRECISION_CHOICES,
    DecodeOptions,
)


class Parser(argparse.ArgumentParser):
    """argparse, with the CLI's contract for a mistake: one sentence, exit status 2
    (not a usage block), and how to see the options."""

    def error(self, message: str):
        where = self.prog
        self.exit(2, f"error: {message[0].upper()}{message[1:].rstrip('.')}; run {where} --help "
                     "for the options.\n")


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def add_model(parser, help: str = "checkpoint folder or Hugging Face repo id") -> None:
    parser.add_argument("--model", help=help)


def add_model_with_default(parser) -> None:
    add_model(parser, f"checkpoint folder or Hugging Face repo id (default {DEFAULT_REPO})")


def add_hardware(parser) -> None:
    """--device and --precision: where the model runs and in which number format."""
    parser.add_argument("--device", default="auto", choices=DEVICE_CHOICES)
    parser.add_argument("--precision", default="auto", choices=PRECISION_CHOICES)


def add_steps(parser, help: str = "decoding steps") -> None:
    parser.add_argument("--steps", type=positive_int, default=DecodeOptions().num_step, help=help)


def add_decoding(parser) -> None:
    """Every decode setting the local engine takes, with the engine's defaults."""
    default = DecodeOptions()
    add_steps(parser, f"decoding steps (default {default.num_step})")
    parser.add_argument("--guidance", type=float, default=default.guidance_scale,
                        help="classifier-free guidance scale")
    parser.add_argument("--t-shift", type=float, default=default.t_shift,
                        help="time-step shift of the schedule")
    parser.add_argument("--layer-penalty", type=float, default=default.layer_penalty,
                        help="codebook layer penalty")
    parser.add_argument("--position-temperature", type=float,
                        default=default.position_temperature)
    parser.add_argument("--class-temperature", type=float, default=default.class_temperature)


def add_layout(parser) -> None:
    """--decode and --accel: how the engine lays out and speeds up a render."""
    parser.add_argument("--decode", default="auto", choices=DECODE_MODES,
                        help="packed: one row, no padding; padded: the reference-equal layout; "
                             "auto (default): the faster one measured on this device (packed on "
                             "the CPU, padded on CUDA)")
    parser.add_argument("--accel", default="off", choices=ACCEL_MODES, help="acceleration path")


def add_chunking(parser) -> None:
    parser.add_argument("--chunking", default="quick-start", choices=CHUNKINGS,
                        help="quick-start (default): a short first chunk, so audio starts early; "
                             "reference: the reference implementation's chunks")


def add_seed(parser, help: str) -> None:
    parser.add_argument("--seed", type=int, help=help)


def add_dictionary(parser) -> None:
    parser.add_argument("--dictionary", type=Path,
                        help="a pronunciation dictionary (JSON), before the data folder's own")


def add_json(parser, help: str = "print one JSON line") -> None:
    parser.add_argument("--json", action="store_true", help=help)
