"""Secrets (a speech server's API key) in the operating system's keyring.

The ``keyring`` package picks this machine's keyring (macOS Keychain, Windows
Credential Locker, the Secret Service on Linux desktops). Where it finds none (a
headless box: its ``fail`` backend), the caller keeps the secret in its settings file
as before; :meth:`Keychain.available` says which, so Settings can say it too. A
keyring that exists but fails when used (locked, its service gone) is reported, never
replaced by plain text behind the user's back.
"""

from __future__ import annotations

import logging

from studio.errors import one_line

log = logging.getLogger(__name__)

SERVICE = "OmniVoice Desktop"


class Keychain:
    """Reads and writes secrets of one service; ``backend`` is a keyring backend (tests
    pass their own), or None for the one ``keyring`` chooses on this machine."""

    def __init__(self, backend=None, service: str = SERVICE):
        self._backend = backend
        self._service = service
        self._trouble: dict[str, str] = {}  # "read"/"save" -> the sentence of its last failure
        # What this session read or wrote: Settings re-reads values on every refresh, and a
        # keyring call can be a D-Bus round trip (or an unlock prompt).
        self._known: dict[str, str | None] = {}

    @property
    def trouble(self) -> str | None:
        """One sentence while the last save, or else the last read, failed."""
        return self._trouble.get("save") or self._trouble.get("read")

    def _keyring(self):
        if self._backend is None:
            try:
                import keyring

                self._backend = keyring.get_keyring()
            except Exception as exc:  # not installed, or its configuration is broken
                log.warning("no keyring: %s", exc)
                self._backend = False
        return self._backend or None

    def available(self) -> bool:
        backend = self._keyring()
        if backend is None:
            return False
        from keyring.backends import fail

        return not isinstance(backend, fail.Keyring)

    def name(self) -> str:
        """The keyring's name for people ("SecretService Keyring"), or "" when none."""
        return str(getattr(self._keyring(), "name", "")) if self.available() else ""

    def get(self, name: str) -> str | None:
        if name in self._known:
            return self._known[name]
        try:
            value = self._keyring().get_password(self._service, name)
        except Exception as exc:
            self._failed("read", exc)
            return None
        self._trouble.pop("read", None)
        self._known[name] = value
        return value

    def set(self, name: str, value: str) -> bool:
        """Stores ``value`` (an empty one deletes); False when the keyring refused."""
        from keyring.errors import PasswordDeleteError

        backend = self._keyring()
        try:
            if value:
                backend.set_password(self._service, name, value)
            else:
                try:
                    backend.delete_password(self._service, name)
                except PasswordDeleteError:  # nothing stored: nothing to delete
                    pass
        except Exception as exc:
            self._failed("save", exc)
            return False
        self._trouble.pop("save", None)
        self._known[name] = value or None
        return True

    def _failed(self, verb: str, exc: Exception) -> None:
        log.warning("the keyring failed to %s a secret: %r", verb, exc)
        detail = one_line(str(exc)).rstrip(".")[:120] or type(exc).__name__
        self._trouble[verb] = f"The system keyring could not {verb} the API key ({detail})."
