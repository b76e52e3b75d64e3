"""The server's API key lives in the system keyring, not in the settings file: written
there, a plain-text key of an older version moved there on first read, the settings
file used only where no keyring exists, and Settings says which. Every keyring here is
a test backend (never this user's own)."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import PasswordDeleteError, PasswordSetError
from PySide6.QtCore import QSettings
from studio_fakes import CPU_ONLY, PLAYABLE

from studio.keychain import SERVICE, Keychain
from studio.settings import Settings
from studio.views.settings_view import SettingsView

KEY = "backend/api_key"


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self):
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.secrets.get((service, username))

    def set_password(self, service, username, password):
        self.secrets[(service, username)] = password

    def delete_password(self, service, username):
        if self.secrets.pop((service, username), None) is None:
            raise PasswordDeleteError("not stored")


class LockedKeyring(MemoryKeyring):
    """A keyring that exists but refuses to store (locked, its service gone)."""

    def set_password(self, service, username, password):
        raise PasswordSetError("the collection is locked")


def settings_with(path: Path, backend) -> Settings:
    return Settings(QSettings(str(path), QSettings.Format.IniFormat), environ={},
                    keychain=Keychain(backend))


def file_text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def test_a_key_is_written_to_the_keyring_not_the_settings_file(tmp_path):
    ring, ini = MemoryKeyring(), tmp_path / "s.ini"
    settings = settings_with(ini, ring)
    settings.set_value(KEY, "sesame-0123")
    assert ring.secrets == {(SERVICE, KEY): "sesame-0123"}
    assert "sesame" not in file_text(ini)
    assert settings_with(ini, ring).value(KEY) == "sesame-0123"  # a later session reads it
    settings.set_value(KEY, "")  # cleared: nothing left anywhere
    assert ring.secrets == {} and settings.value(KEY) == ""


def test_a_plain_text_key_moves_into_the_keyring_on_first_read(tmp_path):
    ini = tmp_path / "s.ini"
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    old.setValue(KEY, "written-by-an-older-version")
    old.sync()
    ring = MemoryKeyring()
    assert settings_with(ini, ring).value(KEY) == "written-by-an-older-version"
    assert ring.secrets[(SERVICE, KEY)] == "written-by-an-older-version"
    assert "older-version" not in file_text(ini)
    assert settings_with(ini, ring).value(KEY) == "written-by-an-older-version"


def test_without_a_keyring_the_settings_file_keeps_it_and_says_so(tmp_path):
    ini = tmp_path / "s.ini"
    settings = settings_with(ini, fail.Keyring())
    settings.set_value(KEY, "sesame-0123")
    assert "sesame-0123" in file_text(ini)
    assert settings_with(ini, fail.Keyring()).value(KEY) == "sesame-0123"
    assert "plain text" in settings.secret_home(KEY) and "no system keyring" in \
        settings.secret_home(KEY)
    assert str(ini) in settings.secret_home(KEY)  # named, so it can be found and protected


def test_a_keyring_that_refuses_never_falls_back_to_plain_text(tmp_path):
    ini = tmp_path / "s.ini"
    settings = settings_with(ini, LockedKeyring())
    settings.set_value(KEY, "sesame-0123")
    assert "sesame" not in file_text(ini) and settings.value(KEY) == ""
    assert settings.secret_home(KEY) == ("The system keyring could not save the API key "
                                         "(the collection is locked).")


def test_the_keyring_is_asked_once_a_session(tmp_path):
    class Counting(MemoryKeyring):
        asked = 0

        def get_password(self, service, username):
            Counting.asked += 1
            return super().get_password(service, username)

    ring = Counting()
    ring.secrets[(SERVICE, KEY)] = "sesame-0123"
    settings = settings_with(tmp_path / "s.ini", ring)
    assert [settings.value(KEY) for _ in range(5)] == ["sesame-0123"] * 5
    assert Counting.asked == 1


@pytest.fixture
def machine_keyring():
    """keyring's own choice for this machine, set to a test backend for one test."""
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


def test_the_default_keychain_is_the_machines_keyring(tmp_path, machine_keyring):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        environ={})
    settings.set_value(KEY, "sesame-0123")
    assert machine_keyring.secrets == {(SERVICE, KEY): "sesame-0123"}


@pytest.mark.parametrize("backend, says", [(MemoryKeyring, "Kept in the system keyring"),
                                           (fail.Keyring, "settings file as plain text")])
def test_settings_says_where_the_key_is_kept(qtbot, tmp_path, backend, says):
    view = SettingsView(settings_with(tmp_path / "s.ini", backend()), probe=lambda: CPU_ONLY,
                        audio_status=PLAYABLE)
    qtbot.addWidget(view)
    assert view.keyHome.text().startswith(says) or says in view.keyHome.text()


def test_settings_shows_a_refused_key_and_keeps_the_old_one(qtbot, tmp_path):
    settings = settings_with(tmp_path / "s.ini", LockedKeyring())
    view = SettingsView(settings, probe=lambda: CPU_ONLY, audio_status=PLAYABLE)
    qtbot.addWidget(view)
    view.backendKeyEdit.setText("sesame-0123")
    view.backendKeyEdit.editingFinished.emit()
    assert "could not save the API key" in view.keyHome.text()
    assert view.backendKeyEdit.text() == "" and settings.value(KEY) == ""
