"""Reference cleanup's arguments for the MCP tools. The cleaning itself is the server's
ClipCleaner (studio.service.cleanup): the same steps, into the same cleaned-clip files, as
the Clone view's boxes, ``synth --clean`` and ``serve``'s ``clean``, so a clip cleaned in one
place is reused in the others and the prompt cache keys on the cleaned audio."""

from __future__ import annotations

CLEAN_HELP = ("clean the clip first: any of 'noise' (suppress background noise), 'trim' (cut "
              "the silence at its ends), 'loudness' (normalise the level), or 'all'; default: "
              "none, the clip as recorded")


def clean_steps(clean: list[str] | None) -> tuple[str, ...]:
    """The steps a tool's ``clean`` argument names, checked before any work."""
    from studio.judges.cleanup import parse_steps

    return parse_steps(",".join(clean or ()))
