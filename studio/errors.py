"""The errors a person is meant to read, and how a sentence is shown on one line.

The bottom of the layers: it imports nothing of ours, so every layer (engine, library,
serve, the CLI, the views) may raise and show these without importing upward.
"""

from __future__ import annotations

import unicodedata


class UserError(Exception):
    """A problem the user caused or can fix, carried as one readable sentence.

    The CLI prints it and exits with status 2; the studio shows it on the status
    bar. Anything else that escapes the engine is a bug and goes to the log.
    """


class ModelNotDownloaded(UserError):
    """The configured model is a repo id with no copy on this computer yet: the studio
    offers the download instead of reporting a failure."""


def one_line(message: str) -> str:
    """A sentence as one line: control characters it quotes from the user's input
    (a line break in an instruct, say) are shown escaped, as Python writes them."""
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch) == "Cc" else ch for ch in message)
