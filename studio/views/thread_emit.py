"""Emitting from a plain Python thread to a QObject that may be gone.

A probe or a download outlives its view when the window closes mid-run; the signal's
QObject is then deleted and ``emit`` raises RuntimeError on the worker thread. That
answer has nobody to go to, so it is dropped, and the caller says so if it matters.
"""

from __future__ import annotations


def emit_from_thread(signal, *args) -> bool:
    """Emit ``signal(*args)``; False when its QObject was deleted (nothing was sent)."""
    try:
        signal.emit(*args)
    except RuntimeError:  # "Signal source has been deleted": the view closed meanwhile
        return False
    return True
