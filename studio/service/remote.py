"""A render on a speech server, part by part between pause tags.

Servers know nothing of our ``[pause]`` tags or pronunciation dictionary, so a text is
sent a part at a time, each with the dictionary applied, and the exact silence asked
for is put in between here. The command line and the window's worker both render this
way; this is the one copy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from studio.errors import UserError


def render_between_pauses(text: str, language: str | None, lexicon, server_url: str,
                          render_part: Callable[[str], object],
                          on_audio: Callable[[object], None],
                          on_silence: Callable[[np.ndarray, int], None]):
    """Render each part of ``text`` with ``render_part(said)`` (a server result with
    ``audio`` and ``sample_rate``), hand it to ``on_audio``, and each pause after the
    first audio to ``on_silence(zeros, rate)``. Returns the last part's result."""
    from studio.engine.text import split_pauses

    result, rate = None, None
    for part, pause in split_pauses(text):
        if part:
            result = render_part(lexicon.apply(part, language) if lexicon else part)
            if rate is not None and result.sample_rate != rate:
                raise UserError(f"The server at {server_url} changed its sample rate within "
                                "one take; nothing was saved.")
            rate = result.sample_rate
            on_audio(result)
        if pause and rate is not None:
            on_silence(np.zeros(round(pause * rate), np.float32), rate)
    if result is None:
        raise UserError("The text has nothing to say but pauses; type some words.")
    return result
