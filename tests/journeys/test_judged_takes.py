"""Issue 28 in the launched studio: two takes rendered in Design are judged by the worker
after the render, and each take's judgement is stored with it in the take library."""

from __future__ import annotations

import json
import sqlite3

from studio_process import design_generate, wait_takes


def test_two_design_takes_are_judged_and_stored(launch):
    studio = launch()
    studio.wait_model_loaded()
    design_generate(studio, "Two takes, each judged.", takes=2)
    wait_takes(studio, 2)
    # "done" (and the status line) comes after the judging: then both are stored.
    studio.wait_until(lambda: studio.status().startswith("Rendered 2 takes"), 180,
                      "the render and its judging to end")
    with sqlite3.connect(studio.data / "library.sqlite") as db:
        rows = db.execute("SELECT judgements FROM takes").fetchall()
    assert len(rows) == 2 and all(row[0] for row in rows), rows
    for (raw,) in rows:
        judged = json.loads(raw)
        assert [j["judge"] for j in judged["judgements"]] == ["voice", "words", "sound"]
        voice = judged["judgements"][0]
        assert voice["details"]["against"] == "the other takes", "judged as siblings"
        assert all(j["explanation"] for j in judged["judgements"])
    assert studio.close() == 0
