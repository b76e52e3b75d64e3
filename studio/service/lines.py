"""Which lines of a script render together: one engine call holds lines that share a
voice and settings (everything but their text, target duration and seed), up to BATCH
of them, and the calls come in script order of their first line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from studio.errors import UserError
from studio.service.requests import RenderRequest

BATCH = 8  # lines per engine call: the script renderer's batch (studio.scripts.render)


def _voice_of(request: RenderRequest) -> RenderRequest:
    return replace(request, text="", duration=None, seeds=(None,), project_line=None)


def batches(lines: Sequence[RenderRequest]) -> list[list[int]]:
    """Indices of ``lines`` grouped into engine calls."""
    groups: dict[tuple, list[int]] = {}
    for i, line in enumerate(lines):
        # A cue's line fills its span (one chunk, untrimmed): never batched with free ones.
        groups.setdefault((_voice_of(line), line.duration is not None), []).append(i)
    return [members[start:start + BATCH] for members in groups.values()
            for start in range(0, len(members), BATCH)]


def check_spoken(text: str, number: int) -> None:
    """Refuse script line ``number`` (from 1) when it has no words: a line just added is
    empty until typed, and rendering it would make a take of nothing."""
    if not text.strip():
        raise UserError(f"Line {number} has no text yet; type what it says, or delete it.")


def line_request(speaker, line, options, *, seed: int, saved=None, project: str | None = None,
                 number: int | None = None) -> RenderRequest:
    """The one-take request that renders a project ``line`` (studio.scripts.project) in
    its ``speaker``'s voice; ``saved`` is the speaker's saved voice (studio.library's
    Voice, with ``clip``: its clip's path) when it has one. ``project`` (the project
    file) and ``number`` (the line's, from 1) file the take under the project.

    Script lines get their pauses from the mix, so no padding; a line that must fill a
    cue is one chunk rendered to the frame, untrimmed (as ``script render`` does).
    """
    check_spoken(line.text, number or 1)
    options = replace(options, pad_duration=0.0)
    if line.steps is not None:
        options = replace(options, decode=replace(options.decode, num_step=line.steps))
    if line.duration is not None:
        options = replace(options, postprocess=False, first_chunk_duration=options.chunk_duration)
    common = dict(text=line.text, language=line.language or speaker.language,
                  speed=line.speed, duration=line.duration, seeds=(seed,), options=options,
                  project=project, project_line=number)
    if speaker.kind == "voice":
        if saved is None:
            raise UserError(f"{speaker.name}'s saved voice {speaker.voice!r} is not in your "
                            "voices; pick another voice for them.")
        return RenderRequest(**common, reference=saved.clip, ref_text=saved.transcript,
                             voice_id=saved.id, mode="clone")
    if speaker.kind == "clip":
        return RenderRequest(**common, reference=Path(speaker.clip), ref_text=speaker.ref_text,
                             instruct=speaker.instruct, mode="clone")
    if not speaker.instruct:
        raise UserError(f"Give {speaker.name} a voice first: pick a saved voice or describe "
                        "one.")
    return RenderRequest(**common, instruct=speaker.instruct, mode="design")
