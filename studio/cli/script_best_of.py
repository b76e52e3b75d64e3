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
        self._references: dict[str, tuple | None] = {}

    def reference(self, speaker: str):
        """The speaker's clip as (mono samples, rate), or None for a designed voice."""
        if speaker not in self._references:
            self._references[speaker] = _reference_clip(self.specs[speaker])
        return self._references[speaker]

    def __call__(self, n: int, renders) -> int:
        from studio.engine.languages import resolve_language
        from studio.service.judging import judges_for, ranked

        if self.judges is None:
            self.judges = judges_for(self.device)
        line = self.script.lines[n]
        language, _ = resolve_language(self.specs[line.speaker].get("language"))
        takes = [(r.audio.reshape(-1), r.sample_rate) for r in renders]
        judged = self.judges.judge_takes(takes, line.text, language,
                                         self.reference(line.speaker))
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


def _reference_clip(spec: dict):
    from studio.sound.files import read_audio

    path = spec.get("ref")
    if "voice" in spec:
        from studio.library.voices import VoiceLibrary

        with VoiceLibrary() as library:
            path = library.clip_path(library.find(spec["voice"]).id)
    if path is None or not Path(path).is_file():
        return None
    clip, rate = read_audio(path)
    return clip.mean(axis=0), rate
