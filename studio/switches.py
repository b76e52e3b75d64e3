"""On/off switches from the environment and settings: one parser, no dependencies."""

from __future__ import annotations

from studio.errors import UserError

_SWITCH_VALUES = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


def parse_switch(text: str, name: str) -> bool:
    """``0/1/false/true/off/on`` (any case, surrounding spaces ignored) as a bool;
    anything else is one UserError sentence naming ``name``."""
    parsed = _SWITCH_VALUES.get(text.strip().lower())
    if parsed is None:
        raise UserError(f"{name} must be 1/on/true or 0/off/false; got {text!r}.")
    return parsed
