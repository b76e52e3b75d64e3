"""Issue 28 in the launched studio: two takes rendered in Design are judged by the worker
after the render, and each take's judgement is stored with it in the take library."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
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


@pytest.mark.parametrize("platform", ["xcb"], indirect=True)  # a real window, shot
def test_four_takes_arrive_the_best_selected_with_judgements_on_cards_and_in_ab(launch, screenshot,
                                                                         platform):
    """Issue 28's journey: Takes 4 in Design; the best alone selected, listed newest first
    as chosen, then by their combined score once Best score first is chosen; each card
    says its score and three judges, and A/B shows the two compared takes' judgements
    side by side."""
    studio = launch()
    studio.wait_model_loaded()
    design_generate(studio, "Four takes, ranked by their judges.", takes=4)
    wait_takes(studio, 4)
    studio.wait_until(lambda: studio.status().startswith("Rendered 4 takes"), 240,
                      "the render and its judging to end")
    assert re.search(r"Best: take [1-4]/4, score \d+ of 100\.", studio.status()), \
        studio.status()
    with sqlite3.connect(studio.data / "library.sqlite") as db:
        stored = [json.loads(raw)["combined"] for (raw,) in
                  db.execute("SELECT judgements FROM takes")]
    assert len(stored) == 4 and None not in stored, stored
    listed = studio.get("takesList")
    scores = [int(re.search(r"Score (\d+) of 100", spoken).group(1))
              for spoken in listed["spoken"]]
    assert len(listed["selected"]) == 1 and listed["current"] == listed["selected"][0]
    assert scores[listed["current"]] == max(scores), "the best alone is selected"
    studio.choose("takesSort", "Best score first")  # the chosen order holds (newest first)
    listed = studio.get("takesList")
    assert listed["selected"] == [0] and listed["current"] == 0, "the best stays selected"
    scores = [int(re.search(r"Score (\d+) of 100", spoken).group(1))
              for spoken in listed["spoken"]]
    assert scores == sorted((round(100 * c) for c in stored), reverse=True), (scores, stored)
    for spoken in listed["spoken"]:  # each card carries the three judges' lines
        assert all(f"{name} " in spoken for name in ("Voice", "Sound")), spoken
        assert "Words not judged" in spoken or "Word error rate" in spoken or \
            "words heard as asked" in spoken, spoken
    screenshot(studio, "four-judged-takes")

    studio.click_row("takesList", 0)
    studio.click_row("takesList", 3, modifiers=["ctrl"])
    studio.click("takeDetail/compareButton")
    studio.wait_until(lambda: studio.request("exists", target="abDialog")["visible"], 10,
                      "the A/B window")
    a = studio.text("abDialog/abJudgeScoreA")
    b = studio.text("abDialog/abJudgeScoreB")
    # A is the take rendered first, whichever row it sits in
    shown = sorted(int(re.search(r"Score (\d+)", side).group(1)) for side in (a, b))
    assert shown == sorted((scores[0], scores[3])), (a, b, scores)
    for judge in ("Voice", "Words", "Sound"):
        assert studio.text(f"abDialog/abJudge{judge}A") and studio.text(f"abDialog/abJudge{judge}B")
    screenshot(studio, "ab-judged", "abDialog")
    assert studio.close() == 0
