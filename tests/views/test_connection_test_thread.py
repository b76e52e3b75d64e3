"""A connection test that answers after its view was closed ends quietly: emitting from
the probe's thread on a deleted QObject raises RuntimeError, which used to escape the
thread (model_download.py has always guarded its emits the same way)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import shiboken6


def test_an_answer_after_the_view_closed_is_dropped_quietly(qapp, monkeypatch):
    import studio.remote.client as client
    from studio.views.connection_test import ConnectionTest

    release, escaped = threading.Event(), []

    class SlowServer:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            release.wait(10)  # the server takes its time; the view closes meanwhile
            return self

        def __exit__(self, *exc):
            return False

        def info(self):
            return SimpleNamespace(dialect="OmniVoice", url="http://gpu-box:8000",
                                   models=["omnivoice"], voices=[])

    monkeypatch.setattr(client, "RemoteBackend", SlowServer)
    monkeypatch.setattr(threading, "excepthook", lambda args: escaped.append(args.exc_value))
    probe = ConnectionTest()
    probe.start("http://gpu-box:8000", None, None)
    [thread] = [t for t in threading.enumerate() if t.name == "backend-probe"]
    shiboken6.delete(probe)  # the Settings window closed while the probe waited
    release.set()
    thread.join(10)
    assert not thread.is_alive()
    assert escaped == [], f"the probe's thread raised {escaped!r}"
