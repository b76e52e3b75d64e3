"""Small pieces of the sentences every front end writes (the window, the CLI): no Qt."""

from __future__ import annotations


def count_words(count: int, noun: str) -> str:
    """"1 line", "3 lines": the count with its noun, singular or plural."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
