"""Every setting of the app, declared once, stored with QSettings.

A setting may have an environment override (``OMNIVOICE_*``); while it is set,
it wins over the stored value and the Settings view shows it as such. Views and
the worker controller read settings through one :class:`Settings` object. A secret
setting (the server's API key) lives in the system keyring (:mod:`studio.keychain`),
in the settings file only on a machine that has no keyring.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QSettings, Signal

from studio.engine.options import ACCEL_MODES, DEFAULT_REPO, DEVICE_CHOICES, PRECISION_CHOICES
from studio.errors import UserError
from studio.judges.scores import WEIGHTS
from studio.keychain import Keychain
from studio.service.requests import PASS_AT, JudgingSettings
from studio.switches import parse_switch

ORGANIZATION = "OmniVoice"
APPLICATION = "OmniVoice Desktop"

# One parser for on/off switches, shared with the CLI's environment handling.
parse_bool = parse_switch


def parse_accel(text: str, name: str) -> str:
    """OMNIVOICE_FLASHINFER=0|1|graph, as the acceleration setting's values."""
    value = text.strip().lower()
    mapping = {"graph": "flashinfer-graph", "compile": "compile"}
    if value in mapping:
        return mapping[value]
    return "flashinfer" if parse_bool(value, name) else "off"


@dataclass(frozen=True)
class Setting:
    key: str
    default: Any
    label: str
    env: str | None = None
    choices: tuple[str, ...] | None = None
    parse_env: Callable[[str, str], Any] | None = None
    secret: bool = False  # kept in the system keyring (a str setting)

    def coerce(self, raw: Any) -> Any:
        """QSettings hands back strings on some platforms: restore the declared type."""
        kind = type(self.default)
        if raw is None:
            return self.default
        try:
            if kind is bool:
                return raw if isinstance(raw, bool) else parse_bool(str(raw), self.key)
            value = kind(raw)
        except (TypeError, ValueError, UserError):
            return self.default
        if self.choices is not None and value not in self.choices:
            return self.default
        return value


SETTINGS: tuple[Setting, ...] = (
    Setting("model/source", DEFAULT_REPO, "Model", env="OMNIVOICE_MODEL"),
    Setting("model/device", "auto", "Device", env="OMNIVOICE_DEVICE",
            choices=DEVICE_CHOICES),
    Setting("model/precision", "auto", "Precision", env="OMNIVOICE_PRECISION",
            choices=PRECISION_CHOICES),
    Setting("accel/mode", "off", "Acceleration", env="OMNIVOICE_FLASHINFER",
            choices=ACCEL_MODES, parse_env=parse_accel),
    Setting("cache/disk", True, "Keep voice prompts on disk", env="OMNIVOICE_PROMPT_DISK_CACHE",
            parse_env=parse_bool),
    Setting("cache/disk_items", 32, "Voice prompts kept on disk"),
    Setting("cache/memory_items", 8, "Voice prompts kept in memory"),
    Setting("audio/output_device", -1, "Audio output device"),
    Setting("audio/play_while_rendering", True, "Play as it renders"),
    Setting("asr/model", "openai/whisper-large-v3-turbo", "Transcription model",
            env="OMNIVOICE_ASR_MODEL"),
    # 0 keeps takes forever: a take must never be lost behind the user's back, and
    # a starred-only rule would drop takes nobody thought to star. Opt in to pruning.
    Setting("takes/retention_days", 0.0, "Delete unstarred takes older than (days, 0 = never)"),
    Setting("takes/asr_check", False, "Check takes with speech recognition"),
    Setting("judging/enabled", True, "Judge takes after rendering"),
    # Whole percents: how much each judge counts in the combined score that ranks takes.
    Setting("judging/weight_voice", round(WEIGHTS["voice"] * 100), "Voice match weight"),
    Setting("judging/weight_words", round(WEIGHTS["words"] * 100), "Words weight"),
    Setting("judging/weight_sound", round(WEIGHTS["sound"] * 100), "Sound weight"),
    Setting("judging/pass_at", round(PASS_AT * 100), "A take passes at"),
    Setting("backend/kind", "local", "Render on", choices=("local", "remote")),
    Setting("backend/url", "", "Server address"),
    Setting("backend/api_key", "", "API key", secret=True),
    Setting("backend/dialect", "auto", "Server kind",
            choices=("auto", "vllm-omni", "omnivoice-server", "omnivoice-desktop")),
)

BY_KEY: Mapping[str, Setting] = {s.key: s for s in SETTINGS}


