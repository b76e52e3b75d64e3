"""`synth --takes N --pick best`: render N variations, judge them, keep the best.

The judging is studio.service.judging's; this module only checks the options, picks the
seeds and shapes the ``--json`` part (every take's scores and the pick).
"""

from __future__ import annotations

from studio.errors import UserError

MAX_TAKES = 16  # one batch of this many takes already costs minutes on a CPU


def add_arguments(synth) -> None:
    synth.add_argument("--takes", type=int, default=1,
                       help="render this many variations (seeds) and judge them")
    synth.add_argument("--pick", choices=("best",), default="best",
                       help="which of the --takes to write: the best combined judges' score")


def check(args) -> None:
    """One sentence for a --takes the command cannot honour (before the model loads)."""
    if not 1 <= args.takes <= MAX_TAKES:
        raise UserError(f"--takes must be a whole number from 1 to {MAX_TAKES}; got "
                        f"{args.takes}.")
    if args.takes == 1:
        return
    if args.stream:
        raise UserError("--stream writes a take while it renders, but --takes picks one after "
                        "all are judged; leave out one of them.")
    if args.backend is not None:
        raise UserError("--takes judges takes rendered on this computer; leave out --backend "
                        "or --takes.")


def seeds(args) -> list[int | None]:
    """--seed S gives S, S+1, ...; without it each take gets a fresh seed."""
    from studio.service.judging import take_seeds

    return take_seeds(args.seed, args.takes)


def pick(args, text: str, language: str | None, results, reference_path,
         device: str = "cpu") -> tuple[int, dict]:
    """(index of the take to write, the --json fields for every take and the pick)."""
    from studio.service.judging import judge_request, judges_for, ranked

    judges = judges_for(device, args.asr_model)
    takes = [(r.audio.reshape(-1), r.sample_rate) for r in results]
    judged = judge_request(judges, takes, text, language, reference_path)
    order = ranked(judged)
    return order[0], {"pick": order[0], "takes": takes_json(results, judged, order)}


def takes_json(results, judged, order: list[int]) -> list[dict]:
    """Every take's seed, rank (1 = the pick), length and judgements, in render order."""
    return [{"seed": r.seed, "rank": order.index(i) + 1,
             "audio_seconds": round(r.audio.shape[-1] / r.sample_rate, 4), **j.to_dict()}
            for i, (r, j) in enumerate(zip(results, judged))]
