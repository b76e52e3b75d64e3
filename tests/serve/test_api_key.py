"""An API key that is empty or blank (an unset variable in ``--api-key "$KEY"``) is an
error before anything listens, never a server without authentication."""

from __future__ import annotations

import subprocess

import pytest

from tests.serve.servers import COMMAND, env_for, free_port


@pytest.mark.parametrize("key", ["", "   ", "\t\n"])
def test_an_empty_or_blank_key_is_one_sentence_and_exit_2(tiny_checkpoint, tmp_path, key):
    done = subprocess.run(
        [COMMAND, "serve", "--model", str(tiny_checkpoint), "--port", str(free_port()),
         "--device", "cpu", "--api-key", key],
        env=env_for(tmp_path / "data"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "API key" in lines[0], lines
    assert "Serving" not in done.stderr


@pytest.mark.parametrize("key", [" padded", "tab\there", "caf\u00e9"])
def test_a_key_no_client_could_send_is_refused(key):
    from studio.cli.serve import check_api_key
    from studio.errors import UserError

    with pytest.raises(UserError, match="API key"):
        check_api_key(key)


def test_a_real_key_and_no_key_are_kept():
    from studio.cli.serve import check_api_key

    assert check_api_key("test-key 0123") == "test-key 0123"
    assert check_api_key(None) is None


def test_the_open_network_warning_names_the_missing_key_not_the_option():
    from studio.cli.serve import open_network_warning

    said = open_network_warning("0.0.0.0", None)
    assert "0.0.0.0" in said and "no API key" in said and "without --api-key" not in said
    assert open_network_warning("0.0.0.0", "k") is None
    assert open_network_warning("127.0.0.1", None) is None
    assert open_network_warning("::1", None) is None