class Settings(QObject):
    """The one owner of settings. ``changed(key)`` fires after a stored value changes."""

    changed = Signal(str)

    def __init__(self, store: QSettings | None = None, environ: Mapping[str, str] | None = None,
                 keychain: Keychain | None = None):
        super().__init__()
        self._store = store if store is not None else QSettings(ORGANIZATION, APPLICATION)
        self._environ = os.environ if environ is None else environ
        self._keychain = keychain if keychain is not None else Keychain()

    def override(self, key: str) -> str | None:
        """The environment variable overriding ``key`` right now, if any. A variable set to
        something the setting cannot take overrides nothing (see :meth:`problem`)."""
        env = self._env_name(key)
        if env is None or self._from_env(BY_KEY[key], env)[1] is not None:
            return None
        return env

    def problem(self, key: str) -> str | None:
        """One sentence when ``key``'s environment variable is set to a value it cannot
        take; the stored value is used instead of failing (the studio must open)."""
        env = self._env_name(key)
        return None if env is None else self._from_env(BY_KEY[key], env)[1]

    def problems(self) -> list[str]:
        return [p for p in (self.problem(s.key) for s in SETTINGS) if p]

    def value(self, key: str) -> Any:
        env = self.override(key)
        if env is not None:
            return self._from_env(BY_KEY[key], env)[0]
        return self.stored(key)

    def _env_name(self, key: str) -> str | None:
        setting = BY_KEY[key]
        if setting.env and self._environ.get(setting.env, "").strip():
            return setting.env
        return None

    def _from_env(self, setting: Setting, env: str) -> tuple[Any, str | None]:
        """(value, None), or (None, the sentence saying why the variable is ignored)."""
        raw = self._environ[env].strip()
        ignored = "it is ignored and the saved setting is used"
        if setting.parse_env is not None:
            try:
                return setting.parse_env(raw, env), None
            except UserError as exc:
                return None, f"{str(exc).rstrip('.')}; {ignored}."
        if setting.choices is not None:
            if raw.lower() not in setting.choices:
                return None, (f"{env} must be one of {', '.join(setting.choices)}; got "
                              f"{raw!r}, so {ignored}.")
            return raw.lower(), None
        return setting.coerce(raw), None

    def stored(self, key: str) -> Any:
        setting = BY_KEY[key]
        if setting.secret and self._keychain.available():
            return self._from_keychain(setting)
        return setting.coerce(self._store.value(key, setting.default))

    def _from_keychain(self, setting: Setting) -> str:
        """The keyring's value. A plain-text one in the settings file was written when
        there was no keyring (so it is the newer): it moves into the keyring, and leaves
        the file once the keyring holds it."""
        plain = setting.coerce(self._store.value(setting.key, setting.default))
        if plain and self._keychain.set(setting.key, plain):
            self._store.remove(setting.key)
            self._store.sync()
        if plain:
            return plain
        return setting.coerce(self._keychain.get(setting.key) or setting.default)

    def secret_home(self, key: str) -> str:
        """Where a secret setting is kept, in words for the Settings view."""
        if not self._keychain.available():
            # Named, so the user can find the file and keep it private.
            return (f"Kept in this user's settings file as plain text "
                    f"({self._store.fileName()}): this computer has no system keyring.")
        return self._keychain.trouble or f"Kept in the system keyring ({self._keychain.name()})."

    def set_value(self, key: str, value: Any) -> None:
        setting = BY_KEY[key]
        value = setting.coerce(value)
        if value == self.stored(key):
            return
        if setting.secret and self._keychain.available():
            if not self._keychain.set(key, value):
                return  # unchanged; secret_home says why
        else:
            self._store.setValue(key, value)
            self._store.sync()
        self.changed.emit(key)

    # Window geometry and last-used inputs are plain state, not declared settings.
    def state(self, key: str, default: Any = None) -> Any:
        return self._store.value(f"state/{key}", default)

    def set_state(self, key: str, value: Any) -> None:
        self._store.setValue(f"state/{key}", value)


def judging_settings(settings: Settings) -> JudgingSettings:
    """Settings → Judging as the worker reads it. Weights all at 0 count the judges equally
    (a combined score of nothing would rank no take)."""
    weights = {judge: max(0, min(100, settings.value(f"judging/weight_{judge}"))) / 100
               for judge in WEIGHTS}
    if not any(weights.values()):
        weights = dict.fromkeys(WEIGHTS, 1.0)
    pass_at = max(0, min(100, settings.value("judging/pass_at"))) / 100
    return JudgingSettings(bool(settings.value("judging/enabled")), tuple(weights.items()),
                           pass_at)
