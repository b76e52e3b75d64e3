"""Widgets only: views emit intents (request dataclasses) and render state; they never call the engine."""
