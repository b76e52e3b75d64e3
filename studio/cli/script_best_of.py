"""`script render --best-of N`: each line rendered N times, judged, the best one mixed.

The judging is studio.service.judging's (one :class:`Judges` for the whole render, so
each judge loads once); the seeds are service.judging.take_seeds' (line n's seed, then
+1, +2, ...). Takes of one line are compared with each other and, for a speaker who
clones a clip or a saved voice, with that clip. This module checks the option, judges
each line's takes, and shapes the ``--json`` part; a project's takes library keeps all
N takes of a line with their judgements (studio.cli.script files them).
"""

from __future__ import annotations

from pathlib import Path

from studio.cli.synth_takes import MAX_TAKES, takes_json
from studio.errors import UserError


def add_argument(render) -> None:
    render.add_argument("--best-of", type=int, default=1, metavar="N",
                        help="render each line N times, judge the takes and mix the best "
                             f"(at most {MAX_TAKES})")


def check(args) -> None:
    """One sentence for a --best-of the command cannot honour (before the model loads)."""
    if not 1 <= args.best_of <= MAX_TAKES:
        raise UserError(f"--best-of must be a whole number from 1 to {MAX_TAKES}; got "
                        f"{args.best_of}.")


class LineJudge:
    """``choose`` for render_script: judges one line's takes, remembers the verdicts."""

    def __init__(self, script, specs: dict[str, dict]):
        self.script, self.specs = script, specs
        self.device = "cpu"  # the engine's, once loaded: it picks the words judge's model
        self.judges = None  # loaded by the first line's judging
        self.judged: dict[int, tuple[list, list[int]]] = {}  # line -> (judgements, order)

    def __call__(self, n: int, renders) -> int:
        from studio.service.judging import judge_request, judges_for, ranked

        if self.judges is None:
            self.judges = judges_for(self.device)
        line = self.script.lines[n]
        spec = self.specs[line.speaker]
        takes = [(r.audio.reshape(-1), r.sample_rate) for r in renders]
        judged = judge_request(self.judges, takes, line.text, spec.get("language"),
                               _reference_path(spec))
        order = ranked(judged)
        self.judged[n] = (judged, order)
        return order[0]

    def json_fields(self, rendered) -> dict:
        """Per judged line: every take's seed, rank and scores, and the pick."""
        lines = []
        for n in sorted(self.judged):
            judged, order = self.judged[n]
            lines.append({"line": n + 1, "speaker": self.script.lines[n].speaker,
                          "pick": order[0],
                          "takes": takes_json(rendered.takes[n], judged, order)})
        return {"judged_lines": lines}


def _reference_path(spec: dict) -> Path | None:
    """The speaker's clip: its --ref, or its saved voice's; None for a designed voice."""
    if "voice" in spec:
        from studio.library.voices import VoiceLibrary

        with VoiceLibrary() as library:
            return library.clip_path(library.find(spec["voice"]).id)
    return spec.get("ref")
