"""Journey 8: quit in the middle of a render: the studio asks first (review 8: the
render was lost without a word), and after Quit it is gone within 5 s with status 0;
no half-written take is listed at the next start."""

from __future__ import annotations

import sqlite3
import time

from studio_process import LONG_TEXT, design_generate, take_count, wait_rendering


def test_quitting_mid_render_exits_quickly_and_lists_no_half_take(launch):
    studio = launch()
    studio.wait_model_loaded()
    design_generate(studio, LONG_TEXT, preset="Final")
    wait_rendering(studio)
    assert take_count(studio) == 0
    studio.request("close")  # the window's close button

    def asked():
        shown = [w for w in studio.request("windows")["windows"] if w["name"] == "quitQuestion"]
        return shown[0] if shown else None

    question = studio.wait_until(asked, 10, "the question before quitting")
    assert any(t.startswith("A render is running (0 of ") and t.endswith("; quit and lose it?")
               for t in question["texts"]), question
    started = time.monotonic()
    studio.click("quitQuestion/quitAnyway")
    code = studio.wait_exit(5)
    assert code == 0
    assert time.monotonic() - started < 5.0

    again = launch()
    again.wait_model_loaded()
    assert take_count(again) == 0, "nothing half-rendered is listed"
    with sqlite3.connect(again.data / "library.sqlite") as db:
        assert db.execute("SELECT count(*) FROM takes").fetchone()[0] == 0
    assert not list((again.data / "takes").glob("*.flac"))
    assert "ended abnormally" not in again.status(), "quitting mid-render is a clean quit"
    assert again.close() == 0
